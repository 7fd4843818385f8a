import { describe, expect, it } from 'vitest';
import { ConformanceTally, lowerHeaders } from '../../load/conformance.js';

const now = Math.floor(Date.now() / 1000);
const rl = { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': String(now + 60) };
const pet = '{"id":1,"name":"a","categoryId":2}';

describe('conformance under load', () => {
  it('reads raw header casing and repeated headers', () => {
    expect(lowerHeaders({ 'X-RateLimit-Limit': '60', 'set-cookie': ['a', 'b'], Gone: undefined })).toEqual({ 'x-ratelimit-limit': '60', 'set-cookie': 'a, b' });
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
    expect(t.check('getPet', 200, { 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '61', 'X-RateLimit-Reset': '1.5' }, pet)).toBe(false);
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
