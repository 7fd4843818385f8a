import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyResponseChecks, checkById } from '../../checks/registry.js';
import {
  BODY_CHECK_IDS,
  ConformanceTally,
  HEADER_CHECK_IDS,
  loadExchange,
  lowerHeaders,
} from '../../load/conformance.js';
import { contract, type OperationId } from '../../spec/contract.js';

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
      'status-documented': 1,
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

describe('the tally is the response checks of the catalogue', () => {
  it('selects its checks by id from the registry, each a response check', () => {
    for (const id of [...HEADER_CHECK_IDS, ...BODY_CHECK_IDS]) expect(checkById(id).area).toBe('response');
  });

  it('judges what the checks judge: the same verdict as the check functions on the same exchange', () => {
    // A 429 whose only breach is its Retry-After (its body an Error in JSON).
    const headers = { ...rl, 'Retry-After': '0.25', 'Content-Type': 'application/json' };
    const body = '{"code":"rate_limited","message":"slow down","status":429}';
    const ex = loadExchange('getPet', 429, headers, body, 'free');
    const direct = applyResponseChecks({ exchange: ex, plan: null })
      .filter((f) => f.level === 'violation')
      .map((f) => f.checkId);
    const t = new ConformanceTally(1);
    expect(t.check('getPet', 429, headers, body)).toBe(false);
    expect(Object.keys(t.summary().byCheck)).toEqual(direct);
  });

  const names = (base: string) =>
    fc.constantFrom(
      base,
      base.toUpperCase(),
      base.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()),
    );
  const value = fc.oneof(
    { arbitrary: fc.constantFrom('0', '59', '60', '61', ' 59 '), weight: 4 },
    fc.constantFrom('1.5', '-1', '', '60, 60', 'Wed, 21 Oct 2037 07:28:00 GMT', '1234567890123456789'),
    fc.constant(['60', '60']),
    fc.constant(['60', '61']),
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

  it('on any headers, status and body, the fast path gives the verdict and counts of the checks alone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<OperationId>('listPets', 'createPet', 'getPet'),
        fc.constantFrom(200, 201, 202, 400, 401, 404, 429, 500, 503),
        fc.boolean(),
        fc.array(headerPair, { maxLength: 8 }),
        fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, fc.constantFrom(pet, `[${pet}]`, '[]', '[{', '')),
        fc.integer({ min: 1, max: 3 }),
        (op, status, base, pairs, given, every) => {
          const body = given ?? fitting(op, status);
          const raw: Record<string, string | string[] | undefined> = base ? { ...wellFormed } : {};
          for (const [name, v] of pairs)
            raw[name] = Array.isArray(v) ? [...(v as readonly string[])] : (v as string | undefined);
          const fast = new ConformanceTally(every);
          const checks = new ConformanceTally(every, { fastPath: false });
          for (let i = 0; i < 3; i++)
            expect(fast.check(op, status, raw, body)).toBe(checks.check(op, status, raw, body));
          expect(fast.summary()).toEqual(checks.summary());
        },
      ),
      { numRuns: 1000, seed: 4 },
    );
  });

  it('a header repeated under two casings with one value is one value, as the HTTP client records it', () => {
    const t = new ConformanceTally(1);
    const error = '{"code":"x","message":"y","status":404}';
    expect(t.check('getPet', 404, { ...rl, 'x-ratelimit-limit': '60' }, error)).toBe(true);
    expect(t.check('getPet', 404, { ...rl, 'x-ratelimit-limit': '61' }, error)).toBe(false);
    expect(t.summary().examples[0]!.message).toContain('X-RateLimit-Limit repeated with different values');
  });
});
