/**
 * JSON with exact integers. JSON.parse rounds integers beyond 2^53 silently, so bodies are parsed with lossless-json:
 * every number that a JS number cannot hold exactly keeps its digits (LosslessNumber); short integers are numbers. `plain` makes the view ajv validates (numbers as JS numbers, which
 * keeps the JSON type right); digit-exact questions (int64 range, echo of categoryId, id round-trips) use the digits.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { Recent } from './recent.js';

export { LosslessNumber, isLosslessNumber };

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Every number as a LosslessNumber, whatever its size (the reference server validates bodies on their digits). */
export function parseExact(text: string): unknown {
  return parse(text, null, (digitsText: string) => new LosslessNumber(digitsText));
}

/** Integers of at most 15 digits are exact as JS numbers; everything else keeps its digits. */
const SAFE_INTEGER = /^-?\d{1,15}$/;
/**
 * The plain views of the trees the parser made last: the tree itself when it holds no LosslessNumber (most bodies, so
 * validation walks nothing), else JSON.parse's tree of the same text (numbers rounded as `plain` does). A tree is
 * validated right after it is parsed, so the latest few (lanes side by side interleave) serve nearly every lookup; an
 * older tree is walked instead.
 */
const plainViews = new Recent<object, unknown>(16);

function keepPlainView(tree: unknown, view: unknown): void {
  if (tree !== null && typeof tree === 'object') plainViews.remember(tree, view);
}

/**
 * What a scan outside strings finds in a JSON text: how many key separators (':') it has, how many numbers, and which
 * numbers are not integers of at most 15 digits (the ones the lossless tree keeps as digits), as triples of the
 * number's rank among all the text's numbers and its [start, end) in the text.
 */
function scan(text: string): { colons: number; numbers: number; unsafe: number[] } {
  let colons = 0;
  let numbers = 0;
  const unsafe: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included: its content says nothing about the structure. Its closing quote is the
      // next one not escaped (preceded by an even number of backslashes).
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return { colons: -1, numbers, unsafe };
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // A number: its whole token (digits, sign, fraction, exponent).
      const start = i;
      let digits = 0;
      let plainInteger = true;
      for (; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) digits++;
        else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || (d === 0x2d && i > start))
          plainInteger = false;
        else if (d !== 0x2d) break;
      }
      if (!plainInteger || digits > 15) unsafe.push(numbers, start, i);
      numbers++;
      i--;
    } else if (c === 0x3a) colons++;
  }
  return { colons, numbers, unsafe };
}

/** A digit run longer than a safe integer, or a digit before a fraction or an exponent (anywhere, strings included). */
const MAYBE_UNSAFE = /\d{16}|\d[.eE]/;

function colonsIn(text: string): number {
  let n = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) n++;
  return n;
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
 * The lossless tree of `view` (what JSON.parse made of `text`): the numbers the scan found unsafe, by rank, replaced by
 * LosslessNumbers of their digits. Values are visited in the text's order (arrays in order, an object's keys in
 * insertion order, which is the text's unless a key is an array index: then undefined). Subtrees without such a
 * number are shared with the view, which is never changed; containers on the way to one are copied.
 */
function withDigits(view: unknown, text: string, numbers: number, unsafe: readonly number[]): unknown {
  let rank = 0;
  let next = 0;
  let ordered = true;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'number') {
      const r = rank++;
      if (unsafe[next] !== r) return v;
      next += 3;
      return new LosslessNumber(text.slice(unsafe[next - 2], unsafe[next - 1]));
    }
    if (v === null || typeof v !== 'object' || !ordered) return v;
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const w = walk(v[i]);
        if (w === v[i]) continue;
        copy ??= v.slice();
        copy[i] = w;
      }
      return copy ?? v;
    }
    const o = v as Record<string, unknown>;
    let copy: Record<string, unknown> | null = null;
    let first = true;
    for (const k in o) {
      // Array-index keys come first whatever their place in the text: the order is no longer the text's.
      if (first && k.charCodeAt(0) >= 0x30 && k.charCodeAt(0) <= 0x39) ordered = false;
      first = false;
      if (!ordered) return v;
      const w = walk(o[k]);
      if (w === o[k]) continue;
      copy ??= { ...o };
      copy[k] = w;
    }
    return copy ?? v;
  };
  const tree = walk(view);
  return ordered && rank === numbers && next === unsafe.length ? tree : undefined;
}

/**
 * The lossless tree without the lossless parser, built from JSON.parse when it gives the same tree: no key repeats (the
 * lossless parser refuses repeated keys, JSON.parse keeps the last), no key is __proto__, and every number kept as
 * digits is put back, by its rank in the text, as a LosslessNumber. Undefined when the lossless parser must decide (and
 * give its error message).
 */
function parseFast(text: string): unknown {
  if (text.includes('__proto__')) return undefined;
  let view: unknown;
  try {
    view = JSON.parse(text);
  } catch {
    return undefined;
  }
  const keys = countKeys(view);
  // Most bodies, without scanning them: nothing that could be a number beyond 15 digits, a fraction or an exponent
  // (strings included), and as many ':' in the whole text as keys in the tree. Each key has its ':' outside strings,
  // so the counts are equal only when no key repeats and no string holds a ':'.
  if (!MAYBE_UNSAFE.test(text) && colonsIn(text) === keys) {
    keepPlainView(view, view);
    return view;
  }
  const { colons, numbers, unsafe } = scan(text);
  if (keys !== colons) return undefined;
  if (unsafe.length === 0) {
    keepPlainView(view, view);
    return view;
  }
  const tree = withDigits(view, text, numbers, unsafe);
  keepPlainView(tree, view);
  return tree;
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
  if (!lossless) keepPlainView(value, value);
  return value;
}

/** The tree as JSON text, every LosslessNumber with its digits; `space` indents as JSON.stringify's does. */
export function stringifyLossless(value: unknown, space?: number | string): string {
  const s = stringify(value, undefined, space);
  if (s === undefined) throw new TypeError('value has no JSON form');
  return s;
}

/** The lossless tree as plain JS values, for schema validation. */
export function plain(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? plainViews.get(value, walkPlain) : walkPlain(value);
}

function walkPlain(value: unknown): unknown {
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

const INTEGER_DIGITS = /^-?\d{1,400}$/;
/** At most 18 digits: below 10^18, within int64 whatever they are. */
const SHORT_INTEGER = /^-?\d{1,18}$/;

/** The integer a JSON number denotes exactly, or null when it is not an integer (1.5, 1e400); 1.0 and 1e3 count. */
export function exactInteger(value: unknown): bigint | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  const d = digits(value);
  if (d === null) return null;
  // Plain integer digits (every id a target sends), without taking the number apart.
  if (INTEGER_DIGITS.test(d)) return BigInt(d);
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
  // Safe integers (most ids), and integers of at most 18 digits, are within int64 without a BigInt.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return true;
  if (isLosslessNumber(value) && SHORT_INTEGER.test((value as LosslessNumber).value)) return true;
  const n = exactInteger(value);
  return n !== null && n >= INT64_MIN && n <= INT64_MAX;
}
