import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_EDGES } from '../../generators/int64.js';
import { absentPetId, existingPetId, invalidPetId } from '../../generators/pet-id.js';
import { INT64_MAX, INT64_MIN } from '../../http/lossless.js';

const SEED = 99;
const inInt64 = (d: string) => /^-?(0|[1-9]\d*)$/.test(d) && BigInt(d) >= INT64_MIN && BigInt(d) <= INT64_MAX;

describe('pet ids', () => {
  it('existingPetId returns only the given ids, as encoded segments', () => {
    const ids = ['1', '9007199254740993', '9223372036854775807'];
    const cases = fc.sample(existingPetId(ids), { seed: SEED, numRuns: 100 });
    expect(new Set(cases.map((c) => c.digits))).toEqual(new Set(ids));
    for (const c of cases) {
      expect(c.kind).toBe('existing');
      expect(c.segment).toBe(c.digits);
    }
    expect(() => existingPetId([])).toThrow();
  });

  it('absentPetId never returns one of the given ids, even when they sit on the edges it favours', () => {
    const ids = [...INT64_EDGES, '42'];
    const cases = fc.sample(absentPetId(ids), { seed: SEED, numRuns: 1000 });
    for (const c of cases) {
      expect(c.kind).toBe('absent');
      expect(ids).not.toContain(c.digits);
      expect(inInt64(c.digits!), c.digits).toBe(true);
      expect(c.segment).toBe(c.digits);
    }
    // Ids given in a non-canonical spelling are still excluded.
    const cases2 = fc.sample(absentPetId(['+9223372036854775807', '09007199254740993']), { seed: SEED, numRuns: 1000 });
    expect(cases2.map((c) => c.digits)).not.toContain('9223372036854775807');
    expect(cases2.map((c) => c.digits)).not.toContain('9007199254740993');
    expect(fc.sample(absentPetId([]), { seed: SEED, numRuns: 1000 }).map((c) => c.digits)).toContain(
      '9223372036854775807',
    );
  });

  it('absentPetId keeps 2^20 clear of every id the target has shown (others create pets near ours)', () => {
    const shown = ['9007199254745993', '42'];
    for (const c of fc.sample(absentPetId(shown), { seed: SEED, numRuns: 1000 })) {
      for (const s of shown) {
        const gap = BigInt(c.digits!) - BigInt(s);
        expect(gap > 2n ** 20n || gap < -(2n ** 20n), c.digits).toBe(true);
      }
    }
  });

  it('invalidPetId segments are never an int64, are encoded, and are never dot-segments', () => {
    const cases = fc.sample(invalidPetId(), { seed: SEED, numRuns: 1000 });
    for (const c of cases) {
      const decoded = decodeURIComponent(c.segment);
      expect(c.segment).toBe(encodeURIComponent(decoded));
      expect(inInt64(decoded.trim()), c.segment).toBe(false);
      expect(['', '.', '..']).not.toContain(decoded);
      if (c.kind === 'beyond-int64') expect(c.digits).toBe(decoded);
    }
    const segments = new Set(cases.map((c) => c.segment));
    for (const s of ['abc', '1.5', '1e3', '%20', '-', '%F0%9F%90%B6', '9223372036854775808', '-9223372036854775809']) {
      expect(segments.has(s), s).toBe(true);
    }
  });
});
