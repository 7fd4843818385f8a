/**
 * report.json: a load run plus its key figures, the verdict against the thresholds and the trend. Versioned by
 * schemaVersion; its JSON Schema is report.schema.json beside this file.
 */
import type { LoadRun } from '../load/model.js';

/** Client CPU (percent of one core, at a scenario's busiest second) from which a generator is its own bottleneck. */
export const GENERATOR_BOUND_CPU_PERCENT = 85;

/** What a merged report says about its shards. */
export interface MergeInfo {
  readonly profile: string;
  /** The shards' shared profile digest, or null when the reports were not shards (plain runs merged). */
  readonly profileId: string | null;
  readonly count: number;
  /** Latest shard start minus earliest. */
  readonly startSpreadSeconds: number;
  readonly shards: readonly {
    readonly index: number | null;
    readonly dir: string;
    readonly startedAt: string;
    /** Seconds after the earliest shard's start. */
    readonly startOffsetSeconds: number;
  }[];
  readonly warnings: readonly string[];
  /** Shard scenarios that could not generate their share. */
  readonly flagged: readonly ShardFlag[];
}

export interface ShardFlag {
  readonly shard: number | null;
  readonly scenario: string;
  readonly requestedRate: number | null;
  readonly achievedRate: number;
  readonly peakCpuPercent: number;
  /** Its client CPU was near a core: the shard was its own bottleneck. */
  readonly generatorBound: boolean;
  readonly reason: string;
}

export interface KeyFigures {
  /** 2xx latency over the mix scenarios, from their merged histograms (ms). */
  readonly p50LatencyMs: number | null;
  readonly p99LatencyMs: number | null;
  /** Best responses/s of the closed-loop mix scenarios. */
  readonly throughputRps: number | null;
  /** (connection errors + timeouts + 5xx) ÷ (responses + connection errors + timeouts), over all scenarios. */
  readonly errorRate: number;
  readonly nonConformant: number;
  readonly responses: number;
  readonly falseRejections: number;
  readonly minFirstWindowRatio: number | null;
  readonly maxAcceptedRatio: number | null;
}

export interface ThresholdCheck {
  readonly name: string;
  readonly value: number | null;
  readonly comparison: '<=' | '>=';
  readonly limit: number;
  /** 'absolute', or e.g. 'median of 5 earlier nights × 1.5'. */
  readonly basis: string;
  readonly pass: boolean;
}

export interface Verdict {
  readonly pass: boolean;
  /** The target could not be reached or went away: no threshold was judged (exit 3, not a regression). */
  readonly unavailable?: boolean;
  /** How many earlier nights the thresholds relative to the trend need (thresholds trend.minNights). */
  readonly relativeFromNights?: number;
  /**
   * Scenarios measuring latency were marked untrustworthy (a merged night's shard could not generate its share): the
   * latency checks do not pass, whatever the figures read.
   */
  readonly latencyUntrusted?: boolean;
  readonly reasons: readonly string[];
  readonly checks: readonly ThresholdCheck[];
}

export interface HistoryEntry {
  readonly createdAt: string;
  /** Report directory, relative to the output directory. */
  readonly dir: string;
  readonly profile: string;
  /** 'embedded' or the target URL: trends compare like with like. */
  readonly target: string;
  readonly pass: boolean;
  readonly figures: KeyFigures;
}

export interface LoadReport extends LoadRun {
  readonly schemaVersion: 1;
  readonly createdAt: string;
  /** Number of shards merged into this report (1 for a single run). */
  readonly shards: number;
  readonly figures: KeyFigures;
  readonly verdict: Verdict;
  /** Earlier nights of the same profile and target, oldest first (at most the thresholds' trend.nights). */
  readonly trend: readonly HistoryEntry[];
  /** Set on a merged report. */
  readonly merge?: MergeInfo;
}

export function historyTarget(run: Pick<LoadRun, 'target'>): string {
  return run.target.embedded ? 'embedded' : run.target.url;
}
