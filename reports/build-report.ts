/** Turns a load run into the report: key figures, verdict against thresholds and the median of earlier nights. */
import type { LoadRun } from '../load/model.js';
import { computeFigures } from './figures.js';
import { comparable } from './history.js';
import { historyTarget, type HistoryEntry, type LoadReport, type Verdict } from './model.js';
import { evaluate, measureOf, type Thresholds } from './thresholds.js';

export function buildReport(
  run: LoadRun,
  thresholds: Thresholds,
  history: readonly HistoryEntry[],
  createdAt = new Date(),
): LoadReport {
  const figures = computeFigures(run.scenarios);
  const earlier = comparable(history, run.profile, historyTarget(run)).slice(-thresholds.trend.nights);
  return {
    schemaVersion: 1,
    createdAt: createdAt.toISOString(),
    shards: run.generator.length,
    ...run,
    figures,
    // A night without its target is not judged: no threshold applies to what could not be measured. An interrupted
    // one never passes.
    verdict: run.unavailable
      ? { pass: false, unavailable: true, reasons: [`target unavailable: ${run.unavailable.reason}`], checks: [] }
      : interruptedVerdict(run, untrustedLatency(run, evaluate(figures, earlier, thresholds, run.planned))),
    trend: earlier,
  };
}

/**
 * Latency measured by a generator that could not produce its share (a merged night's flagged shard,
 * reports/merge.ts) measures the generator: no latency check passes on it, and the reasons say why first.
 */
function untrustedLatency(run: LoadRun, verdict: Verdict): Verdict {
  const untrusted = run.scenarios.filter((s) => s.untrustworthy && s.measures?.includes('latency'));
  if (untrusted.length === 0) return verdict;
  return {
    ...verdict,
    pass: false,
    latencyUntrusted: true,
    checks: verdict.checks.map((c) => (measureOf(c.name) === 'latency' ? { ...c, pass: false } : c)),
    reasons: [
      `latency not to be trusted: ${untrusted.map((s) => `${s.title}: ${s.untrustworthy}`).join('; ')}`,
      ...verdict.reasons,
    ],
  };
}

/** An interrupted run never passes: its figures cover only what ran; the reasons say so first, and what it left out. */
function interruptedVerdict(run: LoadRun, verdict: Verdict): Verdict {
  if (!run.interrupted) return verdict;
  return {
    ...verdict,
    pass: false,
    reasons: [
      `${run.interrupted.message}: the figures cover only what ran`,
      ...run.interrupted.leftOut.map((l) => `left out: ${l}`),
      ...verdict.reasons,
    ],
  };
}
