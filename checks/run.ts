/**
 * Checks of the run as a whole, across suites: what the harness itself needs of a target to finish in its time budget.
 * They cite harness clauses (spec/clauses.yaml, level harness): rules of this tool, not requirements of the spec, so
 * they warn at most, never fail a run on their own.
 */
import { defineCheck, finding, type Check } from './check.js';
import type { Exchange } from '../http/exchange.js';

/**
 * A progressive slow-down is established over time, like with like: one class of request (runner/trend.ts) whose
 * successive windows' medians rose in turn for TREND_SPAN_MS of wall time at least, over TREND_MIN_WINDOWS windows,
 * up to a latest median both TREND_RATIO times the class's earliest and TREND_MIN_GROWTH_MS above it. A slow target
 * (constant latency), a spike, or a host stalled for a few seconds is no trend. It is then confirmed by a look after
 * a rest: a target that answers quickly again was busy, not slowing.
 */
export const TREND_RATIO = 2;
export const TREND_MIN_GROWTH_MS = 250;
export const TREND_SPAN_MS = 20_000;
export const TREND_MIN_WINDOWS = 4;
/**
 * The run's own event loop lagging this long while the answers slowed, and at least half as long as they grew (a
 * stalled loop reads an answer late by as much as it stalled, no more), names the host, not the target.
 */
export const HOST_LAG_MS = 100;

/** One window of answers of one class of request. */
export interface TrendWindow {
  /** When its first and last answers came (epoch ms). */
  readonly startAt: number;
  readonly endAt: number;
  readonly medianMs: number;
  readonly answers: number;
}

/** The look after a rest: every request of the run held back for `restMs`, then a few ordinary ones sent alone. */
export interface RestLook {
  readonly restMs: number;
  /** The class of the requests sent, and its earliest median (the slowing class's when it had none of its own). */
  readonly requestClass: string;
  readonly baselineMs: number;
  /** Latencies of its answers (a 429 or a transport error is no latency to compare). */
  readonly latenciesMs: readonly number[];
}

export interface LatencyTrendEvidence {
  /** The class of request that slowed down: method, path template and status (runner/trend.ts `requestClass`). */
  readonly requestClass: string;
  /** Its earliest median: its first answers', or a lower window's since. */
  readonly baselineMs: number;
  /** Its successive windows, in order (the latest last). */
  readonly windows: readonly TrendWindow[];
  /** Its first and latest answers. */
  readonly first: Exchange;
  readonly last: Exchange;
  /** Its answers so far. */
  readonly answers: number;
  /** The look after a rest; null when none could be made (the run stopped, nothing comparable came back). */
  readonly rest: RestLook | null;
  /** The host: the longest lag of the run's own event loop over the windows (ms; null: not measured), and whether the
   * target is the embedded server (on this very host). */
  readonly host: { readonly lagMs: number | null; readonly embedded: boolean };
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Whether `latestMs` is slowed down from `baselineMs`: a ratio and an absolute growth both. */
export const slowedFrom = (baselineMs: number, latestMs: number): boolean =>
  latestMs >= baselineMs * TREND_RATIO && latestMs - baselineMs >= TREND_MIN_GROWTH_MS;

/** The windows at the end whose medians rose in turn (the latest window alone when it did not rise). */
export function risingWindows(windows: readonly TrendWindow[]): readonly TrendWindow[] {
  let j = windows.length - 1;
  while (j > 0 && windows[j]!.medianMs > windows[j - 1]!.medianMs) j--;
  return windows.slice(Math.max(0, j));
}

/** Whether the growth held: the rising windows span TREND_SPAN_MS and TREND_MIN_WINDOWS, up to a slowed median. */
export function growthHeld(baselineMs: number, windows: readonly TrendWindow[]): boolean {
  const rising = risingWindows(windows);
  const last = rising[rising.length - 1];
  if (!last || rising.length < TREND_MIN_WINDOWS) return false;
  return last.endAt - rising[0]!.startAt >= TREND_SPAN_MS && slowedFrom(baselineMs, last.medianMs);
}

/** What the look after a rest says: still slow (true), quick again (false), or nothing to go by (null). */
export function stillSlow(rest: RestLook | null): boolean | null {
  if (!rest || rest.latenciesMs.length === 0) return null;
  return slowedFrom(rest.baselineMs, median(rest.latenciesMs));
}

/** Whether the evidence stops the run: growth that held, confirmed after a rest. */
export const stopsRun = (ev: LatencyTrendEvidence): boolean =>
  growthHeld(ev.baselineMs, ev.windows) && stillSlow(ev.rest) === true;

const r1 = (n: number) => Math.round(n * 10) / 10;
const secs = (ms: number) => `${r1(ms / 1000)} s`;

/** Who slowed down, as the message says it: the host when the run's own loop lagged or the target runs on it. */
function hostCause(host: LatencyTrendEvidence['host'], growthMs: number): string | null {
  if (host.embedded) return 'the target is the embedded server, on this host: the host slowed down, not a target';
  if (host.lagMs !== null && host.lagMs >= HOST_LAG_MS && host.lagMs >= growthMs / 2)
    return `this host is the likelier cause: the run's own event loop lagged up to ${Math.round(host.lagMs)} ms meanwhile`;
  return null;
}

export const latencyTrend: Check<LatencyTrendEvidence, 'latency-trend'> = defineCheck({
  id: 'latency-trend',
  clauses: ['harness-time-budget'],
  // A target that answered quickly again after a rest, on a host that explains the growth, did nothing: an observation.
  levels: ['warning', 'observation'],
  causes: ['latency'],
  area: 'run',
  // One trend per run, whatever request showed it.
  signature: 'operation',
  title:
    'The target does not keep slowing down over time (confirmed after a rest, the run stops rather than wait out its budget).',
  // The run hands it only a class of requests whose latency kept growing (runner/trend.ts).
  appliesTo: { what: 'a class of requests whose latency kept growing for 20 s', test: () => true },
  run: (ev) => {
    const { baselineMs, windows, rest, requestClass: cls } = ev;
    if (!growthHeld(baselineMs, windows)) return [];
    const still = stillSlow(rest);
    if (still === null || rest === null) return [];
    const rising = risingWindows(windows);
    const last = rising[rising.length - 1]!;
    const spanMs = last.endAt - rising[0]!.startAt;
    const looked = r1(median(rest.latenciesMs));
    // The cause says the class and its first and last medians; around it, how long and over how many answers it rose.
    const rose = `medians over its first answers and its last ${last.answers} of ${ev.answers}, rising over ${rising.length} windows for ${secs(spanMs)}`;
    const host = hostCause(ev.host, last.medianMs - baselineMs);
    const after = `after a ${secs(rest.restMs)} rest, ${rest.latenciesMs.length} ${rest.requestClass} answered in ${looked} ms (median)`;
    const said = still
      ? {
          on: `progressively (${rose}); ${after}, still slow${host ? `; ${host}` : ': the target is slowing down'}`,
          because: 'the run stopped rather than spend its time budget waiting',
        }
      : {
          on: `(${rose}) but ${after}: busy, not slowing${host ? `; ${host}` : ''}`,
          because: 'the run went on',
        };
    return [
      finding(latencyTrend, [ev.first, ev.last], said, {
        operation: null,
        expected: `latency that does not keep growing (first median ${r1(baselineMs)} ms)`,
        actual: `last median ${r1(last.medianMs)} ms; ${looked} ms after a rest`,
        causes: [{ kind: 'latency', requestClass: cls, baselineMs, latestMs: last.medianMs }],
        ...(!still && host !== null && { level: 'observation' as const }),
      }),
    ];
  },
});

export const runChecks = [latencyTrend];
