/** Keys given only through --env-file must reach the suites (the CLI forwards them to the vitest workers). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { distinctiveKeys, runAgainst, tempEnvFile } from './support.js';

describe('run --target URL --env-file FILE', () => {
  const keys = distinctiveKeys('envfile');
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
  });
  afterAll(async () => server?.close());

  it('runs the suites with the keys of the env file', async () => {
    for (const k of Object.keys(process.env)) expect(k.startsWith('PETSTORE_API_KEY_'), k).toBe(false);
    const envFile = tempEnvFile('psc-envfile-', keys);
    const { code, out } = await runAgainst(server.url, envFile, ['--suite', 'getPet', '--runs', '5', '--seed', '3']);
    expect(out.text()).not.toMatch(/no API key/);
    expect(code).toBe(0);
  }, 30_000);
});
