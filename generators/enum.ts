/** Members and non-members of a string enum, from the enum itself so a new value in the YAML is generated at once. */
import fc from 'fast-check';

export function enumMember(values: readonly string[]): fc.Arbitrary<string> {
  if (values.length === 0) throw new Error('generators: empty enum');
  return fc.constantFrom(...values);
}

/**
 * Strings outside the enum, led by near misses a lax server might accept: another case, padding, a plural, the
 * empty string, plus unrelated words and random text.
 */
export function notEnumMember(values: readonly string[]): fc.Arbitrary<string> {
  const members = new Set(values);
  const nearMisses = values.flatMap((v) => [
    v.toUpperCase(),
    v.charAt(0).toUpperCase() + v.slice(1),
    ` ${v}`,
    `${v} `,
    `${v}s`,
  ]);
  const candidates = [...new Set([...nearMisses, '', 'lost', 'unknown', 'null'])].filter((v) => !members.has(v));
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constantFrom(...candidates) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    )
    .filter((v) => !members.has(v));
}
