/**
 * Progressive slow-down, established over time and like with like (issue 28). Each answer joins its class of request
 * (method, path template, status: `requestClass`); oversized and deeply nested bodies, a deliberate burst's requests
 * and transport failures join none (their latencies say nothing of a trend). Each class gathers its answers in windows
 * of TREND_WINDOW_MS (TREND_WINDOW_ANSWERS at least); once a class's windows show growth that held (checks/run.ts
 * `growthHeld`: 20 s of rising medians at least, up to twice its earliest and 250 ms above), the request path rests
 * the run and looks again (runner/request-path.ts), and `settle` judges what the look saw: still slow stops the run
 * with a `latency-trend` warning; quick again is a warning of a busy target or host, and the run goes on (the windows
 * start over: another 20 s must hold). Times are the exchanges' own (when each was answered), never a later clock.
 */
import type { Finding } from '../checks/check.js';
import { opLabel } from '../checks/facts.js';
import {
  growthHeld,
  type LatencyTrendEvidence,
  latencyTrend,
  median,
  type RestLook,
  stopsRun,
  type TrendWindow,
} from '../checks/run.js';
import type { Exchange } from '../http/exchange.js';
import { eventLoopLag, type LagSource } from './lag.js';

/** A class's window closes once it spans this long and holds this many answers. */
export const TREND_WINDOW_MS = 5_000;
export const TREND_WINDOW_ANSWERS = 5;
/** The first answers of a class whose median is its first baseline. */
export const TREND_BASELINE_ANSWERS = 15;
/** Bodies beyond this size, or nested deeper, are judged by no trend: their latencies are not comparable. */
export const OVERSIZED_BYTES = 64 * 1024;
export const DEEP_NESTING = 64;
/** Windows kept per class (the rising ones are the latest). */
const KEPT_WINDOWS = 64;

/** How deep `[` and `{` nest in a JSON text, strings skipped; stops counting past `cap`. */
export function nestingDepth(bytes: Uint8Array, cap = DEEP_NESTING): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
      if (max > cap) return max;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The class of request an answer is compared within (`GET /pets 200`), or null when it joins no trend. */
export function requestClass(ex: Exchange): string | null {
  const res = ex.response;
  if (!res || res.truncated || res.body.length > OVERSIZED_BYTES) return null;
  const body = ex.request.body;
  if (body && (body.length > OVERSIZED_BYTES || nestingDepth(body) > DEEP_NESTING)) return null;
  return `${opLabel(ex)} ${res.status}`;
}

/** When an exchange was answered (epoch ms): its own time, not the clock of whoever reads it. */
const answeredAt = (ex: Exchange): number => ex.startedAt + ex.durationMs;

interface ClassState {
  readonly first: Exchange;
  last: Exchange;
  answers: number;
  readonly firstLatencies: number[];
  /** The class's earliest median: its first answers', or a lower window's since; null until it has them. */
  baseline: number | null;
  windows: TrendWindow[];
  current: { startAt: number; endAt: number; latencies: number[] } | null;
}

/** Growth that held in one class: what the request path looks again at, after a rest. */
export interface Slowing {
  readonly evidence: Omit<LatencyTrendEvidence, 'rest' | 'host'>;
}

export interface TrendOptions {
  /** The run's own event-loop lag (default: this thread's, perf_hooks). */
  readonly lag?: LagSource;
  /** The target is the embedded server, on this host. */
  readonly embedded?: boolean;
}

export class LatencyTrend {
  private readonly classes = new Map<string, ClassState>();
  private readonly lag: LagSource;
  private readonly embedded: boolean;
  /** A slowing is being looked at again: no other is raised meanwhile. */
  private looking = false;
  private busyReported = false;
  private stopped = false;

  constructor(options: TrendOptions = {}) {
    this.lag = options.lag ?? eventLoopLag();
    this.embedded = options.embedded === true;
  }

  /**
   * Records an answer; returns the slowing this answer established (growth that held in its class), for the request
   * path to look at again after a rest; null otherwise. `burst`: one of a deliberate burst (its latency includes its
   * own queueing), recorded by no class.
   */
  add(ex: Exchange, burst = false): Slowing | null {
    this.lag.tick();
    if (burst || this.stopped) return null;
    const cls = requestClass(ex);
    if (cls === null) return null;
    const at = answeredAt(ex);
    if (!Number.isFinite(at)) return null;
    let s = this.classes.get(cls);
    if (!s) {
      s = { first: ex, last: ex, answers: 0, firstLatencies: [], baseline: null, windows: [], current: null };
      this.classes.set(cls, s);
    }
    s.last = ex;
    s.answers++;
    if (s.firstLatencies.length < TREND_BASELINE_ANSWERS) {
      s.firstLatencies.push(ex.durationMs);
      if (s.firstLatencies.length === TREND_BASELINE_ANSWERS) s.baseline = lower(s.baseline, median(s.firstLatencies));
    }
    const w = s.current;
    if (w && at - w.startAt >= TREND_WINDOW_MS && w.latencies.length >= TREND_WINDOW_ANSWERS) {
      const closed = { startAt: w.startAt, endAt: w.endAt, medianMs: median(w.latencies), answers: w.latencies.length };
      s.windows.push(closed);
      if (s.windows.length > KEPT_WINDOWS) s.windows.shift();
      if (s.baseline !== null) s.baseline = lower(s.baseline, closed.medianMs);
      const established = this.established(cls, s);
      s.current = { startAt: at, endAt: at, latencies: [ex.durationMs] };
      if (established) return established;
    } else if (w) {
      w.latencies.push(ex.durationMs);
      w.endAt = Math.max(w.endAt, at);
    } else s.current = { startAt: at, endAt: at, latencies: [ex.durationMs] };
    return null;
  }

  private established(cls: string, s: ClassState): Slowing | null {
    if (this.looking || s.baseline === null || !growthHeld(s.baseline, s.windows)) return null;
    this.looking = true;
    return {
      evidence: {
        requestClass: cls,
        baselineMs: s.baseline,
        windows: [...s.windows],
        first: s.first,
        last: s.last,
        answers: s.answers,
      },
    };
  }

  /** The earliest median of the class `ex` belongs to, when it has one. */
  baselineOf(ex: Exchange): number | null {
    const cls = requestClass(ex);
    return cls === null ? null : (this.classes.get(cls)?.baseline ?? null);
  }

  /**
   * Judges a slowing with the look after a rest: the `latency-trend` finding when there is one (an observation when
   * the target was quick again and the host explains the growth), and whether it stops the run (growth confirmed:
   * still slow after the rest). Quick again: the run goes on, every class's windows start
   * over. The busy warning is given once per run.
   */
  settle(slowing: Slowing, rest: RestLook | null): { readonly finding: Finding | null; readonly stop: boolean } {
    this.looking = false;
    const windows = slowing.evidence.windows;
    const lagMs = this.lag.maxBetween(windows[0]?.startAt ?? 0, Date.now());
    const evidence: LatencyTrendEvidence = { ...slowing.evidence, rest, host: { lagMs, embedded: this.embedded } };
    const stop = stopsRun(evidence);
    const found = latencyTrend.run(evidence)[0] ?? null;
    if (stop) {
      this.stopped = true;
      return { finding: found, stop: found !== null };
    }
    for (const c of this.classes.values()) {
      c.windows = [];
      c.current = null;
    }
    if (!found || this.busyReported) return { finding: null, stop: false };
    this.busyReported = true;
    return { finding: found, stop: false };
  }

  /** The look after a rest could not be made (another was under way, the request path failed): nothing judged. */
  abandon(): void {
    this.looking = false;
  }

  /**
   * The look's answers as the check compares them: the class of the first answer, against its own earliest median
   * (the slowing class's when it has none); a 429 or a transport failure is no latency to compare.
   */
  restLook(restMs: number, answers: readonly Exchange[], slowing: Slowing): RestLook | null {
    const compared = answers.filter((ex) => ex.response && ex.response.status !== 429 && requestClass(ex) !== null);
    const first = compared[0];
    if (!first) return null;
    return {
      restMs,
      requestClass: requestClass(first)!,
      baselineMs: this.baselineOf(first) ?? slowing.evidence.baselineMs,
      latenciesMs: compared.map((ex) => ex.durationMs),
    };
  }
}

const lower = (a: number | null, b: number): number => (a === null ? b : Math.min(a, b));
