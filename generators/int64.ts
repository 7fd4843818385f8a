/** int64 values as exact digits: the whole signed 64-bit range, biased to where doubles and int64 parsers break. */
import type fc from 'fast-check';
import { beyondDigits, integerDigits, integerEdges } from './integer.js';
import { INT64_RANGE } from './schema.js';

/** 0, ±1, ±(2^53 − 1), ±2^53, ±(2^53 + 1), 2^63 − 1, −2^63. */
export const INT64_EDGES: readonly string[] = Object.freeze(integerEdges(INT64_RANGE).map(String));

export function int64Digits(): fc.Arbitrary<string> {
  return integerDigits(INT64_RANGE);
}

/** 2^63, −2^63 − 1, 2^64 − 1, 2^64, ±10^20 and random values outside int64. */
export function beyondInt64Digits(): fc.Arbitrary<string> {
  return beyondDigits(INT64_RANGE);
}
