import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invalidNewPet, invalidNewPetKinds, type InvalidBody } from '../../generators/invalid-new-pet.js';
import { isInt64, parseLossless, plain } from '../../http/lossless.js';
import { contract } from '../../spec/contract.js';
import { validateSchema } from '../../spec/validators.js';

const SEED = 1337;
const cases = fc.sample(invalidNewPet(), { seed: SEED, numRuns: 3000 });

/** Why a body is not a valid NewPet, or null when it is one (which would be a generator bug). */
function defect(c: InvalidBody): string | null {
  if (c.body === null) return 'no body';
  let parsed: unknown;
  try {
    parsed = parseLossless(c.body);
  } catch {
    return 'not JSON';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'not an object';
  const errors = validateSchema('NewPet', plain(parsed));
  if (errors.length > 0) return errors[0]!.message;
  // ajv sees JS numbers: int64 range and exact integrality are judged on the digits.
  const props = contract.schemas.NewPet!.properties as Record<string, { format?: string }>;
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (props[k]?.format === 'int64' && !isInt64(v)) return `${k} not int64`;
  }
  return null;
}

describe('invalidNewPet', () => {
  it('every case is rejected by the NewPet schema, by JSON itself, or by the int64 range', () => {
    for (const c of cases) expect(defect(c), `${c.reason}: ${c.body}`).not.toBeNull();
  });

  it('covers each required field, each wrong type, the int64 range, the enum and non-object bodies', () => {
    const reasons = new Set(
      cases.map((c) => c.reason.replace(/ \(.*\)$|( beyond int64| of type number) .*$|"[^"]*"$/, '$1').trim()),
    );
    const expected = [
      'missing name',
      'missing categoryId',
      'name of type number',
      'name of type boolean',
      'name of type null',
      'name of type array',
      'name as a one-element array',
      'name of type object',
      'categoryId of type string',
      'categoryId of type boolean',
      'categoryId of type null',
      'categoryId of type array',
      'categoryId as a one-element array',
      'categoryId of type object',
      'categoryId beyond int64',
      'status of type number',
      'status of type boolean',
      'status of type null',
      'status of type array',
      'status as a one-element array',
      'status of type object',
      'unknown status',
      'null body',
      'array body',
      'number body',
      'string body',
      'boolean body',
      'malformed JSON',
      'empty body',
      'no body',
    ];
    for (const r of expected)
      expect(
        [...reasons].some((x) => x.startsWith(r)),
        r,
      ).toBe(true);
    expect(cases.some((c) => /^categoryId -?\d+\.\d+$|^categoryId 1e-1$/.test(c.reason))).toBe(true);
    // status accepts strings, name accepts strings, categoryId accepts integers: none of those is called invalid.
    expect([...reasons].filter((r) => /^(name|status) of type string$|^categoryId of type number$/.test(r))).toEqual(
      [],
    );
  });

  it('unknown statuses are outside the enum; the body is empty for "empty body" and absent for "no body"', () => {
    for (const c of cases) {
      const m = /^unknown status (".*")$/.exec(c.reason);
      if (m) expect(contract.petStatuses).not.toContain(JSON.parse(m[1]!));
      if (c.reason === 'empty body') expect(c.body).toBe('');
      if (c.reason === 'no body') expect(c.body).toBeNull();
    }
  });

  it('markers are the body name, unique, and present whenever the body carries the name', () => {
    const markers = cases.map((c) => c.marker).filter((m): m is string => m !== null);
    expect(new Set(markers).size).toBe(markers.length);
    for (const c of cases) {
      if (c.marker !== null) {
        expect(c.marker).toMatch(/^psc-marker-[0-9a-f]{16}$/);
        expect(c.body).toContain(c.marker);
      }
    }
    const withName = cases.filter((c) => c.reason === 'missing categoryId');
    expect(withName.length).toBeGreaterThan(0);
    for (const c of withName) expect((JSON.parse(c.body!) as { name: string }).name).toBe(c.marker);
    expect(cases.filter((c) => c.reason === 'missing name').every((c) => c.marker === null)).toBe(true);
  });
});

describe('invalidNewPetKinds', () => {
  const kindOf = (r: string) =>
    r
      .replace(/\(.*\)|".*"|-?\d+(\.\d+)?([eE][+-]?\d+)?/g, '')
      .replace(/\s+/g, ' ')
      .trim();
  const all = new Set(cases.map((c) => kindOf(c.reason)));

  it.each([1, 2, 3, 99])(
    'one sample of each kind (seed %i) sends every kind, the coercion classics among them',
    (seed) => {
      const once = invalidNewPetKinds().map((k) => fc.sample(k, { seed, numRuns: 1 })[0]!);
      const sent = new Set(once.map((c) => kindOf(c.reason)));
      expect(sent).toEqual(all);
      for (const c of once) expect(defect(c), `${c.reason}: ${c.body}`).not.toBeNull();
      for (const classic of [
        'categoryId of type string',
        'categoryId of type boolean',
        'categoryId of type null',
        'categoryId as a one-element array',
        'name of type number',
      ])
        expect(sent, classic).toContain(classic);
    },
  );
});
