/**
 * Integers as exact decimal digit strings. Digits, never JS numbers: a number beyond 2^53 cannot be held in one, and
 * the values that matter most (2^53 + 1, 2^63 − 1) are exactly the ones a double would round.
 */
import fc from 'fast-check';
import type { IntegerRange } from './schema.js';

const SAFE = 2n ** 53n;

/** The integers where implementations break, clipped to the range: its ends, 0, ±1 and the double-precision border. */
export function integerEdges(range: IntegerRange): readonly bigint[] {
  const candidates = [0n, 1n, -1n, SAFE - 1n, -(SAFE - 1n), SAFE, -SAFE, SAFE + 1n, -(SAFE + 1n), range.max, range.min];
  const inRange = candidates.filter((n) => n >= range.min && n <= range.max);
  return [...new Set(inRange)];
}

/** Exact digits of integers in the range, one third edges, one third near an edge, one third anywhere. */
export function integerDigits(range: IntegerRange): fc.Arbitrary<string> {
  const edges = integerEdges(range);
  const nearEdge = fc
    .tuple(fc.constantFrom(...edges), fc.integer({ min: -3, max: 3 }))
    .map(([edge, offset]) => edge + BigInt(offset))
    .filter((n) => n >= range.min && n <= range.max);
  return fc.oneof(fc.constantFrom(...edges), nearEdge, fc.bigInt(range.min, range.max)).map((n) => n.toString());
}

/** Exact digits of integers just and far outside the range: max + 1, min − 1, twice the span (wraps), 10^20. */
export function beyondEdges(range: IntegerRange): readonly bigint[] {
  const candidates = [
    range.max + 1n,
    range.min - 1n,
    range.max + 2n,
    range.min - 2n,
    // An unsigned reading of a signed type: 2 (max + 1) − 1 is uint64 max for int64, 2 (max + 1) wraps to 0.
    2n * (range.max + 1n) - 1n,
    2n * (range.max + 1n),
    10n ** 20n,
    -(10n ** 20n),
  ];
  const outside = candidates.filter((n) => n < range.min || n > range.max);
  return [...new Set(outside)];
}

export function beyondDigits(range: IntegerRange): fc.Arbitrary<string> {
  const span = range.max - range.min + 1n;
  const above = fc.bigInt(range.max + 1n, range.max + span * 2n ** 16n);
  const below = fc.bigInt(range.min - span * 2n ** 16n, range.min - 1n);
  return fc.oneof(fc.constantFrom(...beyondEdges(range)), above, below).map((n) => n.toString());
}

/**
 * JSON number texts that denote no integer. Includes fractions a double rounds to an integer (2^53 + 1.5), which a
 * server reading JSON into doubles would wrongly accept as integers.
 */
export function nonIntegerText(): fc.Arbitrary<string> {
  // Built once: arbitraries are immutable, and building this one (stringMatching parses its pattern) cost more than
  // the cases it generates when the invalid-body generators are built for every case.
  nonInteger ??= fc.oneof(
    fc.constantFrom('1.5', '0.1', '-2.5', '1e-1', '9007199254740993.5', '9223372036854775807.5'),
    fc
      .tuple(fc.bigInt(-(2n ** 64n), 2n ** 64n), fc.stringMatching(/^[0-9]{0,5}[1-9]$/))
      .map(([int, frac]) => `${int}.${frac}`),
  );
  return nonInteger;
}
let nonInteger: fc.Arbitrary<string> | undefined;

/**
 * JSON number texts that denote no integer but lie within a few units of double precision of one, still told apart
 * from it in a double (1.00000000000001 is 1 + 45 ulps): a validator that converts and then allows a tolerance, or
 * rounds before it checks, takes them for integers. Integer parts stay small, where a double's ulp is ~1e-15.
 */
export function nearIntegerText(): fc.Arbitrary<string> {
  return fc.constantFrom(
    '1.00000000000001',
    '7.00000000000001',
    '2.99999999999999',
    '-1.00000000000001',
    '5.0000000000001',
  );
}
