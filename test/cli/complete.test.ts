/**
 * A verdict never claims what was not measured (issue 19): a Free-key-only run against the reference server with the
 * default request budget (a quarter of the Free key's day, 250) cannot fit the rate-limit suite after the coverage
 * phases, so it does not run it and every output says INCOMPLETE, naming it and the budget it needs; --require-complete
 * makes that exit 3; with that budget the Free key's limits are measured and the run is conformant. The preflight's
 * answer is judged like every other.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { KeyRateLimitResult } from '../../runner/rate-limit-results.js';
import { runForReport, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

const WINDOW_S = 2;

describe('a Free-key-only run with the default budget', () => {
  let server: ReferenceServer;
  let dir: string;
  let envFile: string;
  beforeAll(async () => {
    server = await startReferenceServer({ windowSeconds: WINDOW_S });
    dir = tempDir('psc-complete-');
    envFile = writeEnvFile(
      join(dir, '.env'),
      server.keys.filter((k) => k.plan === 'free'),
      { PETSTORE_RATE_WINDOW_SECONDS: String(WINDOW_S), GITHUB_STEP_SUMMARY: join(dir, 'summary.md') },
    );
  });
  afterAll(async () => server?.close());

  it('says INCOMPLETE everywhere, naming the rate-limit suite and the budget it needs; --require-complete exits 3', async () => {
    const junit = join(dir, 'junit.xml');
    const { code, out, stdout, report } = await runForReport(server.url, envFile, join(dir, 'default.json'), [
      '--seed',
      '3',
      '--junit',
      junit,
      '--require-complete',
    ]);
    expect(code, out.text()).toBe(3);
    expect(report.run.budget.limit).toBe(250);
    expect(report.run.budget.sent).toBeLessThanOrEqual(250);
    expect(report.verdict).toBe('incomplete');
    expect(report.exitCode).toBe(3);
    expect(report.notMeasured).toHaveLength(1);
    expect(report.notMeasured[0]).toMatch(
      /^rate-limit: not run: its keys need about \d+ requests \(free ≈ \d+, and 3 without a key\), but the request budget \(250\) leaves \d+ after the functional suites' coverage phases \(\d+\); give --budget (\d+) or more/,
    );
    // Nothing of the rate-limit suite ran: no ✓ line, and none with 0 requests behind it.
    expect(stdout).not.toMatch(/Rate limits, per plan key/);
    expect(stdout).not.toMatch(/✓.* 0 requests/);
    expect(stdout).toMatch(
      /Not measured \(the verdict is INCOMPLETE: nothing vouches for these\):\n {2}- rate-limit: not run/,
    );
    expect(stdout).toMatch(/^Result: INCOMPLETE \(1 left out, listed above\) — no violations/m);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<property name="verdict" value="incomplete"/>');
    // No failure (nothing failed); exit 3 under --require-complete is an error of the run, saying what was left out.
    expect(xml).toMatch(/failures="0" errors="1"/);
    expect(xml).toMatch(
      /<testcase classname="petstore-conformance.run" name="verdict">\n\s+<error message="INCOMPLETE with --require-complete: rate-limit: not run/,
    );
    expect(xml).toMatch(/<testcase classname="petstore-conformance.not-measured" name="rate-limit: not run/);
    // The rate-limit checks passed nothing: their suite was left out, and the case says why.
    expect(xml).toMatch(
      /<testcase classname="petstore-conformance.checks" name="rl-burst-enforced \[[^\]]+\]">\n\s+<skipped message="left out: rate-limit: not run: /,
    );
    // Nor did anything about 429 answers pass where none came (the evidence says so, cell by cell).
    if ((report.traffic?.keys ?? []).every((k) => (k.totals['429'] ?? 0) === 0)) {
      expect(xml).not.toMatch(
        /<testcase classname="petstore-conformance.checks" name="retry-after-valid \[[^\]]+\]"\/>/,
      );
      expect(report.evidence.cells.filter((c) => c.clause === '7-429-retry-after').map((c) => c.state)).not.toContain(
        'proven',
      );
    }
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(
      /## Pet Store conformance: ⚠️ Incomplete[\s\S]*Not measured[\s\S]*- rate-limit: not run/,
    );

    // With the budget it names, the Free key's limits are measured, and nothing is left out.
    const needed = /give --budget (\d+) or more/.exec(report.notMeasured[0]!)![1]!;
    const full = await runForReport(server.url, envFile, join(dir, 'enough.json'), [
      '--seed',
      '3',
      '--budget',
      needed,
      '--require-complete',
    ]);
    expect(full.code, full.out.text()).toBe(0);
    expect(full.report.verdict).toBe('conformant');
    expect(full.report.notMeasured).toEqual([]);
    expect(full.report.run.budget.sent).toBeLessThanOrEqual(Number(needed));
    const free = ((full.report.rateLimits ?? []) as KeyRateLimitResult[]).find((k) => k.key === 'free');
    expect(free?.burst?.first429AtRequest, full.stdout).toBeGreaterThan(0);
    expect(free?.recovered).toBe(true);
    expect(full.stdout).toMatch(/^ {2}✓ free limit 60\/2 s: paced \d+ in/m);
    expect(full.stdout).not.toMatch(/✓.* 0 requests/);
  }, 300_000);
});
