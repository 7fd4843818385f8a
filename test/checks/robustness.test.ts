/** The robustness catalogue's checks at their edges, the Accept tolerance, and how observations keep big bodies. */
import { describe, expect, it } from 'vitest';
import { finding, observation, OBSERVATION_BODY_MAX } from '../../checks/check.js';
import { applyResponseChecks } from '../../checks/registry.js';
import {
  acceptAnswer,
  authBeforeBody,
  bodyUnderstood,
  contentTypeAccepted,
  noOperationWithoutKey,
  pathVariantAnswer,
  queryShapeAnswer,
} from '../../checks/robustness.js';
import { acceptsJson } from '../../checks/tolerance.js';
import { ERROR, exchange, evidence, FREE } from './fixtures.js';

const levels = (fs: readonly { level: string }[]) => fs.map((f) => f.level);

describe('no-operation-without-key', () => {
  it('a 2xx without a key is a violation citing section 1; any refusal or redirect is not', () => {
    const served = exchange({ operation: null, path: '/V1/PETS', status: 200, body: '[]', keyPlan: 'none' });
    const [f] = noOperationWithoutKey.run({ exchange: served, what: 'upper-case path' });
    expect(f?.level).toBe('violation');
    expect(f?.clause).toBe('1-auth-required');
    expect(f?.message).toBe(
      'received 200 for GET /v1/V1/PETS (upper-case path) without a key\nthe spec requires authentication for every operation: a missing key gets 401',
    );
    for (const status of [401, 404, 405, 301, 406, 400])
      expect(
        noOperationWithoutKey.run({ exchange: exchange({ operation: null, status, keyPlan: 'none' }), what: 'x' }),
        String(status),
      ).toEqual([]);
    expect(
      noOperationWithoutKey.run({
        exchange: exchange({ error: { code: 'ECONNRESET', message: 'reset' } }),
        what: 'x',
      }),
    ).toEqual([]);
  });
});

describe('robust-body-understood', () => {
  const created = (body: string) => exchange({ operation: 'createPet', status: 201, body });
  const readings = [
    { name: 'm', categoryId: '5' },
    { name: 'm', categoryId: '6' },
  ];
  it('a 201 that shows any reading of the body passes (recorded); one that shows none is a violation', () => {
    const first = created('{"id":1,"name":"m","categoryId":5,"status":"available"}');
    const last = created('{"id":1,"name":"m","categoryId":6,"status":"available"}');
    for (const ex of [first, last])
      expect(levels(bodyUnderstood.run({ exchange: ex, what: 'dup', readings }))).toEqual(['observation']);
    const neither = bodyUnderstood.run({
      exchange: created('{"id":1,"name":"m","categoryId":11,"status":"available"}'),
      what: 'a duplicate categoryId',
      readings,
    });
    expect(levels(neither)).toEqual(['violation']);
    expect(neither[0]?.clause).toBe('4.2-create-echo');
    // The field no reading explains, said from its cause; the readings whole on the documented line.
    expect(neither[0]?.message).toBe(
      'createPet with a duplicate categoryId answered 201 with categoryId 11 (sent 5 or 6)\nthe spec documents the animal added as sent: name "m", categoryId 5 or name "m", categoryId 6',
    );
    // Exact digits: a categoryId rounded through a double is not the one sent.
    const big = [{ name: 'm', categoryId: '9007199254740993' }];
    const rounded = created('{"id":1,"name":"m","categoryId":9007199254740992,"status":"available"}');
    expect(levels(bodyUnderstood.run({ exchange: rounded, what: 'x', readings: big }))).toEqual(['violation']);
  });
  it('a refusal, or a 201 of a body no reading is certain of, is only recorded under the gap', () => {
    const refused = bodyUnderstood.run({
      exchange: exchange({ operation: 'createPet', status: 400, body: ERROR(400) }),
      what: 'a BOM',
      readings,
    });
    expect(levels(refused)).toEqual(['observation']);
    expect(refused[0]?.clause).toBe('gap-2-json-edges');
    const unsure = created('{"id":1,"name":"m\\ufffd","categoryId":5,"status":"available"}');
    expect(levels(bodyUnderstood.run({ exchange: unsure, what: 'bad UTF-8', readings: null }))).toEqual([
      'observation',
    ]);
  });
});

describe('the observations say what came, one line each', () => {
  it('content-type-accepted, accept-answer, auth-before-body, path-variant-answer', () => {
    const accepted = exchange({ operation: 'createPet', status: 201 });
    expect(contentTypeAccepted.run({ exchange: accepted, what: 'Content-Type text/plain' })[0]?.message).toMatch(
      /^createPet with Content-Type text\/plain: accepted \(201 application\/json\)/,
    );
    const html = exchange({ status: 406, body: '', headers: { 'content-type': 'text/html' } });
    expect(acceptAnswer.run({ exchange: html, what: 'Accept: text/html' })[0]?.message).toMatch(
      /^GET \/pets with Accept: text\/html answered 406 text\/html/,
    );
    const first400 = exchange({ operation: 'createPet', status: 400, keyPlan: 'none' });
    expect(authBeforeBody.run({ exchange: first400, what: 'x' })[0]?.message).toMatch(/400 before 401/);
    const slash = exchange({ operation: null, path: '/pets/', status: 404 });
    expect(pathVariantAnswer.run({ exchange: slash, what: 'trailing slash' })[0]?.message).toMatch(
      /^GET \/v1\/pets\/ \(trailing slash\) with the key answered 404/,
    );
    const shaped = exchange({ path: '/pets?limit[]=5&status[]=available', status: 200, body: '[]' });
    const [shape] = queryShapeAnswer.run({ exchange: shaped, what: 'limit and status in brackets' });
    expect([shape?.level, shape?.clause]).toEqual(['observation', 'gap-4-parameter-shapes']);
    expect(shape?.message).toMatch(/^GET \/pets with limit and status in brackets answered 200 application\/json/);
    // A 429 says nothing about the case.
    for (const c of [contentTypeAccepted, acceptAnswer, authBeforeBody, pathVariantAnswer, queryShapeAnswer])
      expect(c.run({ exchange: exchange({ status: 429 }), what: 'x' }), c.id).toEqual([]);
  });
});

describe('Accept values a JSON service cannot serve', () => {
  it('acceptsJson reads media ranges and q', () => {
    const withAccept = (accept?: string) => exchange({ requestHeaders: accept === undefined ? {} : { accept } });
    expect(acceptsJson(withAccept())).toBe(true);
    for (const a of ['application/json', 'application/*', '*/*', 'text/html, application/json;q=0.5'])
      expect(acceptsJson(withAccept(a)), a).toBe(true);
    for (const a of ['text/html', 'application/xml', 'application/json;q=0', 'text/html, */*;q=0'])
      expect(acceptsJson(withAccept(a)), a).toBe(false);
  });
  it('a 406 to such a request is no violation of the documented statuses; to a JSON request it is', () => {
    const ids = (accept?: string) =>
      applyResponseChecks({
        exchange: exchange({
          status: 406,
          body: ERROR(406),
          ...(accept ? { requestHeaders: { accept } } : {}),
        }),
        plan: FREE,
      })
        .filter((f) => f.level === 'violation')
        .map((f) => f.checkId);
    expect(ids('text/html')).toEqual([]);
    expect(ids()).toEqual(['status-documented']);
  });
  it('an HTML 401 is still a violation whatever was asked for: the Error is JSON', () => {
    const ev = evidence({
      status: 401,
      body: '<html></html>',
      headers: { 'content-type': 'text/html' },
      requestHeaders: { accept: 'text/html' },
      keyPlan: 'none',
    });
    expect(
      applyResponseChecks(ev)
        .filter((f) => f.level === 'violation')
        .map((f) => f.checkId)
        .sort(),
    ).toEqual(['content-type-json', 'json-parses']);
  });
});

describe('big request bodies in findings', () => {
  const big = exchange({ operation: 'createPet', requestBody: `{"name":"${'x'.repeat(OBSERVATION_BODY_MAX)}"}` });
  it('an observation keeps no body over the cap: its curl line says how many bytes were left out', () => {
    const [ref] = observation(contentTypeAccepted, big, 'x').exchanges;
    expect(ref?.request.bodyBase64).toBeNull();
    expect(ref?.curl).toContain(`<${OBSERVATION_BODY_MAX + 11} bytes, not kept>`);
    expect(ref?.curl.length).toBeLessThan(1000);
  });
  it('a violation keeps every byte, for its curl line and replay file', () => {
    const [ref] = finding(
      noOperationWithoutKey,
      big,
      { because: 'x' },
      {
        causes: [{ kind: 'status', status: 201, expected: [401] }],
      },
    ).exchanges;
    expect(Buffer.from(ref!.request.bodyBase64!, 'base64').length).toBe(OBSERVATION_BODY_MAX + 11);
    expect(ref?.curl.length).toBeGreaterThan(OBSERVATION_BODY_MAX);
  });
});
