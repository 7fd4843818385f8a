/**
 * Distinct defects and the baseline, through the CLI against the reference server with faults: one block per
 * signature; a baseline written by --update-baseline passes the same run; one more fault fails naming only the new
 * defect; a fault removed is reported fixed.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { readBaseline } from '../../reports/baseline.js';
import { startReferenceServer } from '../../reference/server.js';
import { runForReport, writeEnvFile } from '../cli/support.js';

const dir = mkdtempSync(join(tmpdir(), 'psc-baseline-'));

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
    const roots = r.report.defects;
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
