/**
 * The smoke profile end to end against the embedded reference server: files written, valid against the schema, no
 * key in any of them, and a failed threshold turns into exit 1 with the reason in the summary.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommand } from '../../cli/load-command.js';
import { PROFILES } from '../../load/profiles.js';
import { knownSecrets } from '../../http/redact.js';
import { readHistory } from '../../reports/history.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import { tempDir } from '../support/temp-dir.js';

describe('load --profile smoke', () => {
  it('writes a valid, key-free report; a failed threshold exits 1 with the reason', async () => {
    const out = tempDir('psc-smoke-');
    const thresholds = join(out, 'thresholds.json');
    // Only p99 is made impossible: every other threshold must hold against the conformant reference server, but for
    // throughput, which is the machine's (a busy one reaches less): its floor is 0 here. How thresholds judge
    // throughput is test/reports/thresholds.test.ts's; what this machine reaches is the bench's to measure.
    writeFileSync(
      thresholds,
      JSON.stringify({ p99LatencyMs: { max: 0.001 }, throughputRps: { min: 0, minRatioToMedian: 0 } }),
    );
    const err: string[] = [];
    const stdout: string[] = [];
    const summaryFile = join(out, 'step-summary.md');
    const code = await loadCommand(['--profile', 'smoke', '--out', out, '--thresholds', thresholds], {
      env: { GITHUB_STEP_SUMMARY: summaryFile },
      stderr: { isTTY: false, write: (t: string) => err.push(t) },
      stdout: { write: (t: string) => stdout.push(t) },
    });
    expect(code).toBe(1);

    const dirs = readdirSync(out).filter((d) => /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/.test(d));
    expect(dirs).toHaveLength(1);
    const dir = join(out, dirs[0]!);
    const files = Object.fromEntries(
      ['report.json', 'report.html', 'summary.md'].map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
    );
    const report = JSON.parse(files['report.json']!);
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.verdict.pass).toBe(false);
    expect(
      report.verdict.checks.filter((c: { pass: boolean }) => !c.pass).map((c: { name: string }) => c.name),
    ).toEqual(['p99 latency (ms)']);
    expect(files['summary.md']).toMatch(/FAIL/);
    expect(files['summary.md']).toMatch(/p99 latency \(ms\): [\d.]+ is not <= 0.001/);
    expect(readFileSync(summaryFile, 'utf8')).toContain(files['summary.md']!.split('\n')[0]);
    expect(stdout.join('')).toContain('report.html');

    for (const s of report.scenarios) expect(s.measures.length, s.id).toBeGreaterThan(0);
    const kinds = new Set(report.scenarios.map((s: { kind: string }) => s.kind));
    expect([...kinds].sort()).toEqual([...new Set(PROFILES.smoke.scenarios.map((e) => e.kind))].sort());
    expect(
      report.scenarios.filter((s: { kind: string }) => s.kind === 'plan-rate').map((s: { plan: string }) => s.plan),
    ).toEqual(expect.arrayContaining(['free', 'pro', 'business']));
    expect(report.figures.nonConformant).toBe(0);
    expect(report.figures.falseRejections).toBe(0);
    expect(report.figures.responses).toBeGreaterThan(0);

    // No key anywhere: neither the registered values nor the reference server's key format.
    const secrets = knownSecrets().map((k) => k.reveal());
    expect(secrets.length).toBeGreaterThan(0);
    const history = readFileSync(join(out, 'history.json'), 'utf8');
    for (const text of [...Object.values(files), history, err.join(''), stdout.join('')]) {
      for (const s of secrets) expect(text.includes(s)).toBe(false);
      expect(text).not.toMatch(/psk_[a-z]+_[0-9a-f]{8}/);
      expect(text).not.toMatch(/Bearer [^\s<"]{8}/);
    }
    expect(readHistory(out)).toHaveLength(1);
    expect(err.join('')).toMatch(/^load: smoke profile/m);
  });
});
