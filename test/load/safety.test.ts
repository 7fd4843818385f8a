import { describe, expect, it } from 'vitest';
import { loadCommand } from '../../cli/load-command.js';

function io(env: Record<string, string>) {
  const err: string[] = [];
  return { io: { env, stderr: { write: (t: string) => err.push(t), isTTY: false }, stdout: { write: () => {} } }, err };
}

describe('load safety and usage', () => {
  it('refuses the production URL with exit 2 and the reason, unless --allow-production', async () => {
    const env = {
      PETSTORE_TARGET: 'https://api.petstore.example/v1',
      PETSTORE_PRODUCTION_URL: 'https://API.petstore.example/v1/',
      PETSTORE_API_KEY_FREE: 'k-secret-1',
    };
    const a = io(env);
    expect(await loadCommand([], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(
      /^petstore-conformance: .*PETSTORE_PRODUCTION_URL.*--allow-production.*\[PSC_PRODUCTION_REFUSED\]$/m,
    );
    expect(a.err.join('')).not.toContain('k-secret-1');
    const b = io({ ...env, PETSTORE_TARGET: '' });
    expect(await loadCommand(['--target', 'https://api.petstore.example/v1'], b.io)).toBe(2);
    expect(b.err.join('')).toMatch(/PSC_PRODUCTION_REFUSED/);
  });

  it('in CI the embedded server is asked for: no target exits 2 naming --target and --embedded', async () => {
    const a = io({ CI: 'true' });
    expect(await loadCommand([], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/no target: in CI .*--target URL .*--embedded .*\[PSC_CONFIG\]/);
    // With --embedded the configuration is accepted: the next mistake (the thresholds file) is the one named.
    const b = io({ CI: 'true' });
    expect(await loadCommand(['--embedded', '--thresholds', '/nonexistent/t.json'], b.io)).toBe(2);
    expect(b.err.join('')).toMatch(/thresholds file not found/);
    // A target and --embedded contradict each other; an empty PETSTORE_TARGET is refused, never embedded.
    const c = io({ CI: 'true', PETSTORE_TARGET: 'http://127.0.0.1:9/v1', PETSTORE_API_KEY_FREE: 'k-1' });
    expect(await loadCommand(['--embedded'], c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/--embedded and PETSTORE_TARGET contradict each other/);
    const d = io({ PETSTORE_TARGET: '' });
    expect(await loadCommand([], d.io)).toBe(2);
    expect(d.err.join('')).toMatch(/PETSTORE_TARGET is set but empty/);
  });

  it('rejects unknown profiles, flags and bad thresholds files with exit 2', async () => {
    const a = io({});
    expect(await loadCommand(['--profile', 'weekly'], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/unknown profile "weekly"/);
    expect(await loadCommand(['--frobnicate'], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/usage: petstore-conformance load/);
    expect(await loadCommand(['--thresholds', '/nonexistent/t.json'], a.io)).toBe(2);
    expect(a.err.join('')).toMatch(/thresholds file not found/);
  });
});
