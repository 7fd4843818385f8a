/**
 * The data a load run produces, as plain JSON-safe values. report.json (reports/report.schema.json) is this plus the
 * verdict; keep the two in step and bump REPORT_SCHEMA_VERSION on any incompatible change.
 */
import type { PlanName } from '../spec/contract.js';

export const REPORT_SCHEMA_VERSION = 1;

/** A built-in profile (smoke, nightly) or the name a profile file gives itself. */
export type ProfileName = string;
/** A scenario's kind is declared by its file in load/scenarios/ (e.g. mix-connections, mix-rate, plan-rate). */
export type ScenarioKind = string;
/**
 * What a scenario measures, so that the report's figures take each figure from the scenarios meant to give it:
 * latency (its 2xx latencies enter p50/p99), throughput (its achieved rate is a closed-loop capacity), limiter (it
 * judges a plan's rate limit).
 */
export type Measure = 'latency' | 'throughput' | 'limiter';
export const MEASURES: readonly Measure[] = ['latency', 'throughput', 'limiter'];
/** 429 is kept apart from other 4xx: fast rejections would otherwise pull the percentiles down. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '429' | '5xx';
export const STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '429', '5xx'];

/** Which latency a scenario shows: closed loop measures response time; open loop (a rate) measures service time
 * (autocannon's coordinated-omission correction is off, as it is mis-scaled under a rate). */
export type LatencyKind =
  | 'response time (closed loop)'
  | 'service time (open loop, no coordinated-omission correction)';

export interface LatencySummary {
  readonly count: number;
  readonly minMs: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  /** Compressed base64 HDR histogram of the latencies in microseconds (hdr-histogram-js). */
  readonly histogram: string;
}

export interface SecondBucket {
  /** Seconds since the scenario started. */
  readonly second: number;
  readonly statuses: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
}

export interface ConformanceExample {
  readonly checkId: string;
  readonly clause: string;
  readonly operation: string;
  readonly status: number;
  readonly message: string;
}

export interface ConformanceSummary {
  readonly responsesChecked: number;
  readonly bodiesValidated: number;
  readonly nonConformant: number;
  readonly byCheck: Record<string, number>;
  readonly examples: readonly ConformanceExample[];
}

export interface PlanLine {
  readonly plan: PlanName;
  readonly limitPerWindow: number;
  readonly windowSeconds: number;
  /** limitPerWindow / windowSeconds: the plan line drawn on the per-second chart. */
  readonly acceptedPerSecond: number;
}

export interface LimiterOutcome {
  readonly multiplier: number;
  readonly offered: number;
  readonly accepted: number;
  readonly rejected: number;
  /** 2xx answers before the first 429 (a rested key's first window). */
  readonly acceptedBeforeFirst429: number;
  /** 429s at or below the plan's rate (should be 0). */
  readonly falseRejections: number;
  /** Above the rate: acceptedBeforeFirst429 ÷ limit (a stricter limiter reads below 1); null at or below it. */
  readonly firstWindowRatio: number | null;
  /** Above the rate: accepted ÷ (limit × windows covered) (a missing limiter reads the multiplier); null at or below. */
  readonly acceptedRatio: number | null;
  readonly note: string;
}

export interface ScenarioResult {
  readonly id: string;
  readonly kind: ScenarioKind;
  /** Which figures this scenario feeds (absent in reports written before it existed: then it feeds only totals). */
  readonly measures?: readonly Measure[];
  readonly title: string;
  readonly plan: PlanName | null;
  readonly multiplier: number | null;
  readonly requested: {
    readonly connections: number;
    readonly overallRate: number | null;
    readonly durationSeconds: number;
    readonly maxRequests: number;
  };
  readonly latencyKind: LatencyKind;
  /** Seconds from the start of the run to the start of this scenario (aligns timelines across scenarios). */
  readonly startOffsetSeconds: number;
  readonly startedAt: string;
  readonly elapsedSeconds: number;
  readonly responses: number;
  readonly byStatus: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
  /** Connection errors and timeouts by message (e.g. "ECONNRESET", "request timed out"). */
  readonly errorMessages: Record<string, number>;
  /** Responses per second actually achieved, from first request to last response. */
  readonly achievedRate: number;
  readonly latency: Partial<Record<StatusClass, LatencySummary>>;
  readonly timeline: readonly SecondBucket[];
  readonly planLine: PlanLine | null;
  readonly limiter: LimiterOutcome | null;
  readonly conformance: ConformanceSummary;
  /** autocannon's raw results (skipAggregateResult: true), one per shard; JSON-safe, histograms base64 HDR. */
  readonly raw: readonly unknown[];
  /** Set when the run's stop (a signal) cut this scenario short: its figures cover only the time it ran. */
  readonly partial?: string;
  /** Set when the target stopped answering during this scenario (the scenario was stopped early): why. */
  readonly targetUnavailable?: string;
  /** How hard the generator worked during this scenario, one entry per shard. */
  readonly generator?: readonly ScenarioGenerator[];
  /** Set in a merged report when a shard could not generate its share: why its latency is not to be trusted. */
  readonly untrustworthy?: string;
}

/**
 * The generator during one scenario (absent in reports written before it existed). CPU is the whole process's over the
 * scenario's own wall time (per-plan runs side by side share it), and its peak over any one second: a night's average
 * over idle rests hides saturation.
 */
export interface ScenarioGenerator {
  /** The shard (1-based) that generated it, or null for a run that was not sharded. */
  readonly shard: number | null;
  readonly cpuPercent: number;
  readonly peakCpuPercent: number;
  readonly eventLoopDelayP99Ms: number;
  /** The rate this generator was asked for (its share), null for a closed loop. */
  readonly requestedRate: number | null;
  readonly achievedRate: number;
}

export interface Environment {
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly totalMemoryMb: number;
  readonly autocannon: string;
  readonly tool: string;
}

export interface GeneratorHealth {
  readonly wallSeconds: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** Client CPU over wall time, in percent of one core. */
  readonly cpuPercent: number;
  readonly peakRssMb: number;
  readonly eventLoopDelayP99Ms: number;
}

/** How the per-plan limiter scenarios are run when sharded: on the first shard only, or on every shard with its keys. */
export type LimiterShards = 'first' | 'all';
export const LIMITER_SHARDS: readonly LimiterShards[] = ['first', 'all'];

/** What a shard records of itself, so that a merge can refuse shards that do not belong together. */
export interface ShardInfo {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
  /** The profile's name and a digest of its whole definition: shards of one night share both. */
  readonly profile: string;
  readonly profileId: string;
  readonly limiterShards: LimiterShards;
  /** The start barrier (--start-at) the shard waited for, or null. */
  readonly startAt: string | null;
}

/** Why a night ended without a performance verdict. */
export interface Unavailable {
  readonly reason: string;
  /** The scenario during which the target went away, or null when it could not be reached at all (no load sent). */
  readonly scenario: string | null;
}

export interface LoadRun {
  readonly profile: ProfileName | 'merged';
  readonly target: { readonly url: string; readonly embedded: boolean; readonly windowSeconds: number };
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly environment: Environment;
  /** One entry per shard. */
  readonly generator: readonly GeneratorHealth[];
  readonly scenarios: readonly ScenarioResult[];
  /** Set when a signal stopped the run: which, after how long, and the scenarios it left out. */
  readonly interrupted?: Interrupted;
  /** Set when the target could not be reached, or went away: the night has no performance verdict. */
  readonly unavailable?: Unavailable;
  /** Set on a shard's run (load --shard I/N). */
  readonly shard?: ShardInfo;
  /** What this run set out to measure (its profile's scenarios that run here); absent in older reports: all. */
  readonly planned?: { readonly measures: readonly Measure[]; readonly aboveRate: boolean };
}

export interface Interrupted {
  readonly signal: string;
  /** "the run was interrupted by SIGINT after 4.2 s" */
  readonly message: string;
  /** Scenario entries (kind and title when known) that did not run. */
  readonly leftOut: readonly string[];
}
