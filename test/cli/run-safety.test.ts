// Two promises of `run`: the quota suite never spends a production key's day by accident, and --strict turns
// should-level warnings into failures (without it they are reported and the run passes).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { readJson } from '../support/artifacts.js';
import { closedPort, runAgainst, runForReport, runMain, tempEnvFile, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

test('--suite quota refuses the production URL (exit 2, naming PETSTORE_PRODUCTION_URL) before sending anything', async () => {
  const port = await closedPort();
  const url = `http://127.0.0.1:${port}/v1`;
  const server = await startReferenceServer();
  try {
    const envFile = tempEnvFile('psc-prod-', server.keys, { PETSTORE_PRODUCTION_URL: url });
    const { code, out } = await runAgainst(url, envFile, ['--suite', 'quota']);
    expect(code).toBe(2);
    expect(out.text()).toMatch(/PETSTORE_PRODUCTION_URL/);
    expect(out.text()).toMatch(/--allow-production/);
  } finally {
    await server.close();
  }
});

test('a default run against the production URL leaves the rate-limit suite out and says so', async () => {
  const server = await startReferenceServer({ windowSeconds: 5 });
  try {
    const envFile = tempEnvFile('psc-prod2-', server.keys, { PETSTORE_PRODUCTION_URL: server.url });
    const json = join(tempDir('psc-prod3-'), 'r.json');
    const { code, out, report } = await runForReport(server.url, envFile, json, ['--runs', '5', '--seed', '1']);
    expect(code, out.text()).toBe(0);
    expect(out.text()).toMatch(/rate-limit suite was left out/);
    expect(report.suites.map((s) => s.name)).not.toContain('rate-limit');
    const refused = await runAgainst(server.url, envFile, ['--suite', 'rate-limit']);
    expect(refused.code).toBe(2);
  } finally {
    await server.close();
  }
}, 60_000);

describe('--strict', () => {
  let server: ReferenceServer;
  let envFile: string;
  beforeAll(async () => {
    server = await startReferenceServer({ faults: ['auth-no-www-authenticate'], windowSeconds: 5 });
    envFile = tempEnvFile('psc-strict-', server.keys);
  });
  afterAll(() => server.close());
  const AUTH_RUN = ['--suite', 'auth', '--runs', '10', '--seed', '1'];

  test('a should-level finding is a warning: reported, and the run passes', async () => {
    const { code, out } = await runAgainst(server.url, envFile, AUTH_RUN);
    expect(code, out.text()).toBe(0);
    expect(out.text()).toMatch(/Warnings: 1 warning defect \(\d+ signatures?\) in \d+ exchanges/);
    expect(out.text()).toMatch(/www-authenticate/);
  }, 60_000);

  test('with --strict the same finding fails the run', async () => {
    const { code, out } = await runAgainst(server.url, envFile, [...AUTH_RUN, '--strict']);
    expect(code, out.text()).toBe(1);
    expect(out.text()).toMatch(/failing: --strict/);
  }, 60_000);
});

test('PETSTORE_RATE_WINDOW_SECONDS sets the embedded server window (the rate-limit suite reports it)', async () => {
  const dir = tempDir('psc-window-');
  const envFile = writeEnvFile(join(dir, '.env'), [], { PETSTORE_RATE_WINDOW_SECONDS: '3' });
  const json = join(dir, 'r.json');
  const { code } = await runMain([
    'run',
    '--embedded',
    '--env-file',
    envFile,
    '--suite',
    'rate-limit',
    '--seed',
    '1',
    '--json',
    json,
  ]);
  expect(code).toBe(0);
  const report = readJson<{ rateLimits: { plan: string; windowSeconds: number }[] }>(json);
  expect(report.rateLimits.filter((r) => r.plan === 'free').map((r) => r.windowSeconds)).toEqual([3]);
}, 60_000);
