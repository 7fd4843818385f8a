/**
 * One load run of a profile against a target: the profile's scenario entries in order, a window's rest between two so
 * each starts with a rested key.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { environment, startGeneratorHealth } from './environment.js';
import type { LoadRun, ScenarioResult, ShardInfo, Unavailable } from './model.js';
import { profileId, type Profile } from './profiles.js';
import type { Progress } from './progress.js';
import { limiterRunsOn, type LoadStop, type ShardPlace } from './run-scenario.js';
import type { LoadTarget, TargetKey } from './target.js';

/** The key with the most headroom carries the mix. */
export function mixKey(keys: readonly TargetKey[]): TargetKey {
  const key = [...keys].sort((a, b) => b.limits.requestsPerMinute - a.limits.requestsPerMinute)[0];
  if (!key) throw new Error('load: no key');
  return key;
}

export interface RunLoadOptions {
  /** load --shard I/N: this process runs its share. */
  readonly shard?: ShardPlace | null;
  /** load --start-at: the instant the shards start together (waited for here). */
  readonly startAt?: Date | null;
  /** load --samples FILE. */
  readonly samplesFile?: string | null;
  /**
   * The run's stop (a signal: cli/load-command.ts) ends the run early: the scenarios finished so far are reported in
   * full, the one under way as partial (run-scenario.ts LoadStop), the entries not begun as left out.
   */
  readonly stop?: LoadStop;
}

/** Waits for the start barrier; an instant already past starts at once (the report shows the actual start). */
export async function waitForStart(
  startAt: Date | null | undefined,
  progress: Progress,
  stop?: LoadStop,
): Promise<void> {
  if (!startAt) return;
  const wait = startAt.getTime() - Date.now();
  if (wait <= 0) {
    progress.note(
      `start barrier ${startAt.toISOString()} already passed ${Math.round(-wait) / 1000} s ago: starting now`,
    );
    return;
  }
  progress.note(`waiting ${Math.round(wait / 100) / 10} s for the start barrier ${startAt.toISOString()}`);
  // A stop ends the wait at once (the run then starts no scenario).
  await sleep(wait, undefined, stop ? { signal: stop.signal } : {}).catch(() => {});
}

export async function runLoad(
  profile: Profile,
  target: LoadTarget,
  progress: Progress,
  options: RunLoadOptions = {},
): Promise<LoadRun> {
  const place = options.shard ?? null;
  const stop = options.stop;
  await waitForStart(options.startAt, progress, stop);
  const stopHealth = startGeneratorHealth();
  const runStartedAt = Date.now();
  const ctx = { runStartedAt, progress, shard: place, samplesFile: options.samplesFile ?? null, ...(stop && { stop }) };
  const w = target.windowSeconds;
  const env = { target, mixKey: mixKey(target.keys), profile, ctx };
  const scenarios: ScenarioResult[] = [];
  progress.note(
    `${profile.name} profile against ${target.embedded ? 'the embedded reference server' : target.url} (rate window ${w}s)`,
  );
  const leftOut: string[] = [];
  let unavailable: Unavailable | undefined;
  for (const [i, e] of profile.scenarios.entries()) {
    if (unavailable) break;
    // The rest between two entries ends at once on a stop.
    if (i > 0 && !stop?.signal.aborted)
      await sleep(w * 1000, undefined, stop ? { signal: stop.signal } : {}).catch(() => {});
    if (stop?.signal.aborted) {
      leftOut.push(`${e.kind}: did not start`);
      continue;
    }
    const from = stop?.ended.length ?? 0;
    let results: ScenarioResult[];
    try {
      results = await e.run(env);
    } catch (err) {
      if (!stop?.signal.aborted) throw err;
      // Stopped inside the entry: what it measured (finished scenarios, and the one cut short) is reported.
      await stop.settled();
      results = stop.ended.slice(from).map((r) => ({ ...r, kind: e.kind, measures: e.measures }));
      leftOut.push(`${e.kind}: the runs after the stop did not start`);
    }
    scenarios.push(...results);
    // A target that went away ends the night: what was measured is kept, the rest is not run.
    const gone = results.find((r) => r.targetUnavailable !== undefined);
    if (gone) {
      unavailable = { reason: `the target stopped answering: ${gone.targetUnavailable}`, scenario: gone.id };
      progress.note(`target unavailable during ${gone.title}: the remaining scenarios are not run`);
    }
  }
  for (const r of scenarios) if (r.partial) leftOut.unshift(`${r.title}: ${r.partial}`);
  const shard = shardInfo(profile, options);
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
    ...(unavailable ? { unavailable } : {}),
    ...(shard ? { shard } : {}),
    planned: plannedOf(profile, place),
  };
}

/**
 * What a profile's scenarios set out to measure on this shard: the per-plan runs are planned on the first shard only
 * (--limiter-shards first), and the checks above a plan's rate only when a multiplier above 1 is asked for.
 */
export function plannedOf(profile: Profile, place: ShardPlace | null): NonNullable<LoadRun['planned']> {
  const limiterHere = limiterRunsOn(place);
  const entries = profile.scenarios.filter((e) => limiterHere || !e.measures.includes('limiter'));
  const measures = [...new Set(entries.flatMap((e) => e.measures))];
  const aboveRate = entries.some(
    (e) =>
      e.measures.includes('limiter') &&
      ((e.params as { multipliers?: readonly number[] }).multipliers ?? [2]).some((m) => m > 1),
  );
  return { measures, aboveRate };
}

/** The run of a night whose target could not be reached at all: no scenario, no verdict, the reason. */
export function unreachableRun(
  profile: Profile,
  target: LoadTarget,
  reason: string,
  options: RunLoadOptions = {},
): LoadRun {
  const now = new Date().toISOString();
  const shard = shardInfo(profile, options);
  return {
    profile: profile.name,
    target: { url: target.url, embedded: target.embedded, windowSeconds: target.windowSeconds },
    startedAt: now,
    finishedAt: now,
    environment: environment(),
    generator: [startGeneratorHealth()()],
    scenarios: [],
    unavailable: { reason: reason.replace(/^target unavailable: /, ''), scenario: null },
    ...(shard ? { shard } : {}),
  };
}

function shardInfo(profile: Profile, options: RunLoadOptions): ShardInfo | undefined {
  const place = options.shard;
  if (!place) return undefined;
  return {
    index: place.index,
    count: place.count,
    profile: profile.name,
    profileId: profileId(profile),
    limiterShards: place.limiterShards,
    startAt: options.startAt?.toISOString() ?? null,
  };
}
