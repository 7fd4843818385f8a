/**
 * Defects and the baseline, through the CLI against the reference server with faults: one block per defect; a
 * baseline written by --update-baseline passes the same run; one more fault fails naming only the new defect; a
 * fault removed is reported fixed, with what was folded under it; a known defect seen as a signature the baseline
 * does not list is new evidence, reported; and a baseline written by the previous version (signatures, one a line)
 * still works.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { readBaseline, readBaselineEntries } from '../../reports/baseline.js';
import { signaturesOf } from '../../reports/defects.js';
import { startReferenceServer } from '../../reference/server.js';
import { runForReport, writeEnvFile } from '../cli/support.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir('psc-baseline-');

async function run(
  faults: string[],
  extra: string[],
  settings: readonly string[] = ['--suite', 'createPet', '--runs', '20', '--seed', '7'],
): Promise<{ code: number; text: string; report: ConformanceReport }> {
  const server = await startReferenceServer({ faults, windowSeconds: 5 });
  try {
    const envFile = writeEnvFile(join(dir, '.env'), server.keys, { PETSTORE_RATE_WINDOW_SECONDS: '5' });
    const json = join(dir, `report-${faults.join('+') || 'none'}-${extra.length}-${settings.length}.json`);
    const args = [...settings, ...extra];
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

  test('one block per defect; --update-baseline writes them with their signatures and the run passes', async () => {
    const r = await run(first, ['--baseline', file, '--update-baseline']);
    expect(r.code, r.text).toBe(0);
    const failing = r.report.defects.filter((d) => d.level === 'violation');
    // One defect per fault: the missing fields accepted, and the status not stored.
    expect(failing.map((d) => d.checkId).sort()).toEqual(['create-echo', 'create-invalid-rejected']);
    expect(blocks(r.text)).toHaveLength(r.report.defects.length);
    expect(new Set(r.report.defects.map((d) => d.signature)).size).toBe(r.report.defects.length);
    const entries = readBaselineEntries(file);
    expect(entries.map((e) => e.defect).sort()).toEqual(failing.map((d) => d.signature).sort());
    for (const d of failing)
      expect(entries.find((e) => e.defect === d.signature)?.signatures).toEqual([...signaturesOf(d)].sort());
    expect(r.text).toContain(`${failing.length} known defects remain`);
    expect(r.text).toMatch(/Result: ONLY KNOWN DEFECTS — 2 defects \(\d+ signatures\) in \d+ exchanges/);
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

  test('a known defect seen as a signature the baseline does not list is new evidence: reported, not failing', async () => {
    const partial = join(dir, 'partial.yaml');
    const entries = readBaselineEntries(file);
    const multi = entries.find((e) => e.signatures.length > 1)!;
    expect(multi, 'a defect seen as several signatures').toBeDefined();
    const dropped = multi.signatures.at(-1)!;
    writeFileSync(partial, readFileSync(file, 'utf8').replace(`    - ${JSON.stringify(dropped)}\n`, ''));
    expect(readBaseline(partial)).not.toContain(dropped);
    const r = await run(first, ['--baseline', partial]);
    expect(r.code, r.text).toBe(0);
    expect(r.report.baseline?.new).toEqual([]);
    expect(r.report.baseline?.newEvidence).toEqual([{ defect: multi.defect, signatures: [dropped] }]);
    expect(r.text).toContain(`new evidence of known defects`);
    expect(r.text).toContain(`~ ${multi.defect}: also seen as ${dropped}`);
    expect(r.text).toContain('✗ (known, new evidence)');
  }, 120_000);
});

describe('a consequence folded under its root', () => {
  const file = join(dir, 'consequence.yaml');
  test('is listed under the defect and in the baseline; fixing the root reports it fixed with it', async () => {
    const r = await run(['create-invalid-status-accepted'], ['--baseline', file, '--update-baseline']);
    expect(r.code, r.text).toBe(0);
    expect(r.report.defects).toHaveLength(1);
    const [d] = r.report.defects;
    expect(d?.checkId).toBe('create-invalid-rejected');
    // The listed pet with the status it should have refused: still listed, under its cause.
    const listed = d!.alsoSeenAs.filter((s) => s.operation === 'listPets');
    expect(listed.map((s) => s.checkId)).toContain('body-schema');
    expect(r.text).toMatch(/also seen as: body-schema · .*listPets/);
    expect(readBaselineEntries(file)[0]?.signatures).toEqual(expect.arrayContaining(listed.map((s) => s.signature)));
    const fixed = await run([], ['--baseline', file]);
    expect(fixed.code, fixed.text).toBe(0);
    expect(fixed.report.baseline?.fixed).toEqual([d!.signature]);
    expect(fixed.report.defects).toEqual([]);
  }, 120_000);
});

describe('a baseline written by the previous version (signatures, one a line)', () => {
  // Written by 0.1.0 with `run --seed 3 --runs 20 --suite auth,listPets,createPet,getPet,stateful
  // --update-baseline` against `serve --window 5 --fault` these four faults.
  const faults = ['auth-wrong-scheme', 'create-missing-field-accepted', 'list-filter-leak', 'rl-reset-ms'];
  const settings = ['--suite', 'auth,listPets,createPet,getPet,stateful', '--runs', '20', '--seed', '3'];
  const file = join(dir, 'old-baseline.yaml');
  copyFileSync(new URL('./fixtures-data/baseline-v0.1-signatures.yaml', import.meta.url), file);

  test('maps onto defects: the same faulty server passes, every defect known and nothing fixed', async () => {
    const r = await run(faults, ['--baseline', file], settings);
    expect(r.code, r.text).toBe(0);
    expect(r.report.defects.length).toBe(faults.length);
    expect(r.report.baseline?.new).toEqual([]);
    expect(r.report.baseline?.known).toHaveLength(faults.length);
    expect(r.report.baseline?.fixed).toEqual([]);
  }, 180_000);

  test('one added fault fails the run, naming only it', async () => {
    const r = await run([...faults, 'create-client-id-honoured'], ['--baseline', file], settings);
    expect(r.code, r.text).toBe(1);
    expect(r.report.baseline?.new).toEqual(['create-id-not-client-supplied · createPet']);
    expect(r.report.baseline?.fixed).toEqual([]);
    expect(r.text).toContain(
      'new, not in the baseline (these fail the run):\n    ✗ create-id-not-client-supplied · createPet',
    );
  }, 180_000);
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
