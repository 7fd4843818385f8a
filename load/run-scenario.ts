/**
 * Runs one bounded autocannon instance (time, requests, and a watchdog that stops it) and turns what the recorder and
 * the conformance tally saw into a ScenarioResult.
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlanName } from '../spec/contract.js';
import { autocannon, type AcRawResult, type AcRequest } from './autocannon.js';
import { ConformanceTally } from './conformance.js';
import type {
  LatencyKind,
  LimiterOutcome,
  LimiterShards,
  Measure,
  PlanLine,
  ScenarioKind,
  ScenarioResult,
} from './model.js';
import type { Profile } from './profiles.js';
import type { Progress } from './progress.js';
import { startScenarioHealth } from './environment.js';
import { Recorder } from './recorder.js';
import type { LoadTarget, TargetKey } from './target.js';

/** What one run of a scenario measured; its entry adds the kind and measures the scenario declares. */
export type ScenarioRun = Omit<ScenarioResult, 'kind' | 'measures'>;

export interface ScenarioSpec {
  readonly id: string;
  readonly title: string;
  readonly plan: PlanName | null;
  readonly multiplier: number | null;
  /** Base URL of the target (ending in /v1). */
  readonly url: string;
  readonly connections: number;
  /** Requests per second over all connections (open loop), or null for closed loop. */
  readonly overallRate: number | null;
  readonly durationSeconds: number;
  readonly maxRequests: number;
  readonly timeoutSeconds: number;
  /** Validate one body in this many. */
  readonly sampleEvery: number;
  readonly planLine: PlanLine | null;
  /** May set up first (the mix seeds the pets it gets); that set-up is not part of the measured run. */
  readonly requests: (tally: ConformanceTally) => AcRequest[] | Promise<AcRequest[]>;
}

export interface ScenarioContext {
  /** Epoch ms when the whole run started. */
  readonly runStartedAt: number;
  readonly progress: Progress;
  /** This process's place among the shards of a run (load --shard I/N); absent or null when not sharded. */
  readonly shard?: ShardPlace | null;
  /** load --samples FILE: every latency is appended there, one line each: scenario id, status class, µs (tab-separated). */
  readonly samplesFile?: string | null;
  /** The run's stop (a signal): none by default. */
  readonly stop?: LoadStop;
}

/**
 * How a load run stops early (issue 22: SIGINT, SIGTERM through cli/interrupt.ts). Once `stopNow` is called no
 * scenario starts (runScenario throws LoadStoppedError), and one under way stops its autocannon at once and returns
 * what it measured, marked partial. Every scenario that ended, partial or not, is kept here in the order it ended, so
 * that the run reports them even when the entry that ran them is cut short.
 */
export class LoadStop {
  private readonly controller = new AbortController();
  private why: string | null = null;
  private by: string | null = null;
  readonly ended: ScenarioRun[] = [];
  private readonly active = new Set<Promise<unknown>>();

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the run stopped, once it did. */
  get reason(): string | null {
    return this.why;
  }

  /** The signal that stopped the run, once it did. */
  get signalName(): string | null {
    return this.by;
  }

  stopNow(reason: string, signal: string): void {
    this.why ??= reason;
    this.by ??= signal;
    this.controller.abort();
  }

  /** Tracks a scenario under way until it ends. */
  track<T>(p: Promise<T>): Promise<T> {
    this.active.add(p);
    const done = () => this.active.delete(p);
    p.then(done, done);
    return p;
  }

  /** Resolves once every scenario under way has ended (their partial results are then in `ended`). */
  async settled(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active]);
  }
}

/** Thrown by runScenario when the run has stopped before the scenario could start. */
class LoadStoppedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'LoadStoppedError';
  }
}

export interface ShardPlace {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
  readonly limiterShards: LimiterShards;
}

/**
 * Whether the per-plan (limiter) runs go on this shard: on every shard unsharded or with --limiter-shards all, else on
 * the first only (the limits are per key: one key's limiter is judged whole).
 */
export function limiterRunsOn(place: ShardPlace | null): boolean {
  return !place || place.limiterShards === 'all' || place.index === 1;
}

/** Shard `index` (1-based) of `count`'s share of a whole quantity: the shares add up to it exactly (at least 1 each). */
export function shareOf(total: number, place: Pick<ShardPlace, 'index' | 'count'> | null): number {
  if (!place) return total;
  const base = Math.floor(total / place.count);
  return Math.max(1, base + (place.index - 1 < total % place.count ? 1 : 0));
}

/** A scenario's spec as one shard runs it: its share of the rate, the connections and the request bound. */
export function shardSpec(spec: ScenarioSpec, place: ShardPlace | null): ScenarioSpec {
  if (!place) return spec;
  return {
    ...spec,
    connections: shareOf(spec.connections, place),
    overallRate: spec.overallRate === null ? null : shareOf(spec.overallRate, place),
    maxRequests: shareOf(spec.maxRequests, place),
  };
}

function writeSamples(file: string, id: string, samples: ReadonlyMap<string, readonly number[]>): void {
  for (const [cls, list] of samples) {
    // In slices, so a long scenario's samples never make one huge string.
    for (let i = 0; i < list.length; i += 50_000)
      appendFileSync(
        file,
        list
          .slice(i, i + 50_000)
          .map((us) => `${id}\t${cls}\t${us}\n`)
          .join(''),
      );
  }
}

/** With no response for this long while requests fail, the target is taken as gone (the scenario stops). */
export const UNAVAILABLE_AFTER_SECONDS = 3;

/** What every scenario of a load run is given. */
export interface LoadEnv {
  readonly target: LoadTarget;
  /** The key with the most headroom: it carries the request mix. */
  readonly mixKey: TargetKey;
  readonly profile: Profile;
  readonly ctx: ScenarioContext;
}

/**
 * A kind of load scenario, declared in its own file under load/scenarios/: what it measures, how long an entry of it
 * may take, and how it runs. A profile lists entries of these; nothing else needs to know the kind.
 */
export interface LoadScenario<P> {
  readonly kind: ScenarioKind;
  readonly measures: readonly Measure[];
  /** Each parameter's type, so that a profile file is checked before anything runs. */
  readonly params: Readonly<Record<keyof P & string, 'number' | 'numbers'>>;
  /** Upper bound of an entry's wall time for a rate window (its own rests included, none after it). */
  plannedSeconds(params: P, windowSeconds: number): number;
  run(params: P, env: LoadEnv): Promise<ScenarioRun[]>;
}

/** One line of a profile: a scenario and its parameters. */
export interface ScenarioEntry {
  readonly kind: ScenarioKind;
  readonly measures: readonly Measure[];
  /** The parameters, as given (part of the profile's identity). */
  readonly params: unknown;
  plannedSeconds(windowSeconds: number): number;
  run(env: LoadEnv): Promise<ScenarioResult[]>;
}

export function entry<P>(scenario: LoadScenario<P>, params: P): ScenarioEntry {
  return {
    kind: scenario.kind,
    measures: scenario.measures,
    params,
    plannedSeconds: (w) => scenario.plannedSeconds(params, w),
    // The scenario's declaration is the one source of kind and measures: whatever spec its run built, the results
    // carry what the scenario declares.
    run: async (env) =>
      (await scenario.run(params, env)).map((r) => ({ ...r, kind: scenario.kind, measures: scenario.measures })),
  };
}

export const SERVICE_TIME: LatencyKind = 'service time (open loop, no coordinated-omission correction)';
export const RESPONSE_TIME: LatencyKind = 'response time (closed loop)';

/**
 * Runs one scenario. A scenario without a limiter judgement runs its shard's share (shardSpec); a per-plan limiter run
 * drives its own key at the plan's rate, whole, on whichever shards run it. The run's stop (a signal) tracks it.
 */
export function runScenario(
  whole: ScenarioSpec,
  ctx: ScenarioContext,
  limiter?: (r: Recorder) => LimiterOutcome,
): Promise<ScenarioRun> {
  const run = measure(limiter ? whole : shardSpec(whole, ctx.shard ?? null), ctx, limiter);
  return ctx.stop ? ctx.stop.track(run) : run;
}

async function measure(
  spec: ScenarioSpec,
  ctx: ScenarioContext,
  limiter?: (r: Recorder) => LimiterOutcome,
): Promise<ScenarioRun> {
  const stop = ctx.stop;
  if (stop?.signal.aborted) throw new LoadStoppedError(stop.reason ?? 'stopped');
  const tally = new ConformanceTally(spec.sampleEvery);
  // autocannon gives a connection with a request share of 0 no bound at all: never more connections than requests.
  const connections = Math.max(1, Math.min(spec.connections, spec.maxRequests, spec.overallRate ?? Infinity));
  const requests = await spec.requests(tally);
  if (stop?.signal.aborted) throw new LoadStoppedError(stop.reason ?? 'stopped');
  const startedAt = Date.now();
  const recorder = new Recorder(
    startedAt,
    Math.ceil(spec.durationSeconds + spec.timeoutSeconds + 2),
    Date.now,
    Boolean(ctx.samplesFile),
  );
  const instance = autocannon({
    url: spec.url,
    connections,
    // Under a rate, the request bound ends the run (rate × duration at most): a second of slack lets the last
    // second's burst be answered on a busy machine instead of being cut by the timer.
    duration: spec.durationSeconds + (spec.overallRate !== null ? 1 : 0),
    maxOverallRequests: spec.maxRequests,
    timeout: spec.timeoutSeconds,
    requests,
    skipAggregateResult: true,
    ...(spec.overallRate !== null ? { overallRate: spec.overallRate, ignoreCoordinatedOmission: true } : {}),
  });
  recorder.attach(instance);
  ctx.progress.scenarioStarted(spec.title, spec.durationSeconds);
  const health = startScenarioHealth();
  let unavailable: string | undefined;
  instance.on('tick', (t: { counter: number }) => {
    ctx.progress.tick(t.counter);
    health.tick();
    // A target that went away: requests keep failing and nothing answers. Stop rather than count errors all night.
    const silent = recorder.silentFailingSeconds();
    if (unavailable === undefined && silent >= UNAVAILABLE_AFTER_SECONDS) {
      const [what] = Object.entries(recorder.errorMessages).sort((a, b) => b[1] - a[1])[0] ?? ['errors'];
      unavailable = `no answer for ${Math.round(silent)} s while requests failed (${what}) after ${recorder.responses} responses`;
      ctx.progress.note(`${spec.title}: target unavailable: ${unavailable}; stopping`);
      instance.stop();
    }
  });
  // Watchdog: autocannon stops itself at `duration`, but a hung target must not hold the run.
  const watchdog = new AbortController();
  void sleep((spec.durationSeconds + spec.timeoutSeconds + 5) * 1000, undefined, { signal: watchdog.signal }).then(
    () => instance.stop(),
    () => {},
  );
  // A stop (issue 22) ends autocannon at once; what it measured so far is the scenario's partial result.
  let cutAt: number | null = null;
  const onStop = () => {
    cutAt = Date.now();
    instance.stop();
  };
  stop?.signal.addEventListener('abort', onStop, { once: true });
  let raw: AcRawResult;
  try {
    raw = await instance;
  } finally {
    watchdog.abort();
    stop?.signal.removeEventListener('abort', onStop);
  }
  if (ctx.samplesFile && recorder.samples) writeSamples(ctx.samplesFile, spec.id, recorder.samples);
  const conformance = tally.summary();
  const achievedRate = recorder.achievedRate(spec.overallRate !== null, spec.durationSeconds);
  const result: ScenarioRun = {
    id: spec.id,
    title: spec.title,
    plan: spec.plan,
    multiplier: spec.multiplier,
    requested: {
      connections,
      overallRate: spec.overallRate,
      durationSeconds: spec.durationSeconds,
      maxRequests: spec.maxRequests,
    },
    latencyKind: spec.overallRate !== null ? SERVICE_TIME : RESPONSE_TIME,
    startOffsetSeconds: Math.round((startedAt - ctx.runStartedAt) / 10) / 100,
    startedAt: new Date(startedAt).toISOString(),
    elapsedSeconds: Math.round((Date.now() - startedAt) / 10) / 100,
    responses: recorder.responses,
    byStatus: { ...recorder.byStatus },
    errors: recorder.errors,
    timeouts: recorder.timeouts,
    errorMessages: { ...recorder.errorMessages },
    achievedRate,
    latency: recorder.latency(),
    timeline: recorder.timeline(),
    planLine: spec.planLine,
    limiter: limiter ? limiter(recorder) : null,
    conformance,
    raw: [JSON.parse(JSON.stringify(raw)) as unknown],
    ...(cutAt !== null
      ? { partial: `cut short after ${Math.round((cutAt - startedAt) / 100) / 10} s: ${stop!.reason}` }
      : {}),
    ...(unavailable !== undefined ? { targetUnavailable: unavailable } : {}),
    generator: [{ shard: ctx.shard?.index ?? null, ...health.stop(), requestedRate: spec.overallRate, achievedRate }],
  };
  stop?.ended.push(result);
  const p99 = result.latency['2xx']?.p99Ms;
  ctx.progress.scenarioDone(
    `${spec.title}: ${result.responses} responses, ${result.achievedRate} req/s, 2xx p99 ${p99 ?? '–'} ms, ` +
      `${result.byStatus['429'] ?? 0}×429, ${result.errors} errors, ${conformance.nonConformant} non-conformant`,
  );
  return result;
}
