// Coverage first within a request budget (issue 9): with --budget 250 and only a Free key, a whole functional run
// catches every functional fault of the catalogue, and never sends more than the budget. Each run is the runner as
// the CLI's worker runs it (runner/budget.ts plans it, one run shares it), against a server whose rate window is
// 1 s (the Free key keeps its 60 requests per window, so pacing costs seconds); a few run side by side.
import { describe, expect, test } from 'vitest';
import { freeKeyRun, pool } from '../../bench/budget.js';
import { faults } from '../../reference/faults.js';
import { planKeys, startReferenceServer } from '../../reference/server.js';
import { runPlanned } from '../../runner/run.js';
import { suiteEstimate } from '../../runner/suites.js';
import { type SuiteName, FUNCTIONAL_SUITES } from '../../config/config.js';

const FUNCTIONAL: readonly SuiteName[] = FUNCTIONAL_SUITES;
const BUDGET = 250;
const RUNS = 100;

/**
 * A faultless run as bench/budget.ts's freeKeyRun makes it (Free key, 1 s window, seed 7), whole: the run's
 * per-suite coverage counts are what this file checks, and the bench keeps only a summary.
 */
async function faultlessRun() {
  const server = await startReferenceServer({ faults: [], windowSeconds: 1 });
  try {
    const keys = planKeys(server.keys).filter((k) => k.plan === 'free');
    return await runPlanned(
      FUNCTIONAL,
      { target: server.url, keys, key: keys[0]!, seed: 7, runs: RUNS, strict: false, windowSeconds: 1 },
      { deadline: null, maxRequests: BUDGET, maxCreates: null },
    );
  } finally {
    await server.close();
  }
}

describe(`within a budget of ${BUDGET} requests and a Free key`, () => {
  test('every suite runs its whole coverage phase, which its estimate bounds, and the random phases share the rest', async () => {
    const r = await faultlessRun();
    expect(r.snapshot.sent).toBeLessThanOrEqual(BUDGET);
    // The budget is used: the random phases spend what the coverage leaves.
    expect(r.snapshot.sent).toBeGreaterThan(BUDGET * 0.9);
    for (const s of r.results) expect(s.stopped?.message ?? '', s.suite).not.toMatch(/during coverage/);
    for (const suite of FUNCTIONAL) {
      // A suite with no random phase (the robustness catalogue) is all coverage: what it sent.
      const sent =
        suiteEstimate(suite, r.runs)!.explore === 0
          ? r.results.find((s) => s.suite === suite)?.exchanges
          : r.snapshot.coverage[suite];
      expect(sent, `${suite} reached its random phase`).toBeDefined();
      expect(sent!, suite).toBeGreaterThan(0);
      expect(sent!, `${suite}: its coverage estimate bounds what its coverage phase sent`).toBeLessThanOrEqual(
        suiteEstimate(suite, r.runs)!.coverage,
      );
    }
    expect(r.results.flatMap((s) => s.findings).filter((f) => f.level === 'violation')).toEqual([]);
  }, 120_000);

  const functional = faults.filter((f) => (FUNCTIONAL as readonly string[]).includes(f.suite));
  test(`every functional fault (${functional.length}) is caught`, async () => {
    // The bench's own runs (bench/budget.ts): what it measures at this budget is what this test asserts.
    const runs = await pool(functional, 8, (f) => freeKeyRun(f.id, BUDGET, { runs: RUNS }));
    for (const r of runs) expect(r.requests, r.fault).toBeLessThanOrEqual(BUDGET);
    const missed = runs
      .filter((r) => !r.caught)
      .map((r) => `${r.fault} (left out: ${r.leftOut.join('; ') || 'nothing'})`);
    expect(missed).toEqual([]);
  }, 600_000);
});
