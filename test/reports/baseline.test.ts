/**
 * Distinct defects and the baseline, through the CLI against the reference server with faults: one block per
 * signature; a baseline written by --update-baseline passes the same run; one more fault fails naming only the new
 * defect; a fault removed is reported fixed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { readBaseline } from '../../reports/baseline.js';
import { startReferenceServer } from '../../reference/server.js';
import { runForReport, writeEnvFile } from '../cli/support.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir('psc-baseline-');

async function run(
  faults: string[],
  extra: string[],
): Promise<{ code: number; text: string; report: ConformanceReport }> {
  const server = await startReferenceServer({ faults, windowSeconds: 5 });
  try {
    const envFile = writeEnvFile(join(dir, '.env'), server.keys);
    const json = join(dir, `report-${faults.join('+') || 'none'}-${extra.length}.json`);
    const args = ['--suite', 'createPet', '--runs', '20', '--seed', '7', ...extra];
    const { code, out, report } = await runForReport(server.url, envFile, json, args);
    return { code, text: out.text(), report };
  } finally {
    await server.close();
  }
}

const blocks = (text: string) => text.split('\n').filter((l) => /^[✗!] /.test(l));

describe('a baseline of known defects', () => {
  const file = join(dir, 'baseline.yaml');
  const first = ['create-missing-field-accepted', 'create-status-not-persisted'];

  test('one block per distinct defect; --update-baseline writes them and the run passes', async () => {
    const r = await run(first, ['--baseline', file, '--update-baseline']);
    expect(r.code, r.text).toBe(0);
    const failing = r.report.defects.filter((d) => d.level === 'violation');
    expect(failing.map((d) => d.checkId)).toEqual(expect.arrayContaining(['create-invalid-rejected', 'create-echo']));
    // Every violation signature is its own block, echoes folded into their root's block.
    const roots = r.report.defects.filter((d) => d.echoOf === undefined);
    expect(blocks(r.text)).toHaveLength(roots.length);
    expect(new Set(r.report.defects.map((d) => d.signature)).size).toBe(r.report.defects.length);
    expect(readBaseline(file).sort()).toEqual(failing.map((d) => d.signature).sort());
    expect(r.text).toContain(`${failing.length} known defects remain`);
    expect(r.text).toMatch(/Result: ONLY KNOWN DEFECTS — \d+ distinct violations? in \d+ exchanges?/);
  }, 120_000);

  test('one more fault fails the run, naming only the new defect', async () => {
    const r = await run([...first, 'create-client-id-honoured'], ['--baseline', file]);
    expect(r.code, r.text).toBe(1);
    expect(r.report.baseline?.new).toEqual(['create-id-not-client-supplied · createPet']);
    expect(r.report.baseline?.fixed).toEqual([]);
    expect(r.text).toContain(
      'new, not in the baseline (these fail the run):\n    ✗ create-id-not-client-supplied · createPet',
    );
  }, 120_000);

  test('a fault removed is reported fixed, and the run passes', async () => {
    const r = await run([first[0]!], ['--baseline', file]);
    expect(r.code, r.text).toBe(0);
    expect(r.report.baseline?.new).toEqual([]);
    expect(r.report.baseline?.fixed.length).toBeGreaterThan(0);
    expect(r.report.baseline?.fixed.every((s) => s.startsWith('create-echo · '))).toBe(true);
    expect(r.text).toContain('fixed, no longer seen');
  }, 120_000);
});

describe('one verdict everywhere, baseline included', () => {
  test('a baseline holding every defect: terminal, exit 0, JSON, JUnit (0 failures, known defects skipped) and summary agree', async () => {
    const faults = ['create-missing-field-accepted', 'create-status-not-persisted'];
    const server = await startReferenceServer({ faults, windowSeconds: 5 });
    try {
      const file = join(dir, 'every-defect.yaml');
      const summary = join(dir, 'every-defect.md');
      const envFile = writeEnvFile(join(dir, 'every.env'), server.keys, { GITHUB_STEP_SUMMARY: summary });
      const args = ['--suite', 'createPet', '--runs', '20', '--seed', '7', '--baseline', file];
      const first = await runForReport(server.url, envFile, join(dir, 'every-1.json'), [...args, '--update-baseline']);
      expect(first.code, first.out.text()).toBe(0);
      const junit = join(dir, 'every.xml');
      const { code, out, report } = await runForReport(server.url, envFile, join(dir, 'every-2.json'), [
        ...args,
        '--junit',
        junit,
      ]);
      const known = report.baseline!.known;
      expect(known.length).toBeGreaterThan(0);
      expect(report.baseline?.new).toEqual([]);
      // Terminal and exit code.
      expect(code, out.text()).toBe(0);
      expect(out.text()).toMatch(/Result: ONLY KNOWN DEFECTS — /);
      // JSON: the same verdict, not "conformant" beside a list of violations.
      expect(report.verdict).toBe('known-defects');
      expect(report.exitCode).toBe(0);
      // JUnit: no failure; each known defect a skipped test case naming it.
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuites name="petstore-conformance" tests="\d+" failures="0" errors="0"/);
      expect(xml).not.toContain('<failure');
      expect(xml).toContain('<property name="verdict" value="known-defects"/>');
      for (const s of known)
        expect(xml).toContain(`<skipped message="known defect (baseline ${file}): violation: ${s}`);
      // The Markdown summary.
      const md = readFileSync(summary, 'utf8');
      expect(md.split('## Pet Store conformance: ').at(-1)).toMatch(/^⚠️ Only known defects/);
      expect(md).toContain(`${known.length} known defects remain, 0 new`);
    } finally {
      await server.close();
    }
  }, 180_000);
});
