/**
 * JSON with exact integers. JSON.parse rounds integers beyond 2^53 silently, so bodies are parsed with lossless-json:
 * every number that a JS number cannot hold exactly keeps its digits (LosslessNumber); short integers are numbers. `plain` makes the view ajv validates (numbers as JS numbers, which
 * keeps the JSON type right); digit-exact questions (int64 range, echo of categoryId, id round-trips) use the digits.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';

export { LosslessNumber, isLosslessNumber };

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Every number as a LosslessNumber, whatever its size (the reference server validates bodies on their digits). */
export function parseExact(text: string): unknown {
  return parse(text, null, (digitsText: string) => new LosslessNumber(digitsText));
}

/** Integers of at most 15 digits are exact as JS numbers; everything else keeps its digits. */
const SAFE_INTEGER = /^-?\d{1,15}$/;
/** Trees that hold no LosslessNumber: their plain view is themselves (most bodies, so validation walks nothing). */
const plainTrees = new WeakSet<object>();

/**
 * What a scan outside strings finds in a JSON text: how many key separators (':') it has, and whether every number is
 * an integer of at most 15 digits. -1 when a number is not (the lossless parser must keep its digits).
 */
function colonsIfSafeNumbers(text: string): number {
  let colons = 0;
  let digitsRun = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included: its content says nothing about the structure.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      digitsRun = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digitsRun > 15) return -1;
    } else {
      // A fraction or an exponent: not a safe integer.
      if (digitsRun > 0 && (c === 0x2e || c === 0x65 || c === 0x45)) return -1;
      digitsRun = 0;
      if (c === 0x3a) colons++;
    }
  }
  return colons;
}

/** Keys of every object in a tree that JSON.parse made. */
function countKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const v of value) n += countKeys(v);
    return n;
  }
  for (const k in value as Record<string, unknown>) n += 1 + countKeys((value as Record<string, unknown>)[k]);
  return n;
}

/**
 * The common case without the lossless parser: when every number is a safe integer, no key repeats (the lossless
 * parser refuses repeated keys, JSON.parse keeps the last) and no key is __proto__, JSON.parse builds the same tree.
 * Undefined when the lossless parser must decide.
 */
function parseFast(text: string): unknown {
  const colons = colonsIfSafeNumbers(text);
  if (colons < 0 || text.includes('__proto__')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // the lossless parser gives the error message
  }
  if (countKeys(value) !== colons) return undefined;
  if (value !== null && typeof value === 'object') plainTrees.add(value);
  return value;
}

export function parseLossless(text: string): unknown {
  const fast = parseFast(text);
  if (fast !== undefined) return fast;
  let lossless = false;
  const value = parse(text, null, (digitsText: string) => {
    if (SAFE_INTEGER.test(digitsText)) return Number(digitsText);
    lossless = true;
    return new LosslessNumber(digitsText);
  });
  if (!lossless && value !== null && typeof value === 'object') plainTrees.add(value);
  return value;
}

export function stringifyLossless(value: unknown): string {
  const s = stringify(value);
  if (s === undefined) throw new TypeError('value has no JSON form');
  return s;
}

/** The lossless tree as plain JS values, for schema validation. */
export function plain(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && plainTrees.has(value)) return value;
  if (isLosslessNumber(value)) return Number((value as LosslessNumber).value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** The exact digits of a JSON number (lossless or a safe JS number), or null when it is not a number. */
export function digits(value: unknown): string | null {
  if (isLosslessNumber(value)) return (value as LosslessNumber).value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return null;
}

/** The integer a JSON number denotes exactly, or null when it is not an integer (1.5, 1e400); 1.0 and 1e3 count. */
export function exactInteger(value: unknown): bigint | null {
  const d = digits(value);
  if (d === null) return null;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(d);
  if (!m) return null;
  const [, sign, int, frac = '', expText = '0'] = m;
  const exp = Number(expText);
  if (Math.abs(exp) > 400) return null;
  let mantissa = int! + frac;
  let scale = exp - frac.length;
  while (scale < 0 && mantissa.endsWith('0')) {
    mantissa = mantissa.slice(0, -1);
    scale++;
  }
  if (scale < 0) return null;
  const n = BigInt(mantissa) * 10n ** BigInt(scale);
  return sign ? -n : n;
}

export function isInt64(value: unknown): boolean {
  const n = exactInteger(value);
  return n !== null && n >= INT64_MIN && n <= INT64_MAX;
}
