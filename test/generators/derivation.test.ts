// The generators follow the YAML: a contract changed in text yields changed values, with no code change.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authVariants } from '../../generators/auth.js';
import { invalidNewPet } from '../../generators/invalid-new-pet.js';
import { invalidListQuery, validListQuery } from '../../generators/list-query.js';
import { newPetBody, validNewPet } from '../../generators/new-pet.js';
import { absentPetId } from '../../generators/pet-id.js';
import { loadContract, specPath } from '../../spec/contract.js';

const original = readFileSync(specPath, 'utf8');
const SEED = 31;

function edit(text: string, from: string, to: string): string {
  expect(text, `the YAML no longer contains ${from}`).toContain(from);
  return text.replace(from, to);
}

describe('derivation from the contract', () => {
  let text = edit(original, 'enum: [available, pending, sold]', 'enum: [available, pending, sold, adopted]');
  text = edit(
    text,
    'schema: { type: integer, minimum: 1, maximum: 100, default: 20 }',
    'schema: { type: integer, minimum: 5, maximum: 50, default: 10 }',
  );
  text = edit(
    text,
    'categoryId: { type: integer, format: int64 }\n        status',
    'categoryId: { type: integer, format: int32 }\n        status',
  );
  text = edit(text, 'scheme: bearer', 'scheme: mac');
  const changed = loadContract(text);

  it('a new PetStatus value is generated as valid and never called unknown', () => {
    const pets = fc.sample(validNewPet(changed), { seed: SEED, numRuns: 300 });
    expect(pets.map((p) => p.status)).toContain('adopted');
    expect(fc.sample(validListQuery(changed), { seed: SEED, numRuns: 300 }).map((q) => q.status)).toContain('adopted');
    const invalid = fc.sample(invalidNewPet(changed), { seed: SEED, numRuns: 1000 });
    expect(invalid.some((c) => c.reason === 'unknown status "adopted"')).toBe(false);
    const unknownStatuses = fc
      .sample(invalidListQuery(changed), { seed: SEED, numRuns: 1000 })
      .filter((q) => q.kind === 'unknown status');
    expect(unknownStatuses.length).toBeGreaterThan(0);
    expect(unknownStatuses.map((q) => q.status)).not.toContain('adopted');
  });

  it('new limit bounds and default move the valid and invalid queries', () => {
    const valid = fc.sample(validListQuery(changed), { seed: SEED, numRuns: 500 });
    const limits = valid.map((q) => q.limit).filter((l): l is number => l !== undefined);
    expect(limits.every((l) => l >= 5 && l <= 50)).toBe(true);
    for (const l of [5, 10, 50]) expect(limits).toContain(l);
    const kinds = new Set(fc.sample(invalidListQuery(changed), { seed: SEED, numRuns: 1000 }).map((q) => q.kind));
    expect(kinds.has('limit 4')).toBe(true);
    expect(kinds.has('limit 51')).toBe(true);
  });

  it('an int32 categoryId narrows valid values and moves the out-of-range ones', () => {
    const pets = fc.sample(validNewPet(changed), { seed: SEED, numRuns: 500 });
    for (const p of pets)
      expect(BigInt(p.categoryId) >= -(2n ** 31n) && BigInt(p.categoryId) < 2n ** 31n, newPetBody(p)).toBe(true);
    expect(pets.map((p) => p.categoryId)).toContain(String(2n ** 31n - 1n));
    const reasons = fc.sample(invalidNewPet(changed), { seed: SEED, numRuns: 1500 }).map((c) => c.reason);
    expect(reasons).toContain('categoryId beyond int32 (2147483648)');
    // The petId parameter is still int64: its absent ids are unaffected.
    expect(
      fc.sample(absentPetId([], changed), { seed: SEED, numRuns: 500 }).some((c) => BigInt(c.digits!) > 2n ** 31n),
    ).toBe(true);
  });

  it('the auth scheme name comes from the security scheme', () => {
    const valid = authVariants(changed)
      .filter((v) => v.valid)
      .map((v) => v.template);
    expect(valid).toEqual(['Mac {key}', 'mac {key}', 'MAC {key}']);
  });

  it('a new required NewPet property: invalid bodies miss it, and validNewPet refuses rather than omit it', () => {
    const withColour = loadContract(
      edit(
        original,
        'required: [name, categoryId]\n      properties:\n        name',
        'required: [name, categoryId, colour]\n      properties:\n        colour: { type: string }\n        name',
      ),
    );
    const reasons = new Set(fc.sample(invalidNewPet(withColour), { seed: SEED, numRuns: 1500 }).map((c) => c.reason));
    expect(reasons.has('missing colour')).toBe(true);
    expect(reasons.has('colour of type number')).toBe(true);
    expect(() => validNewPet(withColour)).toThrow(/colour/);
  });
});
