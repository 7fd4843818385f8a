/**
 * Causes are data (issue 30): a check declares the kinds of cause it reports, finding() refuses any other and a
 * violation or warning without one, and the checks whose one finding can mix causes say one cause per field.
 */
import { describe, expect, it } from 'vitest';
import { defineCheck, finding, observation, sayCauses, type Check, type Said } from '../../checks/check.js';
import { CAUSE_KINDS, causeText, causesText, type Cause, type CauseKind } from '../../checks/cause.js';
import { allChecks } from '../../checks/registry.js';
import { bodySchema, errorBody429, int64Exact, rateLimitRemainingRange, transportOk } from '../../checks/response.js';
import { createEcho } from '../../checks/create.js';
import { perKey } from '../../checks/rate-limit.js';
import { evidence, exchange } from './fixtures.js';

const STATUS: Cause = { kind: 'status', status: 200, expected: [404] };

/** A check over `ev`: it emits the finding it is told to (level and causes), as any check would. */
interface Probe {
  readonly level?: 'violation' | 'observation';
  readonly causes?: readonly Cause[];
}
// A probe borrows a registered id: a check's id is one of the registry's (CheckId).
const probe: Check<Probe, 'get-404'> = defineCheck<Probe, 'get-404'>({
  id: 'get-404',
  clauses: ['4.3-get-404', 'gap-4-invalid-petid'],
  levels: ['violation', 'observation'],
  causes: ['status', 'gap'],
  area: 'getPet',
  title: 'A check that emits the causes it is told to.',
  run: (ev) => [
    finding(
      probe,
      exchange({ operation: 'getPet' }),
      { because: 'm' },
      {
        ...(ev.level === 'observation' && { level: 'observation', clause: 'gap-4-invalid-petid' }),
        ...(ev.causes !== undefined && { causes: ev.causes }),
      },
    ),
  ],
});

describe('finding() and the declared kinds of cause', () => {
  it('carries the causes it is given, of a declared kind', () => {
    const [f] = probe.run({ causes: [STATUS] });
    expect(f).toMatchObject({ level: 'violation', causes: [STATUS] });
    expect(f?.harnessError).toBeUndefined();
  });

  it('refuses a cause of a kind the check does not declare: the guard yields a harness warning', () => {
    const header: Cause = { kind: 'header', name: 'Retry-After', problem: 'missing', value: null };
    const [f] = probe.run({ causes: [STATUS, header] });
    expect(f).toMatchObject({ checkId: 'get-404', level: 'warning', harnessError: true, causes: [] });
    expect(f?.message).toContain('does not declare causes of kind header');
    expect(() => finding(probe, exchange(), { because: 'm' }, { causes: [header] })).toThrow(
      /does not declare causes of kind header/,
    );
  });

  it('refuses a violation with no cause; an observation may have none', () => {
    const [f] = probe.run({});
    expect(f).toMatchObject({ level: 'warning', harnessError: true });
    expect(f?.message).toContain('a violation must say its cause');
    expect(probe.run({ level: 'observation' })[0]).toMatchObject({ level: 'observation', causes: [] });
  });

  it('a gap cause records an observation, never a violation', () => {
    const gap: Cause = { kind: 'gap', clause: 'gap-4-invalid-petid', answer: '400' };
    expect(observation(probe, exchange(), 'm', { clause: 'gap-4-invalid-petid', causes: [gap] }).causes).toEqual([gap]);
    expect(() => finding(probe, exchange(), { because: 'm' }, { causes: [gap] })).toThrow(
      /gap cause records an observation/,
    );
  });

  it('defineCheck refuses a check that declares no kind of cause', () => {
    const bare = {
      id: 'get-200',
      clauses: ['4.3-get-404'],
      levels: ['violation'],
      area: 'getPet',
      title: 't',
      run: () => [],
    } as const;
    // A definition from plain JavaScript (or a cast) can have none: the type alone does not stop it.
    expect(() => defineCheck({ ...bare, causes: [] as unknown as ['status'] })).toThrow(
      /get-200 declares no kind of cause/,
    );
  });

  it('every registered check declares at least one kind of cause, each a kind of the union', () => {
    for (const c of allChecks) {
      expect(c.causes.length, c.id).toBeGreaterThan(0);
      for (const k of c.causes) expect(CAUSE_KINDS, `${c.id}: ${k}`).toContain(k);
    }
    // A check that can fail declares a kind a defect can have: a gap cause alone would leave its violations causeless.
    for (const c of allChecks.filter((c) => c.levels.some((l) => l !== 'observation')))
      expect(
        c.causes.some((k) => k !== 'gap'),
        c.id,
      ).toBe(true);
  });
});

describe('one cause per failing field', () => {
  it('create-echo: a name trimmed and a categoryId rounded in one answer are ONE finding with TWO field causes', () => {
    const body = '{"id":5,"name":"Rex","categoryId":9007199254740992,"status":"pending"}';
    const found = createEcho.run({
      exchange: exchange({ operation: 'createPet', body }),
      sent: { name: ' Rex ', categoryId: '9007199254740993', status: 'pending' },
      nameEdge: false,
    });
    expect(found).toHaveLength(1);
    const [f] = found;
    expect(f?.causes).toEqual([
      {
        kind: 'field',
        schema: 'Pet',
        path: '/name',
        field: 'name',
        problem: 'changed',
        value: '"Rex"',
        sent: '" Rex "',
      },
      {
        kind: 'field',
        schema: 'Pet',
        path: '/categoryId',
        field: 'categoryId',
        problem: 'changed',
        value: '9007199254740992',
        sent: '9007199254740993',
      },
    ]);
    // The message's first line says the causes, in their words, each once.
    expect(f?.message).toBe(
      'received name "Rex" (sent " Rex "); categoryId 9007199254740992 (sent 9007199254740993) in the 201 for POST /pets\nthe spec documents the animal added as the NewPet sent',
    );
  });

  it("create-echo: a status not stored is its own cause, absent, with the run's markers of the pet", () => {
    const marker = 'psc-marker-00000000000000ab';
    const body = `{"id":5,"name":"${marker}","categoryId":2}`;
    const [f] = createEcho.run({
      exchange: exchange({ operation: 'createPet', body }),
      sent: { name: marker, categoryId: '2', status: 'sold' },
      nameEdge: false,
    });
    expect(f?.causes).toEqual([
      {
        kind: 'field',
        schema: 'Pet',
        path: '/status',
        field: 'status',
        problem: 'changed',
        sent: '"sold"',
        markers: [marker],
      },
    ]);
    expect(f?.message).toContain('status absent (sent "sold")');
  });

  it('body-schema: two failing paths are two causes with their path, field, problem and value', () => {
    const marker = 'psc-marker-0123456789abcdef';
    const body = `[{"id":1,"name":"Rex","categoryId":2},{"id":2,"name":"${marker}","categoryId":"7","status":"gone"},{"id":3,"categoryId":2}]`;
    const [f] = bodySchema.run(evidence({ operation: 'listPets', body }));
    expect(f?.clause).toBe('2-pets-array');
    expect(f?.causes.map((c) => (c.kind === 'field' ? [c.schema, c.path, c.field, c.problem, c.value] : c))).toEqual([
      ['Pets', '/1/categoryId', 'categoryId', 'type', '"7"'],
      ['Pets', '/1/status', 'status', 'value', '"gone"'],
      ['Pets', '/2/name', 'name', 'missing', undefined],
    ]);
    // The markers are those of the failing item only.
    expect(f?.causes.map((c) => (c.kind === 'field' ? c.markers : null))).toEqual([[marker], [marker], undefined]);
    expect(f?.message.split('\n')[0]).toBe(
      `received a body that is not Pets on 200 for GET /pets: /1/categoryId must be integer: received "7"; /1/status must be equal to one of the allowed values: received "gone"; /2 must have required property 'name'`,
    );
  });

  it('body-schema: a body of the wrong type is one cause at the body itself', () => {
    const [f] = bodySchema.run(evidence({ operation: 'listPets', body: '{"pets":[]}' }));
    expect(f?.causes).toEqual([
      {
        kind: 'field',
        schema: 'Pets',
        path: '',
        field: null,
        problem: 'type',
        value: '{"pets":[]}',
        rule: 'must be array',
      },
    ]);
    expect(f?.message).toContain('on 200 for GET /pets: body must be array');
  });

  it('error-body-429: each missing member of the Error is its own cause', () => {
    const [f] = errorBody429.run(evidence({ status: 429, body: '{"status":429}' }));
    expect(f?.level).toBe('warning');
    expect(f?.causes.map((c) => (c.kind === 'field' ? [c.schema, c.path, c.field, c.problem] : c))).toEqual([
      ['Error', '/code', 'code', 'missing'],
      ['Error', '/message', 'message', 'missing'],
    ]);
  });

  it('int64-exact: one cause per field beyond int64, with its exact digits', () => {
    const body =
      '[{"id":9223372036854775808,"name":"a","categoryId":2},{"id":3,"name":"b","categoryId":-9223372036854775809}]';
    const [f] = int64Exact.run(evidence({ operation: 'listPets', body }));
    expect(f?.causes).toEqual([
      {
        kind: 'field',
        schema: 'Pet',
        path: '/0/id',
        field: 'id',
        problem: 'beyond-int64',
        value: '9223372036854775808',
      },
      {
        kind: 'field',
        schema: 'Pet',
        path: '/1/categoryId',
        field: 'categoryId',
        problem: 'beyond-int64',
        value: '-9223372036854775809',
      },
    ]);
    expect(f?.message.split('\n')[0]).toBe(
      'received id 9223372036854775808; categoryId -9223372036854775809 on 200 for GET /pets',
    );
  });
});

describe('the Limit a consequence was judged against', () => {
  it('rate-limit-remaining-range carries the X-RateLimit-Limit it received', () => {
    const [f] = rateLimitRemainingRange.run(
      evidence({ headers: { 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '59' } }),
    );
    expect(f?.causes).toEqual([
      { kind: 'header', name: 'X-RateLimit-Remaining', problem: 'invalid', value: '59', limit: '6' },
    ]);
  });

  it('rl-per-key names the key whose plan lacks the Limit both reported, with that Limit', () => {
    const free = { requestsPerMinute: 60, requestsPerDay: 1000 };
    const pro = { requestsPerMinute: 300, requestsPerDay: 10_000 };
    const [f] = perKey.run({
      kind: 'limits',
      keys: [
        { plan: 'free', limits: free, reported: 60, exchange: exchange() },
        { plan: 'business', limits: pro, reported: 60, exchange: exchange() },
      ],
    });
    expect(f?.causes).toEqual([
      {
        kind: 'limit',
        plan: 'business',
        window: 'minute',
        problem: 'not-per-key',
        limit: 300,
        observed: 60,
        reported: 60,
      },
    ]);
  });
});

describe('causeText', () => {
  /** One cause of every kind (the record's type asks for each kind of the union). */
  const samples: { readonly [K in CauseKind]: Extract<Cause, { kind: K }> } = {
    status: { kind: 'status', status: 200, expected: [201] },
    crash: { kind: 'crash', status: 500 },
    transport: { kind: 'transport', code: 'ECONNRESET' },
    field: {
      kind: 'field',
      schema: 'Pet',
      path: '/name',
      field: 'name',
      problem: 'changed',
      value: '"a"',
      sent: '"b"',
    },
    header: { kind: 'header', name: 'Retry-After', problem: 'missing', value: null },
    'media-type': { kind: 'media-type', received: 'text/html', expected: 'application/json' },
    limit: { kind: 'limit', plan: 'free', window: 'minute', problem: 'stricter', limit: 60, observed: 12 },
    state: { kind: 'state', problem: 'changed', field: 'status', id: '7', value: '"sold"', expected: '"available"' },
    query: { kind: 'query', parameter: 'limit', value: '5', observed: '7 animals' },
    latency: { kind: 'latency', requestClass: 'GET /pets 200', baselineMs: 10, latestMs: 900 },
    gap: { kind: 'gap', clause: 'gap-4-pagination', answer: 'none' },
  };

  it('says every kind of cause in one short line, with its data', () => {
    expect(Object.keys(samples).sort()).toEqual([...CAUSE_KINDS].sort());
    expect(Object.fromEntries(Object.values(samples).map((c) => [c.kind, causeText(c)]))).toEqual({
      status: 'received 200',
      crash: 'received 500',
      transport: 'received no HTTP answer (ECONNRESET)',
      field: 'name "a" (sent "b")',
      header: 'Retry-After missing',
      'media-type': 'Content-Type text/html, not application/json',
      limit: "the free key's minute limit (60) enforced before it was reached: 12",
      state: 'a stored animal differs from the one created (id 7): status "sold", expected "available"',
      query: 'limit 5 not honoured: 7 animals',
      latency: 'GET /pets 200 slowed from 10 ms to 900 ms',
      gap: 'none (gap-4-pagination: the spec is silent)',
    });
  });

  it("says an animal's problem and id once for its fields, an id field not twice, a long value shortened", () => {
    const changed = (field: string, value: string): Cause => ({
      kind: 'state',
      problem: 'changed',
      field,
      id: '7',
      value,
    });
    expect(causesText([changed('name', '"a"'), changed('status', '"sold"')])).toBe(
      'a stored animal differs from the one created (id 7): name "a"; status "sold"',
    );
    expect(causesText([{ kind: 'state', problem: 'duplicate-id', field: 'id', id: '7', value: '7' }])).toBe(
      'one id was given to two animals (id 7)',
    );
    const long: Cause = { kind: 'header', name: 'Retry-After', problem: 'invalid', value: 'x'.repeat(500) };
    expect(causeText(long)).toBe(`Retry-After invalid ${'x'.repeat(80)}…`);
    expect(causesText([samples.status, samples.crash, samples.header, samples.query])).toBe(
      'received 200; received 500; Retry-After missing (+1)',
    );
  });
});

describe('messages rendered from the causes', () => {
  it("a violation's first line is lead, the causes' words and on; because follows", () => {
    const f = finding(
      probe,
      exchange({ operation: 'getPet' }),
      {
        lead: 'for a petId never created:',
        on: 'for GET /pets/9',
        because: 'the spec documents 404\nfor an id it does not hold',
      },
      { causes: [STATUS] },
    );
    expect(f.message).toBe(
      'for a petId never created: received 200 for GET /pets/9\nthe spec documents 404\nfor an id it does not hold',
    );
    expect(sayCauses([STATUS], { because: '' })).toBe('received 200');
  });

  it('refuses a message written whole for a violation, allows it for an observation', () => {
    const whole = 'received 200 for GET /pets/9' as unknown as Said;
    expect(() => finding(probe, exchange(), whole, { causes: [STATUS] })).toThrow(/rendered from its causes/);
    const gap: Cause = { kind: 'gap', clause: 'gap-4-invalid-petid', answer: '400' };
    expect(
      observation(probe, exchange(), 'petId "x" answered 400', { clause: 'gap-4-invalid-petid', causes: [gap] })
        .message,
    ).toBe('petId "x" answered 400');
  });
});

describe('no answer', () => {
  it('transport-ok: a connection dropped while answering is a crash; one never answered is a transport failure', () => {
    const reset = transportOk.run(evidence({ error: { code: 'ECONNRESET', message: 'socket hang up' } }));
    expect(reset[0]?.causes).toEqual([{ kind: 'crash', status: null, code: 'ECONNRESET' }]);
    const refused = transportOk.run(evidence({ error: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' } }));
    expect(refused[0]?.causes).toEqual([{ kind: 'transport', code: 'ECONNREFUSED' }]);
  });
});
