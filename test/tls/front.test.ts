// What reverse proxies do to a staging: a path before /v1 (https://host/api/v1) and gzip on every JSON answer,
// errors and 429s included. The run passes through both, and a replay file finds its way back under the prefix.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { distinctiveKeys } from '../cli/support.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { runCli, startFront, userEnv, type Front } from './support.js';
import { tempDir } from '../support/temp-dir.js';

describe('a target behind a reverse proxy', () => {
  const keys = distinctiveKeys('front');
  let reference: ReferenceServer;
  let faulty: ReferenceServer;
  let prefixed: Front;
  let faultyPrefixed: Front;
  let gzip: Front;

  beforeAll(async () => {
    reference = await startReferenceServer({ keys });
    faulty = await startReferenceServer({ keys, faults: ['success-text-html'] });
    prefixed = await startFront(reference.url, { prefix: '/api' });
    faultyPrefixed = await startFront(faulty.url, { prefix: '/api' });
    gzip = await startFront(reference.url, { gzip: true });
  });
  afterAll(async () => {
    for (const s of [prefixed, faultyPrefixed, gzip, reference, faulty]) await s?.close();
  });

  test('a base URL with a path before /v1 works: every request keeps the prefix', async () => {
    expect(prefixed.url).toMatch(/\/api\/v1$/);
    const r = await runCli(
      ['run', '--target', prefixed.url, '--suite', 'listPets,getPet', '--runs', '10', '--seed', '3'],
      userEnv(keys),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(prefixed.seen.length).toBeGreaterThan(20);
    expect(prefixed.seen.filter((s) => !s.url.startsWith('/api/v1/pets'))).toEqual([]);
  });

  test('under a prefix, violations are found and their curl lines and replay files keep the prefix', async () => {
    const dir = tempDir('psc-prefix-');
    const r = await runCli(
      ['run', '--target', faultyPrefixed.url, '--suite', 'listPets', '--runs', '5', '--seed', '3', '--replay-dir', dir],
      userEnv(keys),
    );
    expect(r.status, r.stderr + r.stdout).toBe(1);
    expect(r.stdout).toMatch(/content-type-json/);
    expect(r.stdout).toContain(`curl -sS -i --compressed -X GET '${faultyPrefixed.url}/pets`);
    const files = readdirSync(dir).filter((f) => f.includes('content-type-json'));
    expect(files.length).toBeGreaterThan(0);
    const before = faultyPrefixed.seen.length;
    const replay = await runCli(['replay', join(dir, files[0]!)], userEnv(keys));
    expect(replay.stdout, replay.stderr).toMatch(/reproduced: content-type-json/);
    expect(replay.status).toBe(1);
    expect(faultyPrefixed.seen.length).toBe(before + 1);
    expect(faultyPrefixed.seen.at(-1)!.url.startsWith('/api/v1/pets')).toBe(true);
  });

  test('a target that gzips every answer (errors included) passes: bodies are judged decoded', async () => {
    const r = await runCli(
      ['run', '--target', gzip.url, '--suite', 'auth,createPet', '--runs', '10', '--seed', '4'],
      userEnv(keys),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(gzip.seen.every((s) => s.acceptEncoding === 'gzip')).toBe(true);
    expect(gzip.seen.some((s) => s.gzipped && s.status === 201)).toBe(true);
    expect(gzip.seen.some((s) => s.gzipped && s.status === 400)).toBe(true);
    expect(gzip.seen.some((s) => s.gzipped && s.status === 401)).toBe(true);
  });

  test('PETSTORE_ACCEPT_ENCODING=none: the run asks for no compression and gets none', async () => {
    const before = gzip.seen.length;
    const r = await runCli(
      ['run', '--target', gzip.url, '--suite', 'getPet', '--runs', '5', '--seed', '4'],
      userEnv(keys, { PETSTORE_ACCEPT_ENCODING: 'none' }),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const mine = gzip.seen.slice(before);
    expect(mine.length).toBeGreaterThan(5);
    expect(mine.filter((s) => s.acceptEncoding !== undefined || s.gzipped)).toEqual([]);
  });
});
