/**
 * getPet path segments, derived from the petId parameter's schema (integer, int64): ids the store holds, int64 ids it
 * does not, and segments that are no int64 at all.
 */
import fc from 'fast-check';
import { contract as loaded, type Contract } from '../spec/contract.js';
import { type CaseFamily, caseRef, type CaseRef } from './case.js';
import { beyondDigits, integerEdges } from './integer.js';
import { integerRange, parameterOf, type IntegerRange } from './schema.js';

export interface PetIdCase {
  /** The URL path segment, percent-encoded. */
  readonly segment: string;
  readonly kind: 'existing' | 'absent' | 'non-numeric' | 'beyond-int64';
  /** Exact digits, when the segment is an integer. */
  readonly digits?: string;
}

function petIdRange(c: Contract): IntegerRange {
  return integerRange(parameterOf('getPet', 'petId', c).schema);
}

/** How far an absent id keeps from every id the target has shown. */
const NEIGHBOURHOOD = 2n ** 20n;

export function existingPetId(ids: readonly string[]): fc.Arbitrary<PetIdCase> {
  if (ids.length === 0) throw new Error('generators: existingPetId needs at least one id');
  return fc.constantFrom(...ids).map((d) => ({ segment: encodeURIComponent(d), kind: 'existing', digits: d }));
}

/**
 * In-range ids the store does not hold. Mostly large unbiased values (a store counting from 1 never reaches them),
 * plus the range's far edges and the double-precision border, where a server rounding ids would find a neighbour.
 * Each keeps clear of the given ids (those the target has shown) by NEIGHBOURHOOD: on a shared store, others' pets
 * have ids near the run's own.
 */
export function absentPetId(ids: readonly string[], c: Contract = loaded): fc.Arbitrary<PetIdCase> {
  const range = petIdRange(c);
  const shown = ids.map((d) => BigInt(d));
  const far = integerEdges(range).filter((n) => n > 2n ** 32n || n < -(2n ** 32n));
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.noBias(fc.bigInt(range.min, range.max)) },
      { weight: 1, arbitrary: fc.constantFrom(...far) },
    )
    .filter((n) => shown.every((s) => (n > s ? n - s : s - n) > NEIGHBOURHOOD))
    .map((n) => n.toString())
    .map((d) => ({ segment: encodeURIComponent(d), kind: 'absent', digits: d }));
}

/**
 * The coverage phase's absent ids: each far edge of the range (its ends, the double-precision border) once, clear of
 * the given ids as absentPetId keeps them.
 */
export function absentPetIdEdges(ids: readonly string[], c: Contract = loaded): PetIdCase[] {
  const shown = ids.map((d) => BigInt(d));
  return integerEdges(petIdRange(c))
    .filter((n) => n > 2n ** 32n || n < -(2n ** 32n))
    .filter((n) => shown.every((s) => (n > s ? n - s : s - n) > NEIGHBOURHOOD))
    .map((n) => ({ segment: encodeURIComponent(n.toString()), kind: 'absent', digits: n.toString() }));
}

/** The coverage phase's ids that are no int64: one non-numeric segment, and just beyond each end of the range. */
export function invalidPetIdEdges(c: Contract = loaded): PetIdCase[] {
  const { min, max } = petIdRange(c);
  return [
    { segment: encodeURIComponent(NON_NUMERIC[0]!), kind: 'non-numeric' },
    ...[max + 1n, min - 1n].map(
      (n): PetIdCase => ({
        segment: encodeURIComponent(n.toString()),
        kind: 'beyond-int64',
        digits: n.toString(),
      }),
    ),
  ];
}

/** Raw segment texts that are not an integer; encoded before use. */
const NON_NUMERIC = ['abc', '1.5', '1e3', ' ', '-', '+', '0x10', '1_000', '١٢', '🐶', 'null', '12abc', '%'];

export function invalidPetId(c: Contract = loaded): fc.Arbitrary<PetIdCase> {
  const nonNumeric = fc
    .oneof(
      fc.constantFrom(...NON_NUMERIC),
      // '.' and '..' are dot-segments: URL resolution would change the route rather than send them.
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
        .filter((s) => !/^[+-]?\d+$/.test(s.trim()) && !/^\.{1,2}$/.test(s)),
    )
    .map((s): PetIdCase => ({ segment: encodeURIComponent(s), kind: 'non-numeric' }));
  const beyond = beyondDigits(petIdRange(c)).map(
    (d): PetIdCase => ({ segment: encodeURIComponent(d), kind: 'beyond-int64', digits: d }),
  );
  return fc.oneof(nonNumeric, beyond);
}

/** The family of each kind of petId (generators/case.ts): an existing id is an ordinary request. */
export const PET_ID_FAMILIES: Readonly<Record<PetIdCase['kind'], CaseFamily>> = Object.freeze({
  existing: 'ordinary',
  absent: 'petId-absent',
  'non-numeric': 'petId-not-int64',
  'beyond-int64': 'petId-not-int64',
});

/** A petId as the case its findings carry, whichever phase drew it: printed `petId <kind>`. */
export function petIdCase(c: Pick<PetIdCase, 'kind'>): CaseRef {
  return caseRef(`petId ${c.kind}`, PET_ID_FAMILIES[c.kind], c.kind);
}
