import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTH_VARIANTS, authHeader, invalidAuth, validAuth } from '../../generators/auth.js';
import { contract } from '../../spec/contract.js';

describe('auth variants', () => {
  const scheme = (contract.document as { components: { securitySchemes: { bearerAuth: { scheme: string } } } })
    .components.securitySchemes.bearerAuth.scheme;

  it('valid variants are the contract scheme in any case followed by exactly the key', () => {
    const valid = AUTH_VARIANTS.filter((v) => v.valid).map((v) => v.template);
    expect(valid).toEqual(['Bearer {key}', 'bearer {key}', 'BEARER {key}']);
    for (const t of valid) expect(t!.split(' ')[0]!.toLowerCase()).toBe(scheme.toLowerCase());
  });

  it('invalid variants cover the documented ways to get it wrong, with unique names', () => {
    const templates = AUTH_VARIANTS.filter((v) => !v.valid).map((v) => v.template);
    for (const t of [null, '', 'Bearer', 'Bearer ', 'Basic {key}', 'Token {key}', 'Bearer {key}x', '{key}'])
      expect(templates).toContain(t);
    expect(templates.some((t) => t?.startsWith('Bearer not-a-real-key-'))).toBe(true);
    expect(new Set(AUTH_VARIANTS.map((v) => v.name)).size).toBe(AUTH_VARIANTS.length);
  });

  it('authHeader puts the key in place and the arbitraries keep to their side', () => {
    const bearer = AUTH_VARIANTS.find((v) => v.template === 'Bearer {key}')!;
    expect(authHeader(bearer, 'k1')).toBe('Bearer k1');
    expect(authHeader(AUTH_VARIANTS.find((v) => v.template === null)!, 'k1')).toBeNull();
    const invalid = fc.sample(invalidAuth(), { seed: 5, numRuns: 200 });
    expect(invalid.every((v) => !v.valid)).toBe(true);
    expect(new Set(invalid).size).toBe(AUTH_VARIANTS.filter((v) => !v.valid).length);
    expect(fc.sample(validAuth(), { seed: 5, numRuns: 50 }).every((v) => v.valid)).toBe(true);
  });
});
