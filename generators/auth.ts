/**
 * Authorization header variants. The scheme name comes from the contract's http security scheme; RFC 9110 §11.1 makes
 * scheme names case-insensitive, so other casings are valid too. Templates hold {key} where the real key goes, so a
 * variant printed in a counterexample never shows the secret.
 */
import fc from 'fast-check';
import { contract as loaded, type Contract } from '../spec/contract.js';

export interface AuthVariant {
  readonly name: string;
  /** The Authorization header value with {key} where the real key goes; null = header absent. */
  readonly template: string | null;
  readonly valid: boolean;
}

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

export function authVariants(c: Contract = loaded): readonly AuthVariant[] {
  const s = authScheme(c);
  // The canonical spelling (RFC 6750 writes "Bearer").
  const canonical = s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  const v = (name: string, template: string | null, valid: boolean): AuthVariant =>
    Object.freeze({ name, template, valid });
  const others = ['Basic', 'Token'].filter((o) => o.toLowerCase() !== s.toLowerCase());
  return Object.freeze([
    v('header missing', null, false),
    v('empty header', '', false),
    v(`${canonical} without token`, canonical, false),
    v(`${canonical} with empty token`, `${canonical} `, false),
    ...others.map((o) => v(`${o} scheme`, `${o} {key}`, false)),
    v('unknown key', `${canonical} not-a-real-key-petstore-conformance`, false),
    v('altered key', `${canonical} {key}x`, false),
    v('no scheme', '{key}', false),
    v(`${canonical} {key}`, `${canonical} {key}`, true),
    v('lower-case scheme', `${s.toLowerCase()} {key}`, true),
    v('upper-case scheme', `${s.toUpperCase()} {key}`, true),
  ]);
}

export const AUTH_VARIANTS: readonly AuthVariant[] = authVariants();

/** The header value for a key, or null when the variant sends no header. */
export function authHeader(variant: AuthVariant, key: string): string | null {
  return variant.template === null ? null : variant.template.replaceAll('{key}', key);
}

export function invalidAuth(c: Contract = loaded): fc.Arbitrary<AuthVariant> {
  return fc.constantFrom(...authVariants(c).filter((a) => !a.valid));
}

export function validAuth(c: Contract = loaded): fc.Arbitrary<AuthVariant> {
  return fc.constantFrom(...authVariants(c).filter((a) => a.valid));
}
