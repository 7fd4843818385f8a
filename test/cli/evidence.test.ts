/**
 * What nothing measured is never claimed (issue 30): every output reads the one table of evidence. A Free-key run that
 * met no 429 passes no JUnit case and proves no map cell about 429 answers, and its JSON evidence says "not
 * exercised"; a target too slow for a key to exceed its limit within a window makes the run INCOMPLETE naming the key
 * and the rates (exit 3 with --require-complete), while a limit never measured by design is named and leaves the
 * verdict as it is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { EvidenceCell } from '../../reports/evidence.js';
import { runForReport, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

/** The checks and clauses about 429 answers: what no run without a 429 may pass or prove. */
const ABOUT_429 = ['retry-after-valid', 'error-body-429-json', 'error-body-429'];

describe('a Free-key run of the functional suites', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ windowSeconds: 2 });
  });
  afterAll(async () => server?.close());

  it('passes nothing and proves nothing about 429 answers unless a 429 came; the evidence says not exercised', async () => {
    const dir = tempDir('psc-evidence-');
    const envFile = writeEnvFile(
      join(dir, '.env'),
      server.keys.filter((k) => k.plan === 'free'),
      { PETSTORE_RATE_WINDOW_SECONDS: '2' },
    );
    const junit = join(dir, 'junit.xml');
    const html = join(dir, 'r.html');
    const { out, report } = await runForReport(server.url, envFile, join(dir, 'r.json'), [
      '--suite',
      'auth,listPets',
      '--runs',
      '5',
      '--seed',
      '4',
      '--junit',
      junit,
      '--html',
      html,
    ]);
    const got429 = (report.traffic?.keys ?? []).reduce((n, k) => n + (k.totals['429'] ?? 0), 0);
    const cells = report.evidence.cells.filter((c: EvidenceCell) => c.clause === '7-429-retry-after');
    expect(cells.map((c) => c.operation).sort(), out.text()).toEqual(['createPet', 'getPet', 'listPets']);
    const xml = readFileSync(junit, 'utf8');
    const page = readFileSync(html, 'utf8');
    const row = /<tr data-clause="7-429-retry-after">[\s\S]*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(row).not.toBe('');
    if (got429 === 0) {
      for (const c of cells) expect(c).toMatchObject({ state: 'not-exercised', passed: 0 });
      for (const id of ABOUT_429) {
        expect(report.evidence.checks.find((c) => c.checkId === id)?.state).toBe('not-exercised');
        expect(xml).toMatch(
          new RegExp(`name="${id} \\[[^\\]]+\\]">\\n\\s+<skipped message="not exercised: it applies to 429 answers`),
        );
      }
      expect(row).not.toMatch(/class="c proven"/);
      expect(row).toMatch(/class="c not-exercised"/);
    } else {
      // A 429 came after all (a shared host stalled): only where one came may a cell be proven.
      for (const c of cells) if (c.state === 'proven') expect(c.passed).toBeGreaterThan(0);
    }
    // What was exercised is proven, with its count: every answer's status is one the operation documents.
    expect(
      report.evidence.cells.find((c) => c.clause === '4-documented-status' && c.operation === 'listPets'),
    ).toMatchObject({ state: 'proven', passed: expect.any(Number) });
    expect(xml).toMatch(/<testcase classname="petstore-conformance.checks" name="status-documented \[[^\]]+\]"\/>/);
    // The terminal says what nothing exercised.
    expect(out.stdout.join('')).toMatch(/^Evidence per clause and operation: \d+ proven, /m);
    expect(out.stdout.join('')).toMatch(/– not exercised: 7-429-retry-after on /);
  }, 300_000);
});

describe('a target too slow for a key to exceed its limit within a window', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    // 150 ms per answer, at most 4 requests in flight in a burst: about 26 a second, where 60 a second are needed.
    server = await startReferenceServer({ windowSeconds: 1, answerDelayMs: 150 });
  });
  afterAll(async () => server?.close());

  it('makes the run INCOMPLETE naming the key and the rates, exit 3 with --require-complete; a limit beyond any burst is named, by design', async () => {
    const dir = tempDir('psc-slow-');
    const envFile = writeEnvFile(
      join(dir, '.env'),
      server.keys.filter((k) => k.plan === 'free' || k.plan === 'enterprise'),
      { PETSTORE_RATE_WINDOW_SECONDS: '1', GITHUB_STEP_SUMMARY: join(dir, 'summary.md') },
    );
    const junit = join(dir, 'junit.xml');
    const html = join(dir, 'r.html');
    const { code, out, report } = await runForReport(server.url, envFile, join(dir, 'r.json'), [
      '--suite',
      'rate-limit',
      '--budget',
      '600',
      '--require-complete',
      '--junit',
      junit,
      '--html',
      html,
    ]);
    expect(report.verdict, out.text()).toBe('incomplete');
    expect(code).toBe(3);
    const free =
      /^rate-limit: the free key's enforcement \(60 per 1 s\) was not exercised: no 429 within its burst of \d+ accepted requests; exceeding 60 per 1 s within a window needs more than 60 requests\/s; the target answered \d+ in [\d.]+ s, ([\d.]+) requests\/s$/;
    const line = report.notMeasured.find((l) => free.test(l));
    expect(line, report.notMeasured.join('\n')).toBeDefined();
    expect(Number(free.exec(line!)![1])).toBeLessThan(60);
    // The Enterprise key's limit is beyond what a bounded burst measures: named, by design, not a reason for INCOMPLETE.
    expect(report.notMeasured.some((l) => l.includes('enterprise'))).toBe(false);
    expect(report.notMeasuredByDesign).toEqual([
      expect.stringMatching(
        /^rate-limit: the enterprise key's limits \(1000000 per 1 s\): beyond what a bounded burst measures/,
      ),
    ]);
    // No ✓ for a key whose burst met no refusal, and the enforcement clause is not proven by it.
    const stdout = out.stdout.join('');
    expect(stdout).toMatch(/^ {2}– free limit 60\/1 s: not measured/m);
    expect(stdout).toMatch(
      /Not measured, by design \(the verdict stands\):\n {2}- rate-limit: the enterprise key's limits/,
    );
    expect(
      report.evidence.cells.find((c) => c.clause === '8-rule-1-429' && c.operation === 'listPets')?.state,
    ).not.toBe('proven');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /<testcase classname="petstore-conformance.not-measured" name="rate-limit: the free key's enforcement/,
    );
    expect(xml).toMatch(/<skipped message="not measured by design: rate-limit: the enterprise key's limits/);
    expect(xml).not.toMatch(/<testcase classname="petstore-conformance.checks" name="rl-burst-enforced \[[^\]]+\]"\/>/);
    expect(readFileSync(html, 'utf8')).toMatch(
      /Not measured, by design[\s\S]*the enterprise key&#39;s limits|Not measured, by design[\s\S]*the enterprise key/,
    );
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/Not measured, by design/);
  }, 300_000);
});
