// A second key of a plan (PETSTORE_API_KEY_<PLAN>=key1,key2): both are configured, for the rate-limit suite's isolation.
import { describe, expect, test } from 'vitest';
import { keyEnv, loadConfig } from '../../config/config.js';

const target = 'http://127.0.0.1:1/v1';

describe('a comma list of keys for one plan', () => {
  test('gives two keys of that plan, in order, and keyEnv writes them back as the same list', () => {
    const config = loadConfig({}, { PETSTORE_TARGET: target, PETSTORE_API_KEY_FREE: 'psk_a1,psk_a2' });
    expect(config.keys.map((k) => k.plan)).toEqual(['free', 'free']);
    expect(config.keys.map((k) => k.key.reveal())).toEqual(['psk_a1', 'psk_a2']);
    const env = keyEnv(config.keys.map((k) => ({ plan: k.plan, key: k.key.reveal(), limits: k.limits })));
    expect(env.PETSTORE_API_KEY_FREE).toBe('psk_a1,psk_a2');
  });

  test('an empty entry or a repeated key is a configuration error naming the variable', () => {
    expect(() => loadConfig({}, { PETSTORE_TARGET: target, PETSTORE_API_KEY_PRO: 'psk_a,' })).toThrow(
      /PETSTORE_API_KEY_PRO has an empty key in its comma list/,
    );
    expect(() => loadConfig({}, { PETSTORE_TARGET: target, PETSTORE_API_KEY_PRO: 'psk_a,psk_a' })).toThrow(
      /PETSTORE_API_KEY_PRO lists the same key twice/,
    );
  });
});
