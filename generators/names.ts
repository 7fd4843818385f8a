/**
 * Pet names. The spec puts no limit on a name (gap: length and character limits not shown), so any JSON string is a
 * valid name; some are edges a service may reasonably treat differently and are flagged so a check can tell
 * "rejected an ordinary name" (a failure) from "rejected an edge the spec leaves open" (an observation).
 * Lone surrogates are never generated: they have no UTF-8 encoding, so a body holding one is not valid JSON text.
 */
import fc from 'fast-check';

/** Our own threshold, not the spec's: beyond this many UTF-8 bytes a name is "long" (kept for the edge generator). */
export const LONG_NAME_BYTES = 256;

const encoder = new TextEncoder();

/** The longest name that counts as plain. */
export const PLAIN_NAME_MAX = 50;
const PLAIN = /^[A-Za-z0-9]+(?:[ '-][A-Za-z0-9]+)*$/;

/**
 * Whether the spec leaves the name's acceptance open. It shows no length or character limits (gap-2-name-limits), so
 * a service may refuse anything beyond plain names — ASCII letters and digits with inner single spaces, apostrophes
 * or hyphens, at most 50 characters — and that refusal is recorded, never failed. Whatever a service accepts, it must
 * still store exactly as sent (create-echo).
 */
export function isEdgeName(name: string): boolean {
  return !(name.length <= PLAIN_NAME_MAX && PLAIN.test(name));
}

/** A prefix that keeps a plain name plain: words of letters and digits, each separator followed by a word or ending it. */
const PLAIN_PREFIX = /^(?:[A-Za-z0-9]+(?:[ '-][A-Za-z0-9]+)*[ '-]?)?$/;
export const NAME_PREFIX_MAX = 20;

export function isPlainPrefix(prefix: string): boolean {
  return prefix.length <= NAME_PREFIX_MAX && PLAIN_PREFIX.test(prefix);
}

/**
 * Marks a plain name as the run's (--name-prefix), so that operators can find what a run left on a shared store. Edge
 * names are the case itself (empty, padded, long, unusual characters) and stay as they are; a plain name stays plain
 * (cut to PLAIN_NAME_MAX, never ending on a separator).
 */
export function prefixedName(prefix: string, name: string): string {
  if (prefix === '' || isEdgeName(name)) return name;
  const joined = PLAIN.test(prefix) ? `${prefix} ${name}` : prefix + name;
  const cut = joined.slice(0, PLAIN_NAME_MAX).replace(/[ '-]+$/, '');
  return isEdgeName(cut) ? name : cut;
}

/** Plain names: the ones no reading of the spec lets a service refuse. */
export function plainName(): fc.Arbitrary<string> {
  const word = fc.string({
    unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
    minLength: 1,
    maxLength: 10,
  });
  return fc
    .tuple(word, fc.array(fc.tuple(fc.constantFrom(' ', "'", '-'), word), { maxLength: 3 }))
    .map(([first, rest]) => first + rest.map(([sep, w]) => sep + w).join(''))
    .filter((n) => n.length <= PLAIN_NAME_MAX);
}

/** Names from many scripts: emoji (with ZWJ and skin tone), combining marks, right-to-left, astral, JSON-special. */
const CURATED = [
  'Rex',
  'Żółć',
  'Ñandú',
  '猫',
  'Кот',
  'مرحبا',
  'שלום עולם',
  'Rex مرحبا 猫',
  '🐶',
  '🐈‍⬛',
  '👩🏽‍🚀',
  '🏳️‍🌈',
  'e\u0301',
  'Z\u0351\u0364\u0308\u0324a\u036d\u0319lgo',
  '𝕏 𝒜',
  '\u202eevil',
  'a\u200db',
  'Rex\u2028Max',
  '"quoted" \\ back/slash',
  "O'Brien",
  '</script><b>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a name that looks like a template, on purpose
  '${name} %s {{x}}',
  '\ufffd',
];

/** Any Unicode scalar value: every code point but the surrogate halves. */
export function anyCodePoint(): fc.Arbitrary<number> {
  return fc.integer({ min: 0, max: 0x10ffff - 0x800 }).map((n) => (n >= 0xd800 ? n + 0x800 : n));
}

export function ordinaryName(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...CURATED),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }),
    // Any code point (no half surrogates): unassigned, private use, noncharacters, controls. Built from code points
    // rather than fc.string({ unit: 'binary' }), whose first use costs about a second of table building.
    fc.array(anyCodePoint(), { minLength: 1, maxLength: 16 }).map((cps) => String.fromCodePoint(...cps)),
  );
}

const EDGE = [
  '',
  ' ',
  '   ',
  '\t',
  ' Rex',
  'Rex ',
  '\u00a0Rex',
  'Rex\u3000',
  '\ufeffRex',
  'Rex\u0000',
  'Rex\nMax',
  '\u001b[31mRex',
  'Rex\u007f',
  'Rex\u0085',
];

export function edgeName(): fc.Arbitrary<string> {
  // Just past the threshold (small extra counts are favoured by fast-check's bias) up to a few kilobytes.
  const long = fc
    .tuple(fc.constantFrom('a', 'é', '猫', '🐶'), fc.integer({ min: 0, max: 2048 }))
    .map(([unit, extra]) => unit.repeat(Math.ceil((LONG_NAME_BYTES + 1) / encoder.encode(unit).length) + extra));
  const padded = fc
    .tuple(fc.constantFrom(' ', '\t', '\u00a0', '\n'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }))
    .map(([pad, s]) => `${pad}${s}${pad}`);
  return fc.oneof(fc.constantFrom(...EDGE), long, padded);
}

/**
 * One name of each class a store is known to mangle, for a coverage phase: plain (null: the caller's plain name), a
 * combining mark (normalisation), an astral emoji (stripped), padding (trimmed), a NUL (refused by some databases),
 * and a long one.
 */
export const COVERAGE_NAMES: readonly (string | null)[] = Object.freeze([
  null,
  'e\u0301',
  '🐶',
  ' Rex ',
  'Rex\u0000',
  'a'.repeat(LONG_NAME_BYTES + 1),
]);

/** Mostly ordinary names, one in five an edge. */
export function petName(): fc.Arbitrary<string> {
  // Plain names often, so that "a valid NewPet gets 201" is judged on many cases; the rest probe the gap.
  return fc.oneof(
    { weight: 3, arbitrary: plainName() },
    { weight: 3, arbitrary: ordinaryName() },
    { weight: 1, arbitrary: edgeName() },
  );
}
