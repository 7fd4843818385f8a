/**
 * Authorization header variants. The scheme name comes from the contract's http security scheme; RFC 9110 §11.1 makes
 * scheme names case-insensitive, so other casings are valid too. Templates hold {key} where the real key goes, so a
 * variant printed in a counterexample never shows the secret.
 */
import fc from 'fast-check';
import { contract as loaded, type Contract } from '../spec/contract.js';
import { type CaseFamily, caseRef, type CaseRef } from './case.js';

export interface AuthVariant {
  readonly name: string;
  /** The family of input it belongs to (generators/case.ts): what one cause in a target answers alike. */
  readonly family: CaseFamily;
  /** The Authorization header value with {key} where the real key goes; null = header absent. */
  readonly template: string | null;
  readonly valid: boolean;
  /**
   * A near miss of the key: {key} stands for the key changed this way (NEAR_MISSES), never for the key itself. A key
   * the change cannot apply to (no letter to swap or accent) gets no request of this variant.
   */
  readonly nearMiss?: NearMissKind;
  /** A second Authorization header sent after the first (a repeated field; it carries no key). */
  readonly repeated?: string;
  /**
   * HTTP lets a recipient refuse the request as malformed (400) before any key is looked at: a singleton field
   * repeated, or a byte outside ASCII in the value (obs-text, RFC 9110 §5.5), which some fronts refuse.
   */
  readonly malformed?: true;
}

export type NearMissKind = 'case' | 'accent' | 'trailing-space';

/** Letters and their Latin-1 accented form (one byte on the wire: header values are Latin-1). */
const ACCENTED: Readonly<Record<string, string>> = Object.freeze({
  a: 'á',
  e: 'é',
  i: 'í',
  o: 'ó',
  u: 'ú',
  c: 'ç',
  n: 'ñ',
  y: 'ý',
  A: 'Á',
  E: 'É',
  I: 'Í',
  O: 'Ó',
  U: 'Ú',
  C: 'Ç',
  N: 'Ñ',
});

/** The first letter of the key that has an accented form. */
const accentable = (key: string): string | undefined => [...key].find((c) => Object.hasOwn(ACCENTED, c));

/**
 * Near misses of a key, each a string a key table compared through a lenient collation (case-insensitive,
 * accent-insensitive, trailing spaces ignored) or a trimming lookup takes for the key. `derive` gives the changed key
 * (null: this key has nothing the change applies to); `shown` the placeholder that stands for it in recorded requests,
 * as a shell expression of the key's variable where one exists (bash), so that a curl line replays it.
 * The trailing space is a no-break space (U+00A0, a Latin-1 byte): an ASCII space or tab at the end of a header value
 * is optional whitespace that every HTTP parser strips (RFC 9110 §5.5), so it never reaches the key lookup, while a
 * lookup that trims whitespace (String.prototype.trim) or a collation that ignores it still drops this one.
 */
export const NEAR_MISSES: Readonly<
  Record<
    NearMissKind,
    { readonly derive: (key: string) => string | null; readonly shown: (variable: string, key: string) => string }
  >
> = Object.freeze({
  case: {
    derive: (key: string) => {
      const swapped = key.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
      return swapped === key ? null : swapped;
    },
    // bash's ~~ toggles the case of every letter.
    shown: (variable: string) => `\${${variable}~~}`,
  },
  accent: {
    derive: (key: string) => {
      const letter = accentable(key);
      return letter === undefined ? null : key.replace(letter, ACCENTED[letter]!);
    },
    // bash's ${VAR/e/é} accents the first e, as derive does: it names one letter of the key, never more.
    shown: (variable: string, key: string) => {
      const letter = accentable(key) ?? '';
      return `\${${variable}/${letter}/${ACCENTED[letter] ?? ''}}`;
    },
  },
  'trailing-space': {
    derive: (key: string) => `${key}\u00a0`,
    shown: (variable: string) => `\${${variable}}\u00a0`,
  },
});

/** The scheme of the http security scheme the document's global security requirement names, e.g. 'bearer'. */
export function authScheme(c: Contract = loaded): string {
  const doc = c.document as {
    security?: Record<string, unknown>[];
    components?: { securitySchemes?: Record<string, { type?: string; scheme?: unknown }> };
  };
  const required = Object.keys(doc.security?.[0] ?? {})[0];
  const scheme = required === undefined ? undefined : doc.components?.securitySchemes?.[required];
  if (scheme?.type !== 'http' || typeof scheme.scheme !== 'string') {
    throw new Error('generators: the contract names no http security scheme');
  }
  return scheme.scheme;
}

/** A token no key table holds. */
const UNKNOWN_KEY = 'not-a-real-key-petstore-conformance';

export function authVariants(c: Contract = loaded): readonly AuthVariant[] {
  const s = authScheme(c);
  // The canonical spelling (RFC 6750 writes "Bearer").
  const canonical = s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  const v = (name: string, family: CaseFamily, template: string | null, valid: boolean): AuthVariant =>
    Object.freeze({ name, family, template, valid });
  // A near miss is a wrong key: a key table that compares leniently takes it for the key.
  const near = (name: string, nearMiss: NearMissKind, nonAscii = false): AuthVariant =>
    Object.freeze({
      name,
      family: 'auth-wrong-key',
      template: `${canonical} {key}`,
      valid: false,
      nearMiss,
      ...(nonAscii && { malformed: true }),
    });
  const others = ['Basic', 'Token'].filter((o) => o.toLowerCase() !== s.toLowerCase());
  return Object.freeze([
    v('header missing', 'auth-missing-key', null, false),
    v('empty header', 'auth-missing-key', '', false),
    // "Bearer " with an empty token is not sent: its trailing space is optional whitespace, stripped by every HTTP
    // parser (RFC 9110 §5.5), so on the wire it is this request again.
    v(`${canonical} without token`, 'auth-missing-key', canonical, false),
    ...others.map((o) => v(`${o} scheme`, 'auth-other-scheme', `${o} {key}`, false)),
    v('unknown key', 'auth-wrong-key', `${canonical} ${UNKNOWN_KEY}`, false),
    v('altered key', 'auth-wrong-key', `${canonical} {key}x`, false),
    // Near misses of the key (a suffix is the altered key above): each must get 401 like any other invalid key.
    near('key in another case', 'case'),
    near('key with one letter accented', 'accent', true),
    near('key with a trailing no-break space', 'trailing-space', true),
    Object.freeze({
      name: 'two Authorization headers, the key first',
      family: 'auth-wrong-key',
      template: `${canonical} {key}`,
      valid: false,
      repeated: `${canonical} ${UNKNOWN_KEY}`,
      malformed: true,
    }),
    v('no scheme', 'auth-other-scheme', '{key}', false),
    v(`${canonical} {key}`, 'ordinary', `${canonical} {key}`, true),
    v('lower-case scheme', 'auth-scheme-case', `${s.toLowerCase()} {key}`, true),
    v('upper-case scheme', 'auth-scheme-case', `${s.toUpperCase()} {key}`, true),
  ]);
}

export const AUTH_VARIANTS: readonly AuthVariant[] = authVariants();

/** The header value for a key (its near miss for a near-miss variant), or null when the variant sends no header. */
export function authHeader(variant: AuthVariant, key: string): string | null {
  if (variant.template === null) return null;
  const used = variant.nearMiss === undefined ? key : NEAR_MISSES[variant.nearMiss].derive(key);
  return used === null ? null : variant.template.replaceAll('{key}', used);
}

export function invalidAuth(c: Contract = loaded): fc.Arbitrary<AuthVariant> {
  return fc.constantFrom(...authVariants(c).filter((a) => !a.valid));
}

export function validAuth(c: Contract = loaded): fc.Arbitrary<AuthVariant> {
  return fc.constantFrom(...authVariants(c).filter((a) => a.valid));
}

/** A variant as the case its findings carry: printed `auth: <name>`. */
export function authCase(variant: Pick<AuthVariant, 'name' | 'family'>): CaseRef {
  return caseRef(`auth: ${variant.name}`, variant.family, variant.name);
}

/** A token named after a prototype property (generators/robustness.ts PROTOTYPE_KEYS), as an auth variant's case. */
export function prototypeKeyCase(token: string): CaseRef {
  return authCase({ name: `a key named ${token}`, family: 'auth-prototype-key' });
}
