import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../errors/catalogue.js';
import { ApiKey, registerSecret } from '../../http/redact.js';
import { buildReport } from '../../reports/build-report.js';
import { appendHistory, readHistory } from '../../reports/history.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import { renderSummary } from '../../reports/summary.js';
import { DEFAULT_THRESHOLDS } from '../../reports/thresholds.js';
import { assertNoSecrets, utcStamp, writeReportFiles, writeRunReport } from '../../reports/write-report.js';
import type { LoadReport } from '../../reports/model.js';
import { readJson } from '../support/artifacts.js';
import { mixScenario, syntheticRun } from './fixtures.js';
import { tempDir } from '../support/temp-dir.js';

describe('report.json schema and writing', () => {
  it('a built report matches the schema; broken ones do not', () => {
    const report = buildReport(syntheticRun(), DEFAULT_THRESHOLDS, []);
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(reportSchemaErrors({ ...report, schemaVersion: 2 })).not.toEqual([]);
    const { verdict: _v, ...noVerdict } = report;
    expect(reportSchemaErrors(noVerdict).join()).toMatch(/verdict/);
    expect(
      reportSchemaErrors({ ...report, scenarios: [{ ...report.scenarios[0], latency: { '2XX': {} } }] }),
    ).not.toEqual([]);
  });

  it('refuses to write a report that would contain a registered key, and writes nothing', async () => {
    const secret = `psk_test_${'f'.repeat(32)}`;
    registerSecret(new ApiKey(secret, 'free'));
    expect(() => assertNoSecrets({ 'a.txt': `Bearer ${secret}` })).toThrow(HarnessError);
    const run = syntheticRun([mixScenario('mix', [[1, 10]], { title: `oops ${secret}` })]);
    const dir = join(tempDir('psc-leak-'), 'r');
    await expect(writeReportFiles(buildReport(run, DEFAULT_THRESHOLDS, []), dir)).rejects.toMatchObject({
      code: 'PSC_SECRET_LEAK',
    });
    expect(existsSync(dir)).toBe(false);
  });

  it('writes a timestamped directory and appends the history; the next run is compared with it', async () => {
    const out = tempDir('psc-hist-');
    const t = new Date('2030-01-01T02:00:00Z');
    const first = await writeRunReport(syntheticRun(), out, DEFAULT_THRESHOLDS, t);
    expect(first.dir).toBe(join(out, '2030-01-01T02-00-00Z'));
    for (const f of ['report.json', 'report.html', 'summary.md']) expect(existsSync(join(first.dir, f))).toBe(true);
    const second = await writeRunReport(syntheticRun(), out, DEFAULT_THRESHOLDS, t);
    expect(second.dir).toBe(join(out, '2030-01-01T02-00-00Z-2'));
    expect(second.report.trend).toHaveLength(1);
    expect(readHistory(out).map((h) => h.dir)).toEqual(['2030-01-01T02-00-00Z', '2030-01-01T02-00-00Z-2']);
    expect(readJson<LoadReport>(join(second.dir, 'report.json')).trend[0]!.dir).toBe('2030-01-01T02-00-00Z');
  });

  it('history is bounded', () => {
    const out = tempDir('psc-hist-b-');
    const entry = {
      createdAt: '2030-01-01T00:00:00.000Z',
      dir: 'x',
      profile: 'smoke',
      target: 'embedded',
      pass: true,
      figures: buildReport(syntheticRun(), DEFAULT_THRESHOLDS, []).figures,
    };
    for (let i = 0; i < 405; i++) appendHistory(out, { ...entry, dir: `d${i}` });
    const h = readHistory(out);
    expect(h).toHaveLength(400);
    expect(h[0]!.dir).toBe('d5');
  });

  it('the summary states the verdict and why it failed', () => {
    const report = buildReport(
      syntheticRun(),
      { ...DEFAULT_THRESHOLDS, p99LatencyMs: { max: 0.5, maxRatioToMedian: 1.5 } },
      [],
    );
    const md = renderSummary(report);
    expect(md).toMatch(/^## Load smoke: FAIL/);
    expect(md).toMatch(/- p99 latency \(ms\): \d+(\.\d+)? is not <= 0.5 \(absolute\)/);
    expect(utcStamp(new Date('2030-01-01T02:03:04.567Z'))).toBe('2030-01-01T02-03-04Z');
  });
});
