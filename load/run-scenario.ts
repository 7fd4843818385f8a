/**
 * Runs one bounded autocannon instance (time, requests, and a watchdog that stops it) and turns what the recorder and
 * the conformance tally saw into a ScenarioResult.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlanName } from '../spec/contract.js';
import { autocannon, type AcRawResult, type AcRequest } from './autocannon.js';
import { ConformanceTally } from './conformance.js';
import type { LatencyKind, LimiterOutcome, Measure, PlanLine, ScenarioKind, ScenarioResult } from './model.js';
import type { Profile } from './profiles.js';
import type { Progress } from './progress.js';
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
}

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
  /** Upper bound of an entry's wall time for a rate window (its own rests included, none after it). */
  plannedSeconds(params: P, windowSeconds: number): number;
  run(params: P, env: LoadEnv): Promise<ScenarioRun[]>;
}

/** One line of a profile: a scenario and its parameters. */
export interface ScenarioEntry {
  readonly kind: ScenarioKind;
  plannedSeconds(windowSeconds: number): number;
  run(env: LoadEnv): Promise<ScenarioResult[]>;
}

export function entry<P>(scenario: LoadScenario<P>, params: P): ScenarioEntry {
  return {
    kind: scenario.kind,
    plannedSeconds: (w) => scenario.plannedSeconds(params, w),
    // The scenario's declaration is the one source of kind and measures: whatever spec its run built, the results
    // carry what the scenario declares.
    run: async (env) =>
      (await scenario.run(params, env)).map((r) => ({ ...r, kind: scenario.kind, measures: scenario.measures })),
  };
}

export const SERVICE_TIME: LatencyKind = 'service time (open loop, no coordinated-omission correction)';
export const RESPONSE_TIME: LatencyKind = 'response time (closed loop)';

export async function runScenario(
  spec: ScenarioSpec,
  ctx: ScenarioContext,
  limiter?: (r: Recorder) => LimiterOutcome,
): Promise<ScenarioRun> {
  const tally = new ConformanceTally(spec.sampleEvery);
  // autocannon gives a connection with a request share of 0 no bound at all: never more connections than requests.
  const connections = Math.max(1, Math.min(spec.connections, spec.maxRequests, spec.overallRate ?? Infinity));
  const requests = await spec.requests(tally);
  const startedAt = Date.now();
  const recorder = new Recorder(startedAt, Math.ceil(spec.durationSeconds + spec.timeoutSeconds + 2));
  const instance = autocannon({
    url: spec.url,
    connections,
    duration: spec.durationSeconds,
    maxOverallRequests: spec.maxRequests,
    timeout: spec.timeoutSeconds,
    requests,
    skipAggregateResult: true,
    ...(spec.overallRate !== null ? { overallRate: spec.overallRate, ignoreCoordinatedOmission: true } : {}),
  });
  recorder.attach(instance);
  ctx.progress.scenarioStarted(spec.title, spec.durationSeconds);
  instance.on('tick', (t: { counter: number }) => ctx.progress.tick(t.counter));
  // Watchdog: autocannon stops itself at `duration`, but a hung target must not hold the run.
  const watchdog = new AbortController();
  void sleep((spec.durationSeconds + spec.timeoutSeconds + 5) * 1000, undefined, { signal: watchdog.signal }).then(
    () => instance.stop(),
    () => {},
  );
  let raw: AcRawResult;
  try {
    raw = await instance;
  } finally {
    watchdog.abort();
  }
  const conformance = tally.summary();
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
    achievedRate: recorder.achievedRate(spec.overallRate !== null, spec.durationSeconds),
    latency: recorder.latency(),
    timeline: recorder.timeline(),
    planLine: spec.planLine,
    limiter: limiter ? limiter(recorder) : null,
    conformance,
    raw: [JSON.parse(JSON.stringify(raw)) as unknown],
  };
  const p99 = result.latency['2xx']?.p99Ms;
  ctx.progress.scenarioDone(
    `${spec.title}: ${result.responses} responses, ${result.achievedRate} req/s, 2xx p99 ${p99 ?? '–'} ms, ` +
      `${result.byStatus['429'] ?? 0}×429, ${result.errors} errors, ${conformance.nonConformant} non-conformant`,
  );
  return result;
}
