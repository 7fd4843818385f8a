/**
 * One load run of a profile against a target: the profile's scenario entries in order, a window's rest between two so
 * each starts with a rested key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { environment, startGeneratorHealth } from './environment.js';
import type { LoadRun, ScenarioResult } from './model.js';
import type { Profile } from './profiles.js';
import type { Progress } from './progress.js';
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
  const env = { target, mixKey: mixKey(target.keys), profile, ctx };
  const scenarios: ScenarioResult[] = [];
  progress.note(
    `${profile.name} profile against ${target.embedded ? 'the embedded reference server' : target.url} (rate window ${w}s)`,
  );
  for (const [i, e] of profile.scenarios.entries()) {
    if (i > 0) await sleep(w * 1000);
    scenarios.push(...(await e.run(env)));
  }
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
