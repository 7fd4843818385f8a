/**
 * Throughput and latency of the request mix at a fixed number of connections (closed loop: each connection sends its
 * next request when the previous answer arrives). Bounded to 90% of the key's window budget so a closed loop never
 * drives a staging key into 429s and a possible ban; the throughput is measured over the responses that came.
 */
import { mixGetCount, mixRequests, seedPets } from '../mix.js';
import type { Profile } from '../profiles.js';
import { type LoadScenario, runScenario, type ScenarioSpec } from '../run-scenario.js';
import type { TargetKey } from '../target.js';

export interface MixConnectionsParams {
  readonly connections: number;
  readonly durationSeconds: number;
}

export const mixConnections: LoadScenario<MixConnectionsParams> = {
  kind: 'mix-connections',
  measures: ['latency', 'throughput'],
  params: { connections: 'number', durationSeconds: 'number' },
  plannedSeconds: (p) => p.durationSeconds,
  run: async (p, env) => [
    await runScenario(mixConnectionsScenario(env.target.url, env.mixKey, env.profile, p), env.ctx),
  ],
};

export function mixConnectionsScenario(
  url: string,
  key: TargetKey,
  profile: Profile,
  run: MixConnectionsParams,
): ScenarioSpec {
  const basePath = new URL(url).pathname;
  return {
    id: `mix-connections-${run.connections}`,
    title: `mix, ${run.connections} connection${run.connections === 1 ? '' : 's'} (${key.plan} key)`,
    plan: key.plan,
    multiplier: null,
    url,
    connections: run.connections,
    overallRate: null,
    durationSeconds: run.durationSeconds,
    maxRequests: Math.max(1, Math.min(profile.requestCap, Math.floor(0.9 * key.limits.requestsPerMinute))),
    timeoutSeconds: profile.timeoutSeconds,
    sampleEvery: profile.sampleEvery,
    planLine: null,
    requests: async (tally) =>
      mixRequests(basePath, key.key, tally, await seedPets(url, key.key, mixGetCount(), profile.timeoutSeconds)),
  };
}
