// One production policy for run and load: asked-for key-exhausting traffic is refused on production, defaults are
// left out, --allow-production lets both through, and any other target is never restricted.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { allowedOnTarget, isProduction } from '../../config/production.js';

const PROD = 'https://api.petstore.example/v1';
const config = (target: string, allow = false) =>
  loadConfig(
    { target, allowProduction: allow },
    { PETSTORE_PRODUCTION_URL: `${PROD}/`, PETSTORE_API_KEY_FREE: 'k-prod-policy' },
  );

describe('production policy', () => {
  it('knows production by its normalised URL', () => {
    expect(isProduction(config(PROD))).toBe(true);
    expect(isProduction(config('https://staging.petstore.example/v1'))).toBe(false);
  });

  it('refuses asked-for traffic on production, naming the variable and the override', () => {
    expect(() => allowedOnTarget(config(PROD), 'load', true)).toThrow(/PETSTORE_PRODUCTION_URL.*--allow-production/);
    try {
      allowedOnTarget(config(PROD), 'load', true);
    } catch (e) {
      expect((e as { code: string }).code).toBe('PSC_PRODUCTION_REFUSED');
    }
  });

  it('leaves default traffic out on production, and allows everything with --allow-production or elsewhere', () => {
    expect(allowedOnTarget(config(PROD), '--suite rate-limit', false)).toBe(false);
    expect(allowedOnTarget(config(PROD, true), 'load', true)).toBe(true);
    expect(allowedOnTarget(config('https://staging.petstore.example/v1'), 'load', true)).toBe(true);
  });
});
