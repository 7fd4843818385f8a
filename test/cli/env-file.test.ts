/** Keys given only through --env-file must reach the suites (the CLI forwards them to the vitest workers). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { captureOutput, distinctiveKeys, writeEnvFile } from './support.js';

describe('run --target URL --env-file FILE', () => {
  const keys = distinctiveKeys('envfile');
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
  });
  afterAll(async () => server?.close());

  it('runs the suites with the keys of the env file', async () => {
    for (const k of Object.keys(process.env)) expect(k.startsWith('PETSTORE_API_KEY_'), k).toBe(false);
    const envFile = writeEnvFile(join(mkdtempSync(join(tmpdir(), 'psc-envfile-')), '.env'), keys);
    const out = captureOutput();
    const code = await main(
      ['run', '--target', server.url, '--env-file', envFile, '--suite', 'getPet', '--runs', '5', '--seed', '3'],
      out,
    );
    expect(out.text()).not.toMatch(/no API key/);
    expect(code).toBe(0);
  }, 30_000);
});
