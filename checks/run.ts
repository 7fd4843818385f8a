/**
 * Checks of the run as a whole, across suites: what the harness itself needs of a target to finish in its time budget.
 * They cite harness clauses (spec/clauses.yaml, level harness): rules of this tool, not requirements of the spec, so
 * they warn at most, never fail a run on their own.
 */
import { defineCheck, finding, type Check } from './check.js';
import type { Exchange } from '../http/exchange.js';

/**
 * A progressive slow-down: the latest window's median latency is both TREND_RATIO times the first window's and
 * TREND_MIN_GROWTH_MS above it, and the last three window medians rose in turn. A slow target (constant latency) or a
 * spike is no trend.
 */
export const TREND_RATIO = 4;
export const TREND_MIN_GROWTH_MS = 250;

export interface LatencyTrendEvidence {
  /** The first window of answers of the run. */
  readonly first: readonly Exchange[];
  /** The latest window of answers. */
  readonly recent: readonly Exchange[];
  /** The median latency of each window so far, in order (the latest last). */
  readonly medians: readonly number[];
  /** Answers seen so far. */
  readonly answers: number;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const r1 = (n: number) => Math.round(n * 10) / 10;

export const latencyTrend: Check<LatencyTrendEvidence> = defineCheck<LatencyTrendEvidence>({
  id: 'latency-trend',
  clauses: ['harness-time-budget'],
  levels: ['warning'],
  area: 'run',
  // One trend per run, whatever request showed it.
  signature: 'operation',
  title: 'The target does not keep slowing down answer after answer (the run stops rather than wait out its budget).',
  run: ({ first, recent, medians, answers }) => {
    if (first.length === 0 || recent.length === 0 || medians.length < 3) return [];
    const last = medians[medians.length - 1]!;
    const firstMedian = median(first.map((e) => e.durationMs));
    const rising = medians.slice(-3).every((m, i, a) => i === 0 || m > a[i - 1]!);
    if (!rising || last < firstMedian * TREND_RATIO || last - firstMedian < TREND_MIN_GROWTH_MS) return [];
    return [
      finding(
        latencyTrend,
        [first[0]!, recent[recent.length - 1]!],
        `the target slowed down progressively: median latency ${r1(firstMedian)} ms over the first ${first.length} answers, ` +
          `${r1(last)} ms over the last ${recent.length} (after ${answers})\nthe run stopped rather than spend its time budget waiting`,
        {
          operation: null,
          expected: `latency that does not keep growing (first median ${r1(firstMedian)} ms)`,
          actual: `last median ${r1(last)} ms`,
        },
      ),
    ];
  },
});

export const runChecks: readonly Check<LatencyTrendEvidence>[] = [latencyTrend];
