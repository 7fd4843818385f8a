// The last gate before text leaves the process: every registered secret is replaced by its placeholder.
import { describe, expect, test } from 'vitest';
import { refOf } from '../../checks/check.js';
import type { Exchange } from '../../http/exchange.js';
import { ApiKey, registerSecret, scrub } from '../../http/redact.js';

describe('scrub', () => {
  test('replaces every known secret, whether the secrets share a prefix or not, and one registered later', () => {
    registerSecret(new ApiKey('tok_shared_aaaaaaaaaaaaaaaa', 'free'));
    registerSecret(new ApiKey('tok_shared_bbbbbbbbbbbbbbbb', 'pro'));
    const text = '{"message":"bad key tok_shared_bbbbbbbbbbbbbbbb, try tok_shared_aaaaaaaaaaaaaaaa"}';
    expect(scrub(text)).toBe('{"message":"bad key $PETSTORE_API_KEY_PRO, try $PETSTORE_API_KEY_FREE"}');
    // Text without any secret, and text shorter than every secret, come back as they are.
    expect(scrub('{"message":"tok_shared_ but no key"}')).toBe('{"message":"tok_shared_ but no key"}');
    expect(scrub('60')).toBe('60');
    // A secret with nothing in common with the others, registered after the first scrub, is scrubbed too.
    registerSecret(new ApiKey('zz9-plural-z-alpha-0123', 'business'));
    expect(scrub('x zz9-plural-z-alpha-0123 tok_shared_aaaaaaaaaaaaaaaa')).toBe(
      'x $PETSTORE_API_KEY_BUSINESS $PETSTORE_API_KEY_FREE',
    );
  });
});

describe('the response a finding keeps', () => {
  test('holds no key a target echoed back, in a header or in its body', () => {
    const key = 'tok_echo_cccccccccccccccccccc';
    registerSecret(new ApiKey(key, 'enterprise'));
    const ex: Exchange = {
      seq: 1,
      operation: 'listPets',
      keyPlan: 'enterprise',
      request: { method: 'GET', url: 'http://127.0.0.1:9/v1/pets', path: '/pets', headers: {}, body: null },
      response: {
        status: 500,
        headers: { 'x-echo': `Bearer ${key}`, 'set-cookie': [`k=${key}`, 'b=1'] },
        body: new TextEncoder().encode(`{"message":"bad ${key}"}`),
        bodyText: `{"message":"bad ${key}"}`,
        truncated: false,
        json: null,
        jsonError: null,
      },
      error: null,
      startedAt: 0,
      durationMs: 1,
    };
    const kept = JSON.stringify(refOf(ex).response);
    expect(kept).not.toContain(key);
    expect(kept).toContain('Bearer $PETSTORE_API_KEY_ENTERPRISE');
    expect(kept).toContain('k=$PETSTORE_API_KEY_ENTERPRISE');
    expect(kept).toContain('bad $PETSTORE_API_KEY_ENTERPRISE');
  });
});
