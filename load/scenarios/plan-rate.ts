/**
 * Each plan's key at multiples of its rate, counting accepted and 429 per second against the plan line. Plans run side
 * by side (their keys are independent); the multipliers of one plan run in turn, a window's rest apart.
 *
 * What is sound to judge, whatever the limiter algorithm: at or below the rate, a rested key gets no 429. Above it, a
 * rested key gets about its limit before the first 429 (firstWindowRatio ≈ 1 or more: a token bucket refills during
 * the burst), and over a run of two windows at most limit × (windows + 1) are accepted (a fixed window crossed mid-run,
 * or a full bucket plus its refill): acceptedRatio ≤ 1.5, where a missing limiter reads 2. One window at 2× could not
 * tell a missing limiter from a fixed window crossed mid-run, hence two. The run keeps sending after 429s (autocannon
 * cannot wait for Retry-After), which may earn the key a temporary ban (rule 3): that lowers only the total, so the
 * lower bound is judged on the answers before the first 429.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { listRequest } from '../mix.js';
import type { LimiterOutcome } from '../model.js';
import type { Profile } from '../profiles.js';
import type { Recorder } from '../recorder.js';
import {
  limiterRunsOn,
  type LoadScenario,
  runScenario,
  type ScenarioContext,
  type ScenarioRun,
  type ScenarioSpec,
} from '../run-scenario.js';
import type { TargetKey } from '../target.js';

/** Multiples of each plan's rate, run in turn (plans side by side). */
export interface PlanRateParams {
  readonly multipliers: readonly number[];
}

export const planRate: LoadScenario<PlanRateParams> = {
  kind: 'plan-rate',
  measures: ['limiter'],
  params: { multipliers: 'numbers' },
  // Runs above the limit last two windows; a window's rest between multipliers.
  plannedSeconds: (p, w) => p.multipliers.reduce((n, m, i) => n + (m > 1 ? 2 : 1) * w + (i > 0 ? w : 0), 0),
  // Sharded, the per-plan runs go on the first shard only (the limits are per key: one key's limiter is judged whole),
  // or on every shard with its own keys (--limiter-shards all), each at its plan's full rate.
  run: async (p, env) => {
    const place = env.ctx.shard;
    if (place && !limiterRunsOn(place)) {
      env.ctx.progress.note(
        `per-plan rate runs: on shard 1 only (--limiter-shards first); shard ${place.index} skips them`,
      );
      return [];
    }
    return runPlanRates(env.target.url, env.target.windowSeconds, env.target.keys, env.profile, p.multipliers, env.ctx);
  },
};

export function planRateScenario(
  url: string,
  windowSeconds: number,
  key: TargetKey,
  profile: Profile,
  multiplier: number,
): ScenarioSpec {
  const limit = key.limits.requestsPerMinute;
  const durationSeconds = multiplier > 1 ? 2 * windowSeconds : windowSeconds;
  const rate = Math.max(1, Math.floor((multiplier * limit) / windowSeconds));
  const offered = Math.max(
    1,
    Math.min(
      profile.requestCap,
      Math.floor((multiplier * limit * durationSeconds) / windowSeconds),
      rate * durationSeconds,
    ),
  );
  return {
    id: `plan-rate-${key.plan}-${multiplier}x`,
    title: `${key.plan} key at ${multiplier}× its rate (${rate} req/s)`,
    plan: key.plan,
    multiplier,
    url,
    connections: Math.min(10, rate),
    overallRate: rate,
    durationSeconds,
    maxRequests: offered,
    timeoutSeconds: profile.timeoutSeconds,
    sampleEvery: profile.sampleEvery,
    planLine: {
      plan: key.plan,
      limitPerWindow: limit,
      windowSeconds,
      acceptedPerSecond: Math.round((limit / windowSeconds) * 100) / 100,
    },
    requests: (tally) => listRequest(new URL(url).pathname, key.key, tally),
  };
}

export function limiterOutcome(
  spec: ScenarioSpec,
  key: TargetKey,
  windowSeconds: number,
  rec: Recorder,
): LimiterOutcome {
  const multiplier = spec.multiplier ?? 1;
  let accepted = 0;
  for (const [status, n] of Object.entries(rec.byStatus)) if (status.startsWith('2')) accepted += n;
  const rejected = rec.byStatus['429'] ?? 0;
  const windows = spec.durationSeconds / windowSeconds;
  const atOrBelow = multiplier <= 1;
  return {
    multiplier,
    offered: rec.responses + rec.errors,
    accepted,
    rejected,
    acceptedBeforeFirst429: rec.acceptedBeforeFirst429,
    falseRejections: atOrBelow ? rejected : 0,
    firstWindowRatio: atOrBelow
      ? null
      : Math.round((rec.acceptedBeforeFirst429 / key.limits.requestsPerMinute) * 1000) / 1000,
    acceptedRatio: atOrBelow ? null : Math.round((accepted / (key.limits.requestsPerMinute * windows)) * 1000) / 1000,
    note: atOrBelow
      ? 'at or below the plan rate with a rested key: every 429 is a false rejection'
      : `accepted before the first 429 ≈ the limit; accepted ÷ (limit × ${windows} windows) at most ${(windows + 1) / windows} (a missing limiter gives ${multiplier})`,
  };
}

/** Runs every plan's multipliers; plans in parallel, multipliers of a plan in turn with a window's rest between. */
export async function runPlanRates(
  url: string,
  windowSeconds: number,
  keys: readonly TargetKey[],
  profile: Profile,
  multipliers: readonly number[],
  ctx: ScenarioContext,
): Promise<ScenarioRun[]> {
  // A key whose runs would not fit the profile's request cap (e.g. generous Enterprise limits) cannot show its limiter.
  const feasible = keys.filter((key) =>
    multipliers.every((m) => planRateScenario(url, windowSeconds, key, profile, m).maxRequests < profile.requestCap),
  );
  for (const key of keys)
    if (!feasible.includes(key))
      ctx.progress.note(
        `${key.plan} key: limits too large for the ${profile.name} profile's request cap; no per-plan rate runs`,
      );
  const perPlan = await Promise.all(
    feasible.map(async (key) => {
      const results: ScenarioRun[] = [];
      for (const [i, m] of multipliers.entries()) {
        // A stop (a signal) ends the rest at once; the next runScenario then refuses to start.
        if (i > 0) await sleep(windowSeconds * 1000, undefined, { signal: ctx.stop?.signal }).catch(() => {});
        const spec = planRateScenario(url, windowSeconds, key, profile, m);
        results.push(await runScenario(spec, ctx, (rec) => limiterOutcome(spec, key, windowSeconds, rec)));
      }
      return results;
    }),
  );
  return perPlan.flat();
}
