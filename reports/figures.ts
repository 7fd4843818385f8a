/**
 * The key figures of a run, computed from its scenarios (percentiles from merged histograms, never averaged). Each
 * figure comes from the scenarios that declare they measure it (ScenarioResult.measures), never from their kind.
 */
import { mergeHistograms } from '../load/histogram.js';
import type { Measure, ScenarioResult } from '../load/model.js';
import type { KeyFigures } from './model.js';

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

export function computeFigures(scenarios: readonly ScenarioResult[]): KeyFigures {
  const measuring = (m: Measure) => scenarios.filter((s) => s.measures?.includes(m) === true);
  const hists = measuring('latency').flatMap((s) => (s.latency['2xx'] ? [s.latency['2xx'].histogram] : []));
  const merged = hists.length > 0 ? mergeHistograms(hists) : null;
  const has = merged !== null && merged.totalCount > 0;
  const closed = measuring('throughput').filter((s) => s.responses > 0);
  let responses = 0;
  let failures = 0;
  let attempts = 0;
  for (const s of scenarios) {
    responses += s.responses;
    let fivexx = 0;
    for (const [status, n] of Object.entries(s.byStatus)) if (Number(status) >= 500) fivexx += n;
    failures += s.errors + fivexx;
    attempts += s.responses + s.errors;
  }
  const limiters = measuring('limiter').flatMap((s) => (s.limiter ? [s.limiter] : []));
  const first = limiters.flatMap((l) => (l.firstWindowRatio === null ? [] : [l.firstWindowRatio]));
  const accepted = limiters.flatMap((l) => (l.acceptedRatio === null ? [] : [l.acceptedRatio]));
  return {
    p50LatencyMs: has ? round(merged.getValueAtPercentile(50) / 1000) : null,
    p99LatencyMs: has ? round(merged.getValueAtPercentile(99) / 1000) : null,
    throughputRps: closed.length > 0 ? Math.max(...closed.map((s) => s.achievedRate)) : null,
    errorRate: attempts > 0 ? round(failures / attempts, 6) : 0,
    nonConformant: scenarios.reduce((n, s) => n + s.conformance.nonConformant, 0),
    responses,
    falseRejections: limiters.reduce((n, l) => n + l.falseRejections, 0),
    minFirstWindowRatio: first.length > 0 ? Math.min(...first) : null,
    maxAcceptedRatio: accepted.length > 0 ? Math.max(...accepted) : null,
  };
}
