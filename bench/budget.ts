/**
 * The bench's `budget` section: the share of the functional fault catalogue a whole functional run catches with only a
 * Free key, at request budgets (and with none), each with its wall time. Each run is the runner in this process, as
 * `petstore-conformance run --budget N` runs it in its worker (the same planning and run: runner/budget.ts, runner/run.ts), against
 * a reference server with the fault on. The server's rate window is 1 s, keeping the Free key's 60 requests per
 * window, so pacing costs seconds, not minutes; runs go 16 side by side (their pacing waits overlap; the process's one
 * core does the rest).
 */
import { faults, isCaught } from '../reference/faults.js';
import { planKeys, startReferenceServer } from '../reference/server.js';
import { runPlanned } from '../runner/run.js';
import { DEFAULT_RUNS_TARGET, FUNCTIONAL_SUITES, isFunctionalSuite } from '../config/config.js';

export interface BudgetRun {
  readonly fault: string;
  readonly caught: boolean;
  readonly requests: number;
  readonly ms: number;
  readonly leftOut: readonly string[];
}

/** One functional run against a server with `fault` on, Free key only, within `budget` requests (null: none). */
export async function freeKeyRun(
  fault: string | null,
  budget: number | null,
  options: { seed?: number; runs?: number; windowSeconds?: number } = {},
): Promise<BudgetRun> {
  const windowSeconds = options.windowSeconds ?? 1;
  const server = await startReferenceServer({ faults: fault === null ? [] : [fault], windowSeconds });
  const t0 = performance.now();
  try {
    const keys = planKeys(server.keys).filter((k) => k.plan === 'free');
    const r = await runPlanned(
      FUNCTIONAL_SUITES,
      {
        target: server.url,
        keys,
        key: keys[0]!,
        seed: options.seed ?? 7,
        runs: options.runs ?? DEFAULT_RUNS_TARGET,
        strict: false,
        windowSeconds,
      },
      { deadline: null, maxRequests: budget, maxCreates: null },
    );
    const named = faults.find((f) => f.id === fault);
    const caught = named !== undefined && r.results.some((s) => isCaught(named, s.findings));
    const leftOut = [
      ...r.results.flatMap((s) => (s.stopped ? [`${s.suite}: ${s.stopped.message}`] : [])),
      ...r.snapshot.leftOut,
    ];
    return { fault: fault ?? 'none', caught, requests: r.snapshot.sent, ms: performance.now() - t0, leftOut };
  } finally {
    await server.close();
  }
}

/** Runs `fn` over `items`, `width` at a time, keeping the items' order in the results. */
export async function pool<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/** The section's figures: per budget, the share caught, the wall time of the whole pass and the most requests. */
export async function benchBudget(budgets: readonly (number | null)[], width = 16): Promise<Record<string, unknown>> {
  const functional = faults.filter((f) => isFunctionalSuite(f.suite));
  const results: Record<string, unknown> = {};
  for (const budget of budgets) {
    const t0 = performance.now();
    const runs = await pool(functional, width, (f) => freeKeyRun(f.id, budget));
    const caught = runs.filter((r) => r.caught).length;
    const label = `functional faults caught, Free key, ${budget === null ? 'no budget' : `budget ${budget}`}`;
    process.stderr.write(`${label}: ${caught} of ${functional.length}\n`);
    results[label] = {
      faults: functional.length,
      caught,
      share: `${((100 * caught) / functional.length).toFixed(1)}%`,
      wallSeconds: +((performance.now() - t0) / 1000).toFixed(1),
      meanSecondsPerRun: +(runs.reduce((n, r) => n + r.ms, 0) / 1000 / runs.length).toFixed(2),
      mostRequestsInARun: Math.max(...runs.map((r) => r.requests)),
      missed: runs.filter((r) => !r.caught).map((r) => r.fault),
    };
  }
  return results;
}
