/** Turns a load run into the report: key figures, verdict against thresholds and the median of earlier nights. */
import type { LoadRun } from '../load/model.js';
import { computeFigures } from './figures.js';
import { comparable } from './history.js';
import { historyTarget, type HistoryEntry, type LoadReport } from './model.js';
import { evaluate, type Thresholds } from './thresholds.js';

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
    // A night without its target is not judged: no threshold applies to what could not be measured.
    verdict: run.unavailable
      ? { pass: false, unavailable: true, reasons: [`target unavailable: ${run.unavailable.reason}`], checks: [] }
      : evaluate(figures, earlier, thresholds, run.planned),
    trend: earlier,
  };
}
