// The last gate before text leaves the process: every registered secret is replaced by its placeholder.
import { describe, expect, test } from 'vitest';
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
