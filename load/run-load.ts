/**
 * One load run of a profile against a target: the profile's scenario entries in order, a window's rest between two so
 * each starts with a rested key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { environment, startGeneratorHealth } from './environment.js';
import type { LoadRun, ScenarioResult } from './model.js';
import type { Profile } from './profiles.js';
import type { Progress } from './progress.js';
import type { LoadStop } from './run-scenario.js';
import type { LoadTarget, TargetKey } from './target.js';

/** The key with the most headroom carries the mix. */
export function mixKey(keys: readonly TargetKey[]): TargetKey {
  const key = [...keys].sort((a, b) => b.limits.requestsPerMinute - a.limits.requestsPerMinute)[0];
  if (!key) throw new Error('load: no key');
  return key;
}

/**
 * `stop` (a signal: cli/load-command.ts) ends the run early: the scenarios finished so far are reported in full, the
 * one under way as partial (run-scenario.ts LoadStop), the entries not begun as left out.
 */
export async function runLoad(
  profile: Profile,
  target: LoadTarget,
  progress: Progress,
  stop?: LoadStop,
): Promise<LoadRun> {
  const stopHealth = startGeneratorHealth();
  const runStartedAt = Date.now();
  const ctx = { runStartedAt, progress, ...(stop && { stop }) };
  const w = target.windowSeconds;
  const env = { target, mixKey: mixKey(target.keys), profile, ctx };
  const scenarios: ScenarioResult[] = [];
  progress.note(
    `${profile.name} profile against ${target.embedded ? 'the embedded reference server' : target.url} (rate window ${w}s)`,
  );
  const leftOut: string[] = [];
  for (const [i, e] of profile.scenarios.entries()) {
    // The rest between two entries ends at once on a stop.
    if (i > 0 && !stop?.signal.aborted)
      await sleep(w * 1000, undefined, stop ? { signal: stop.signal } : {}).catch(() => {});
    if (stop?.signal.aborted) {
      leftOut.push(`${e.kind}: did not start`);
      continue;
    }
    const from = stop?.ended.length ?? 0;
    try {
      scenarios.push(...(await e.run(env)));
    } catch (err) {
      if (!stop?.signal.aborted) throw err;
      // Stopped inside the entry: what it measured (finished scenarios, and the one cut short) is reported.
      await stop.settled();
      scenarios.push(...stop.ended.slice(from).map((r) => ({ ...r, kind: e.kind, measures: e.measures })));
      leftOut.push(`${e.kind}: the runs after the stop did not start`);
    }
  }
  for (const r of scenarios) if (r.partial) leftOut.unshift(`${r.title}: ${r.partial}`);
  return {
    profile: profile.name,
    target: { url: target.url, embedded: target.embedded, windowSeconds: w },
    startedAt: new Date(runStartedAt).toISOString(),
    finishedAt: new Date().toISOString(),
    environment: environment(),
    generator: [stopHealth()],
    scenarios,
    ...(stop?.reason && {
      interrupted: { signal: stop.signalName ?? 'unknown', message: stop.reason, leftOut },
    }),
  };
}
