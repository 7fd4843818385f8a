import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_EDGES, beyondInt64Digits, int64Digits } from '../../generators/int64.js';
import { INT64_MAX, INT64_MIN } from '../../http/lossless.js';

const SEED = 20240601;
const DIGITS = /^-?(0|[1-9]\d*)$/;

describe('int64Digits', () => {
  it('yields canonical digits inside int64 and generates every edge', () => {
    const values = fc.sample(int64Digits(), { seed: SEED, numRuns: 3000 });
    for (const d of values) {
      expect(d).toMatch(DIGITS);
      const n = BigInt(d);
      expect(n >= INT64_MIN && n <= INT64_MAX, d).toBe(true);
    }
    const seen = new Set(values);
    for (const edge of INT64_EDGES) expect(seen.has(edge), `edge ${edge} never generated`).toBe(true);
    // Not only edges: values far from every edge appear too.
    expect(values.some((d) => !INT64_EDGES.includes(d) && BigInt(d) > 2n ** 60n)).toBe(true);
  });

  it('edges are the documented ones, derived from the int64 range', () => {
    const safe = 2n ** 53n;
    const expected = [0n, 1n, -1n, safe - 1n, -(safe - 1n), safe, -safe, safe + 1n, -(safe + 1n), INT64_MAX, INT64_MIN];
    expect([...INT64_EDGES].sort()).toEqual(expected.map(String).sort());
  });
});

describe('beyondInt64Digits', () => {
  it('yields only integers outside int64, including the ones just beyond each end', () => {
    const values = fc.sample(beyondInt64Digits(), { seed: SEED, numRuns: 1000 });
    for (const d of values) {
      expect(d).toMatch(DIGITS);
      const n = BigInt(d);
      expect(n < INT64_MIN || n > INT64_MAX, d).toBe(true);
    }
    for (const must of [INT64_MAX + 1n, INT64_MIN - 1n, 2n ** 64n - 1n, 10n ** 20n]) {
      expect(values, String(must)).toContain(String(must));
    }
  });
});
