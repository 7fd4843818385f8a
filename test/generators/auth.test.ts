import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AUTH_VARIANTS, authHeader, invalidAuth, KEY_FORMS, NEAR_MISSES, validAuth } from '../../generators/auth.js';
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
    for (const t of [null, '', 'Bearer', 'Basic {key}', 'Token {key}', 'Bearer {key}x', '{key}'])
      expect(templates).toContain(t);
    // "Bearer " is "Bearer" on the wire: its trailing space is optional whitespace (RFC 9110 §5.5).
    expect(templates).not.toContain('Bearer ');
    expect(templates.some((t) => t?.startsWith('Bearer not-a-real-key-'))).toBe(true);
    expect(new Set(AUTH_VARIANTS.map((v) => v.name)).size).toBe(AUTH_VARIANTS.length);
  });

  it('authHeader puts the key in place and the arbitraries keep to their side', () => {
    const bearer = AUTH_VARIANTS.find((v) => v.template === 'Bearer {key}' && v.valid)!;
    expect(authHeader(bearer, 'k1')).toBe('Bearer k1');
    expect(authHeader(AUTH_VARIANTS.find((v) => v.template === null)!, 'k1')).toBeNull();
    const invalid = fc.sample(invalidAuth(), { seed: 5, numRuns: 200 });
    expect(invalid.every((v) => !v.valid)).toBe(true);
    expect(new Set(invalid).size).toBe(AUTH_VARIANTS.filter((v) => !v.valid).length);
    expect(fc.sample(validAuth(), { seed: 5, numRuns: 50 }).every((v) => v.valid)).toBe(true);
  });

  it('near misses of the key: another case, one letter accented, a trailing no-break space, a second header', () => {
    const near = AUTH_VARIANTS.filter((v) => v.nearMiss !== undefined || v.repeated !== undefined);
    expect(near.map((v) => v.name)).toEqual([
      'key in another case',
      'key with one letter accented',
      'key with a trailing no-break space',
      'two Authorization headers, the key first',
    ]);
    // A 400 refuses them too where HTTP allows it: a byte outside ASCII, a repeated singleton field.
    expect(near.filter((v) => v.malformed).map((v) => v.name)).toEqual([
      'key with one letter accented',
      'key with a trailing no-break space',
      'two Authorization headers, the key first',
    ]);
    for (const v of near) {
      expect(v.valid).toBe(false);
      // The case class never holds the key: only its template's placeholder.
      expect(v.name).not.toContain('{key}');
    }
    const key = 'psk_free_0a1b2c';
    const header = (name: string) => authHeader(near.find((v) => v.name === name)!, key);
    expect(header('key in another case')).toBe('Bearer PSK_FREE_0A1B2C');
    expect(header('key with one letter accented')).toBe('Bearer psk_fr\u00e9e_0a1b2c');
    expect(header('key with a trailing no-break space')).toBe(`Bearer ${key}\u00a0`);
    // The second header carries no key; the first is the key itself.
    expect(header('two Authorization headers, the key first')).toBe(`Bearer ${key}`);
    expect(near.find((v) => v.repeated !== undefined)!.repeated).not.toContain('{key}');
  });

  it('a near miss the key has nothing for is not derived; its placeholder is a shell expression of the variable', () => {
    expect(NEAR_MISSES.case.derive('0123-4567')).toBeNull();
    expect(NEAR_MISSES.accent.derive('xyz-123')).toBe('xýz-123');
    expect(NEAR_MISSES.accent.derive('0123-4567')).toBeNull();
    expect(NEAR_MISSES.case.shown('PETSTORE_API_KEY_FREE', 'k')).toBe(`\${PETSTORE_API_KEY_FREE~~}`);
    expect(NEAR_MISSES.accent.shown('PETSTORE_API_KEY_FREE', 'psk_free')).toBe(`\${PETSTORE_API_KEY_FREE/e/é}`);
    // Every Latin-1 letter: one byte on the wire, as header values are sent.
    for (const k of ['abc', 'ENV', 'qwerty', 'CUT'])
      expect(/^[\x00-\xff]*$/.test(NEAR_MISSES.accent.derive(k)!)).toBe(true);
  });
});

describe('KEY_FORMS: other ways of writing the valid key (the rate-limit suite measures those a target accepts)', () => {
  it('each carries the key itself, none is the plain Bearer form alone, and the RFC-valid ones are marked valid', () => {
    for (const f of KEY_FORMS) {
      expect(f.nearMiss, f.name).toBeUndefined();
      expect(authHeader(f, 'K1'), f.name).toMatch(/(^|[\s"])K1"?$/);
      expect(f.template === 'Bearer {key}' && f.repeated === undefined, f.name).toBe(false);
    }
    expect(KEY_FORMS.filter((f) => f.valid).map((f) => f.name)).toEqual([
      'lower-case scheme',
      'upper-case scheme',
      'two spaces after the scheme',
    ]);
    expect(KEY_FORMS.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'Token scheme',
        'no scheme',
        'two Authorization headers, the key first',
        'a tab after the scheme',
        'the key in quotes',
      ]),
    );
  });
});
