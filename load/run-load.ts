/**
 * One load run of a profile against a target: the mix at fixed connections, the mix at fixed rates, then every plan's
 * key at multiples of its rate. Scenarios are separated by a window's rest so each starts with a rested key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { environment, startGeneratorHealth } from './environment.js';
import type { LoadRun, ScenarioResult } from './model.js';
import type { Profile } from './profiles.js';
import type { Progress } from './progress.js';
import { runScenario } from './run-scenario.js';
import { mixConnectionsScenario } from './scenarios/mix-connections.js';
import { mixRateScenario } from './scenarios/mix-rate.js';
import { runPlanRates } from './scenarios/plan-rate.js';
import type { LoadTarget, TargetKey } from './target.js';

/** The key with the most headroom carries the mix. */
export function mixKey(keys: readonly TargetKey[]): TargetKey {
  const key = [...keys].sort((a, b) => b.limits.requestsPerMinute - a.limits.requestsPerMinute)[0];
  if (!key) throw new Error('load: no key');
  return key;
}

export async function runLoad(profile: Profile, target: LoadTarget, progress: Progress): Promise<LoadRun> {
  const stopHealth = startGeneratorHealth();
  const runStartedAt = Date.now();
  const ctx = { runStartedAt, progress };
  const w = target.windowSeconds;
  const key = mixKey(target.keys);
  const scenarios: ScenarioResult[] = [];
  progress.note(
    `${profile.name} profile against ${target.embedded ? 'the embedded reference server' : target.url} (rate window ${w}s)`,
  );
  for (const run of profile.mixConnections) {
    scenarios.push(await runScenario(mixConnectionsScenario(target.url, key, profile, run), ctx));
    await sleep(w * 1000);
  }
  for (const run of profile.mixRates) {
    scenarios.push(await runScenario(mixRateScenario(target.url, w, key, profile, run), ctx));
    await sleep(w * 1000);
  }
  scenarios.push(...(await runPlanRates(target.url, w, target.keys, profile, ctx)));
  return {
    profile: profile.name,
    target: { url: target.url, embedded: target.embedded, windowSeconds: w },
    startedAt: new Date(runStartedAt).toISOString(),
    finishedAt: new Date().toISOString(),
    environment: environment(),
    generator: [stopHealth()],
    scenarios,
  };
}
