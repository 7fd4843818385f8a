// The CLI's seams: configuration reaches the workers by vitest's provide/inject (never through process.env), results
// and exchanges come back through a reporter, and the HAR is written by the CLI alone (suites write no files).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { readHar } from '../support/artifacts.js';
import { distinctiveKeys, runForReport, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

describe('run: provide in, reporter out', () => {
  const keys = distinctiveKeys('seams');
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
  });
  afterAll(async () => server?.close());

  it('hands every exchange to one HAR, leaves process.env as it was and writes nothing else', async () => {
    const dir = tempDir('psc-seams-');
    const envFile = writeEnvFile(join(dir, '.env'), keys);
    const har = join(dir, 'out', 'x.har');
    const json = join(dir, 'r.json');
    const envBefore = { ...process.env };
    const { code, out, report } = await runForReport(server.url, envFile, json, [
      '--suite',
      'getPet,createPet',
      '--runs',
      '5',
      '--seed',
      '4',
      '--har',
      har,
    ]);
    expect(code, out.text()).toBe(0);
    expect(process.env).toEqual(envBefore);
    // The preflight's answer is judged too, and in the HAR with every other exchange.
    expect(report.suites.map((s) => s.name).sort()).toEqual(['createPet', 'getPet', 'preflight']);
    const text = readFileSync(har, 'utf8');
    const entries = readHar(har).log.entries;
    expect(entries.length).toBe(report.totals.exchanges);
    expect(entries.every((e) => e.request.url.startsWith(server.url))).toBe(true);
    for (const k of keys) expect(text).not.toContain(k.key);
    expect(text).toContain('$PETSTORE_API_KEY_');
    // Only what was asked for: no part files, nothing beside the HAR.
    expect(readdirSync(join(dir, 'out'))).toEqual(['x.har']);
    // --json r.json writes its HTML page beside it (r.html), and nothing more.
    expect(readdirSync(dir).sort()).toEqual(['.env', 'out', 'r.html', 'r.json']);
    expect(out.text()).toMatch(new RegExp(`HAR: ${entries.length} exchanges`));
  }, 60_000);
});
