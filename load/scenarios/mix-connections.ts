/**
 * Throughput and latency of the request mix at a fixed number of connections (closed loop: each connection sends its
 * next request when the previous answer arrives). Bounded to 90% of the key's window budget so a closed loop never
 * drives a staging key into 429s and a possible ban; the throughput is measured over the responses that came.
 */
import { mixGetCount, mixRequests, seedPets } from '../mix.js';
import type { ScenarioSpec } from '../run-scenario.js';
import type { Profile } from '../profiles.js';
import type { TargetKey } from '../target.js';

export function mixConnectionsScenario(
  url: string,
  key: TargetKey,
  profile: Profile,
  run: Profile['mixConnections'][number],
): ScenarioSpec {
  const basePath = new URL(url).pathname;
  return {
    id: `mix-connections-${run.connections}`,
    kind: 'mix-connections',
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
