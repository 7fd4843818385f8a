/**
 * Runs the rate-limit or quota suite in-process against a reference server (windows of a few seconds).
 *
 * Time is compressed (a 2 s window instead of 60 s), so the plans' limits are compressed with it: the contract's
 * 1,000 per window would ask this machine for 500 requests a second, and a burst slower than the limiter's refill
 * measures the machine, not the limiter. The test plans keep the contract's order and ratios roughly, at rates a
 * loaded machine sustains (about what a 60 s window asks at the real limits).
 */
import { contract, type PlanLimits, type PlanName } from '../../spec/contract.js';
import { generateKeys, planKeys, startReferenceServer, type ReferenceOptions } from '../../reference/server.js';
import { randomKey, type ReferenceKey } from '../../reference/keys.js';
import { runSuite } from '../../runner/run.js';
import type { SuiteName } from '../../config/config.js';
import type { Exchange } from '../../http/exchange.js';
import type { KeyRateLimitResult } from '../../runner/rate-limit-results.js';
import { slots } from '../support/slots.js';

export const PLANS = ['free', 'pro', 'business'] as const;
/** Verdicts must not depend on luck: every rate-limit test that judges runs on each of these seeds. */
export const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

/** Per-window limits of the test plans (the day limits are the contract's). */
export const TEST_LIMITS: Readonly<Record<(typeof PLANS)[number], number>> = { free: 10, pro: 15, business: 25 };

/** One key per plan of PLANS with the test limits; `second` adds a second key of that plan. */
export function testKeys(second?: PlanName): ReferenceKey[] {
  const keys = PLANS.map((plan) => key(plan));
  if (second) keys.push(key(second));
  return keys;
}

function key(plan: PlanName): ReferenceKey {
  const limits: PlanLimits = {
    requestsPerMinute: TEST_LIMITS[plan as (typeof PLANS)[number]] ?? 10,
    requestsPerDay: contract.plans[plan]?.requestsPerDay ?? 1000,
  };
  return { key: randomKey(plan), plan, limits };
}

/**
 * The seed sets where in the wall clock's second the run starts (seed × 100 ms past a whole second): Reset and
 * Retry-After are whole seconds, so ten seeds meet ten different roundings.
 */
async function startAtPhaseOf(seed: number): Promise<void> {
  const phase = (seed * 100) % 1000;
  const now = Date.now();
  const wait = (phase - (now % 1000) + 1000) % 1000;
  await new Promise((r) => setTimeout(r, wait));
}

/**
 * Runs at once in this worker: each run keeps a reference server and the suite busy in this process, and a 2 s
 * window measured on a saturated machine would measure the machine (requests taking a good part of the window). The
 * runs mostly wait on windows (the 280 runs of faults.test.ts spend about 25 s of CPU in all): twelve at once halve
 * the file's time, and the rate-limit files pass so beside two processes that keep both cores busy.
 */
const MAX_RUNS = 12;
const slot = slots(MAX_RUNS);

/**
 * The quota suite's reference: an Enterprise key with a small quota (30 a day, a day window of 60 s) and a minute limit
 * (20 per 2 s) with room for the day's last requests to go several at once (runner/scenarios/quota-parallel.ts).
 */
export function quotaOptions(faults: readonly string[] = [], seed?: number): ReferenceOptions & { seed?: number } {
  return {
    windowSeconds: 2,
    dayWindowSeconds: 60,
    faults: [...faults],
    keys: generateKeys({ enterprise: { requestsPerMinute: 20, requestsPerDay: 30 } }),
    ...(seed !== undefined && { seed }),
  };
}

/** Per-test timeout for tests that run the suite on every seed. */
export const SEEDED_TIMEOUT_MS = 600_000;

export function runRateLimit(
  suite: SuiteName,
  options: ReferenceOptions & {
    plans?: readonly string[];
    seed?: number;
    onWait?: (ms: number, reason: string) => void;
  },
) {
  return slot(() => runOnce(suite, options));
}

async function runOnce(
  suite: SuiteName,
  options: ReferenceOptions & {
    plans?: readonly string[];
    seed?: number;
    onWait?: (ms: number, reason: string) => void;
  },
) {
  if (options.seed !== undefined) await startAtPhaseOf(options.seed);
  const server = await startReferenceServer({ keys: testKeys(), ...options });
  try {
    const keys = planKeys(server.keys.filter((k) => !options.plans || options.plans.includes(k.plan)));
    const exchangeList: Exchange[] = [];
    const result = await runSuite(suite, {
      target: server.url,
      keys,
      key: keys[0]!,
      exchangeSink: { push: (ex) => exchangeList.push(ex) },
      seed: options.seed ?? 1,
      runs: 10,
      strict: false,
      windowSeconds: server.options.windowSeconds,
      ...(options.onWait ? { onWait: options.onWait } : {}),
    });
    return {
      ...result,
      rateLimitResults: result.rateLimits,
      keyResults: result.rateLimits.filter((x): x is KeyRateLimitResult => x.suite === 'rate-limit'),
      exchangeList,
    };
  } finally {
    await server.close();
  }
}
