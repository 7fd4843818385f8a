// A run's exchanges are streamed to the HAR as the suites send them (issue 12, bounded memory): the HAR of a run of
// many batches is one valid document holding every exchange the report counts, and the report is the same with or
// without --har (nothing in it depends on the stream).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { BATCH_SIZE } from '../../suites/meta.js';
import { readHar } from '../support/artifacts.js';
import { distinctiveKeys, runForReport, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

describe('run --har streams every exchange', () => {
  const keys = distinctiveKeys('harstream');
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
  });
  afterAll(async () => server?.close());

  async function run(dir: string, extra: string[]): Promise<ConformanceReport> {
    const json = join(dir, `r${extra.length}.json`);
    const envFile = writeEnvFile(join(dir, '.env'), keys);
    const args = ['--suite', 'listPets,getPet', '--runs', '500', '--seed', '21', ...extra];
    const { code, out, report } = await runForReport(server.url, envFile, json, args);
    expect(code, out.text()).toBe(0);
    return report;
  }

  it('the HAR holds every exchange of every suite, and the report does not depend on it', async () => {
    const dir = tempDir('psc-harstream-');
    const har = join(dir, 'run.har');
    const withHar = await run(dir, ['--har', har]);
    const doc = readHar(har);
    expect(withHar.errors).toEqual([]);
    expect(withHar.totals.exchanges, 'several batches per suite').toBeGreaterThan(4 * BATCH_SIZE);
    expect(doc.log.entries).toHaveLength(withHar.totals.exchanges);
    expect(withHar.suites.reduce((n, s) => n + s.exchanges, 0)).toBe(withHar.totals.exchanges);
    expect(doc.log.comment).toMatch(/Requests:/);
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);

    const without = await run(dir, []);
    expect(readdirSync(dir).filter((f) => f.endsWith('.har') || f.includes('partial'))).toEqual(['run.har']);
    const stable = (r: ConformanceReport) => ({
      totals: r.totals,
      operations: r.operations,
      defects: r.defects,
      verdict: r.verdict,
      suites: r.suites.map((s) => [s.name, s.exchanges]),
    });
    expect(stable(without)).toEqual(stable(withHar));
  }, 180_000);
});
