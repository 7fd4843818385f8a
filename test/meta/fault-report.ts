/**
 * Runs suites in-process against a reference server started with the given faults and builds the conformance report
 * the CLI would (the project's own tests): what the defect meta-tests count.
 */
import type { SuiteName } from '../../config/config.js';
import { planKeys, startReferenceServer } from '../../reference/server.js';
import { buildConformanceReport, type ConformanceReport, type SuiteOutcome } from '../../reports/conformance-report.js';
import { runSuite } from '../../runner/suites.js';

export async function faultReport(
  faults: readonly string[],
  suites: readonly SuiteName[],
  options: { seed?: number; runs?: number } = {},
): Promise<ConformanceReport> {
  const seed = options.seed ?? 42;
  const runs = options.runs ?? 40;
  const server = await startReferenceServer({ faults: [...faults], windowSeconds: 5 });
  const outcomes: SuiteOutcome[] = [];
  try {
    const keys = planKeys(server.keys);
    const key = keys.find((k) => k.plan === 'enterprise')!;
    for (const suite of suites) {
      const { ctx: _ctx, ...r } = await runSuite(suite, { target: server.url, keys, key, seed, runs, strict: false });
      outcomes.push({ meta: { ...r, seed, observations: [] }, findings: r.findings, failedTests: 0 });
    }
  } finally {
    await server.close();
  }
  return buildConformanceReport({
    tool: { name: 'petstore-conformance', version: 'test' },
    target: { url: server.url, embedded: false },
    seed,
    runs,
    strict: false,
    startedAt: new Date(),
    durationMs: 0,
    outcomes,
    errors: [],
    notes: [],
  });
}
