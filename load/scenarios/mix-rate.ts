/**
 * The request mix at a fixed arrival rate (open loop) below the key's limit. autocannon paces in per-second bursts;
 * latency is service time (coordinated-omission correction off).
 */
import { mixGetCount, mixRequests, seedPets } from '../mix.js';
import type { Profile } from '../profiles.js';
import { type LoadScenario, runScenario, type ScenarioSpec } from '../run-scenario.js';
import type { TargetKey } from '../target.js';

/** A fraction of the mix key's rate (below its limit), capped at maxRate req/s (a generous Enterprise key would
 * otherwise ask for an open loop faster than any closed one). */
export interface MixRateParams {
  readonly fraction: number;
  readonly maxRate: number;
  readonly durationSeconds: number;
}

export const mixRate: LoadScenario<MixRateParams> = {
  kind: 'mix-rate',
  measures: ['latency'],
  params: { fraction: 'number', maxRate: 'number', durationSeconds: 'number' },
  plannedSeconds: (p) => p.durationSeconds,
  run: async (p, env) => [
    await runScenario(mixRateScenario(env.target.url, env.target.windowSeconds, env.mixKey, env.profile, p), env.ctx),
  ],
};

export function mixRateScenario(
  url: string,
  windowSeconds: number,
  key: TargetKey,
  profile: Profile,
  run: MixRateParams,
): ScenarioSpec {
  const basePath = new URL(url).pathname;
  // Rates below 1/s cannot be expressed in autocannon; the request bound keeps the window's total below the limit.
  const rate = Math.max(
    1,
    Math.min(run.maxRate, Math.floor((run.fraction * key.limits.requestsPerMinute) / windowSeconds)),
  );
  const perWindowBound =
    Math.floor(run.fraction * key.limits.requestsPerMinute) * Math.ceil(run.durationSeconds / windowSeconds);
  return {
    id: `mix-rate-${Math.round(run.fraction * 100)}pct`,
    title: `mix at ${rate} req/s (at most ${Math.round(run.fraction * 100)}% of the ${key.plan} rate)`,
    plan: key.plan,
    multiplier: run.fraction,
    url,
    connections: Math.min(10, rate),
    overallRate: rate,
    durationSeconds: run.durationSeconds,
    maxRequests: Math.max(1, Math.min(profile.requestCap, rate * run.durationSeconds, perWindowBound)),
    timeoutSeconds: profile.timeoutSeconds,
    sampleEvery: profile.sampleEvery,
    planLine: null,
    requests: async (tally) =>
      mixRequests(basePath, key.key, tally, await seedPets(url, key.key, mixGetCount(), profile.timeoutSeconds)),
  };
}
