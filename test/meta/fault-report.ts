/**
 * The conformance report the CLI would build from suites run in-process (the project's own tests), and a helper that
 * runs suites against a reference server started with the given faults: what the defect meta-tests count.
 */
import type { SuiteName } from '../../config/config.js';
import { planKeys, startReferenceServer } from '../../reference/server.js';
import { buildConformanceReport, type ConformanceReport } from '../../reports/conformance-report.js';
import { Ledger } from '../../runner/ledger.js';
import { runOutcome } from '../../runner/outcome.js';
import { runSuite, type SuiteResult } from '../../runner/run.js';

/**
 * The report of suite results, as `run` builds it from what the suites hand over: the command's own `runOutcome`
 * (runner/outcome.ts, as suites/run.suite.ts calls it), then the report, so what these tests count is what the command
 * writes (never a copy of the outcome).
 */
export function reportOf(
  results: readonly SuiteResult[],
  target: string,
  seed: number,
  runs: number,
  strict = false,
): ConformanceReport {
  const snapshot = { sent: 0, creates: 0, stop: null, ...new Ledger().snapshot() };
  const outcome = runOutcome({ results, errors: [], snapshot }, seed, strict);
  return buildConformanceReport({
    tool: { name: 'petstore-conformance', version: 'test' },
    target: { url: target, embedded: false },
    seed,
    runs,
    strict,
    startedAt: new Date(),
    durationMs: 0,
    outcomes: outcome.outcomes,
    errors: outcome.errors,
    notes: [],
  });
}

export async function faultReport(
  faults: readonly string[],
  suites: readonly SuiteName[],
  options: { seed?: number; runs?: number; windowSeconds?: number } = {},
): Promise<ConformanceReport> {
  const seed = options.seed ?? 42;
  const runs = options.runs ?? 40;
  const server = await startReferenceServer({ faults: [...faults], windowSeconds: options.windowSeconds ?? 5 });
  const results: SuiteResult[] = [];
  try {
    const keys = planKeys(server.keys);
    const key = keys.find((k) => k.plan === 'enterprise')!;
    for (const suite of suites) {
      results.push(await runSuite(suite, { target: server.url, keys, key, seed, runs, strict: false }));
    }
  } finally {
    await server.close();
  }
  return reportOf(results, server.url, seed, runs);
}
