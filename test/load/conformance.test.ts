import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConformanceTally, lowerHeaders } from '../../load/conformance.js';
import { contract, operation, type OperationId } from '../../spec/contract.js';
import { hasResponseSchema, validateResponseBody } from '../../spec/validators.js';

const now = Math.floor(Date.now() / 1000);
const rl = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': String(now + 60) };
const pet = '{"id":1,"name":"a","categoryId":2}';

describe('conformance under load', () => {
  it('reads raw header casing and repeated headers', () => {
    expect(lowerHeaders({ 'X-RateLimit-Limit': '60', 'set-cookie': ['a', 'b'], Gone: undefined })).toEqual({
      'x-ratelimit-limit': '60',
      'set-cookie': 'a, b',
    });
  });

  it('a conformant answer passes; every body is validated when sampling 1 in 1', () => {
    const t = new ConformanceTally(1);
    expect(t.check('getPet', 200, rl, pet)).toBe(true);
    expect(t.check('listPets', 200, rl, `[${pet}]`)).toBe(true);
    expect(t.check('getPet', 429, { ...rl, 'Retry-After': '2' }, '')).toBe(true);
    expect(t.check('getPet', 429, { ...rl, 'retry-after': 'Wed, 21 Oct 2037 07:28:00 GMT' }, '')).toBe(true);
    expect(t.summary()).toMatchObject({ responsesChecked: 4, bodiesValidated: 2, nonConformant: 0 });
  });

  it('counts each kind of non-conformance with an example', () => {
    const t = new ConformanceTally(1);
    expect(t.check('createPet', 202, rl, pet)).toBe(false);
    expect(
      t.check(
        'getPet',
        200,
        { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '61', 'X-RateLimit-Reset': '1.5' },
        pet,
      ),
    ).toBe(false);
    expect(t.check('getPet', 429, rl, '')).toBe(false);
    expect(t.check('getPet', 429, { ...rl, 'Retry-After': '0.25' }, '')).toBe(false);
    expect(t.check('getPet', 200, rl, '{"id":"1","name":"a","categoryId":2}')).toBe(false);
    expect(t.check('listPets', 200, rl, '[{')).toBe(false);
    expect(t.check('listPets', 500, rl, '')).toBe(false);
    const s = t.summary();
    expect(s.nonConformant).toBe(7);
    expect(s.byCheck).toEqual({
      'status-documented': 2,
      'no-5xx': 1,
      'rate-limit-headers-present': 1,
      'rate-limit-remaining-range': 1,
      'retry-after-valid': 2,
      'body-schema': 1,
      'json-parses': 1,
    });
    expect(s.examples[0]).toMatchObject({ checkId: 'status-documented', operation: 'createPet', status: 202 });
  });

  it('validates one body in N', () => {
    const t = new ConformanceTally(20);
    for (let i = 0; i < 100; i++) t.check('getPet', 200, rl, '{"broken":true}');
    expect(t.summary()).toMatchObject({ bodiesValidated: 5, nonConformant: 5 });
  });
});

describe('the allocation-free fast path agrees with a plain reading of the rules', () => {
  // The rules as first written: headers lower-cased into an object, then every check in turn.
  function oracle(
    op: OperationId,
    status: number,
    raw: Record<string, string | string[] | undefined>,
    body: string,
  ): boolean {
    const spec = operation(op);
    if (!spec.responses.has(status) || status >= 500) return false;
    const h = lowerHeaders(raw);
    const n: Record<string, number> = {};
    for (const name of contract.rateLimitHeaders) {
      const v = h[name];
      if (v === undefined || !/^\d+$/.test(v.trim())) return false;
      n[name] = Number(v.trim());
    }
    if (n['x-ratelimit-remaining']! > n['x-ratelimit-limit']!) return false;
    if (status === 429) {
      const ra = h['retry-after']?.trim();
      if (
        ra === undefined ||
        !(/^\d+$/.test(ra) || (/^[A-Za-z]{3,9}, .+ GMT$/.test(ra) && !Number.isNaN(Date.parse(ra))))
      )
        return false;
    }
    if (status !== 429 && hasResponseSchema(op, status)) {
      try {
        return validateResponseBody(op, status, JSON.parse(body)).length === 0;
      } catch {
        return false;
      }
    }
    return true;
  }

  const names = (base: string) =>
    fc.constantFrom(
      base,
      base.toUpperCase(),
      base.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()),
    );
  const value = fc.oneof(
    { arbitrary: fc.constantFrom('0', '59', '60', '61', ' 59 '), weight: 4 },
    fc.constantFrom('1.5', '-1', '', '60, 60', 'Wed, 21 Oct 2037 07:28:00 GMT'),
    fc.constant(['60', '60']),
    fc.constant(undefined),
  );
  // A body that fits (op, status) most of the time, so the header rules decide most cases.
  const fitting = (op: OperationId, status: number): string =>
    status >= 400 ? `{"code":"x","message":"y","status":${status}}` : op === 'listPets' ? `[${pet}]` : pet;
  const headerPair = fc.oneof(
    fc.tuple(fc.oneof(...[...contract.rateLimitHeaders, 'retry-after'].map(names)), value),
    fc.tuple(fc.constantFrom('content-type', 'Date', 'x-other'), fc.constant('x')),
  );
  const wellFormed = {
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': '1900000000',
    'retry-after': '1',
  };

  it('on any headers, status and body, check() and the oracle give the same answer, and a failure is counted', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<OperationId>('listPets', 'createPet', 'getPet'),
        fc.constantFrom(200, 201, 202, 400, 401, 404, 429, 500, 503),
        fc.boolean(),
        fc.array(headerPair, { maxLength: 8 }),
        fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, fc.constantFrom(pet, `[${pet}]`, '[]', '[{', '')),
        (op, status, base, pairs, given) => {
          const body = given ?? fitting(op, status);
          const raw: Record<string, string | string[] | undefined> = base ? { ...wellFormed } : {};
          for (const [name, v] of pairs)
            raw[name] = Array.isArray(v) ? [...(v as readonly string[])] : (v as string | undefined);
          const t = new ConformanceTally(1);
          const ok = t.check(op, status, raw, body);
          expect(ok).toBe(oracle(op, status, raw, body));
          expect(t.summary().nonConformant).toBe(ok ? 0 : 1);
          if (!ok) expect(Object.keys(t.summary().byCheck).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 3000, seed: 4 },
    );
  });

  it('a header repeated under two casings is read as both values joined, as lowerHeaders reads it', () => {
    const t = new ConformanceTally(1);
    expect(
      t.check('getPet', 404, { ...rl, 'x-ratelimit-limit': '60' }, '{"code":"x","message":"y","status":404}'),
    ).toBe(false);
    expect(t.summary().examples[0]!.message).toBe('x-ratelimit-limit is not a non-negative integer: "60, 60"');
  });
});
