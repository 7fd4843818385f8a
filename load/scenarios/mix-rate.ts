/**
 * The request mix at a fixed arrival rate (open loop) below the key's limit. autocannon paces in per-second bursts;
 * latency is service time (coordinated-omission correction off).
 */
import { mixGetCount, mixRequests, seedPets } from '../mix.js';
import type { ScenarioSpec } from '../run-scenario.js';
import type { Profile } from '../profiles.js';
import type { TargetKey } from '../target.js';

export function mixRateScenario(
  url: string,
  windowSeconds: number,
  key: TargetKey,
  profile: Profile,
  run: Profile['mixRates'][number],
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
    kind: 'mix-rate',
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
