/**
 * Listens to one autocannon instance: per-second buckets by status and per-status-class latency histograms, from the
 * instance's `response` event (every response, including 429s autocannon would mix into its single histogram), and
 * connection errors and timeouts from `reqError`.
 */
import type { EventEmitter } from 'node:events';
import { newHistogram, summarize, type Histogram } from './histogram.js';
import type { LatencySummary, SecondBucket, StatusClass } from './model.js';

export function statusClass(status: number): StatusClass {
  if (status === 429) return '429';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}

// Status codes as object keys, made once each (String(status) on every response is garbage at 20k responses/s).
const STATUS_KEYS: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i));
const statusKey = (status: number): string => STATUS_KEYS[status] ?? String(status);

interface MutableBucket {
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
}

export class Recorder {
  private readonly histograms = new Map<StatusClass, Histogram>();
  private readonly buckets: MutableBucket[] = [];
  readonly byStatus: Record<string, number> = {};
  readonly errorMessages: Record<string, number> = {};
  responses = 0;
  /** 2xx responses before the first 429 (the rested key's budget, whatever happens after). */
  acceptedBeforeFirst429 = 0;
  private seen429 = false;
  errors = 0;
  timeouts = 0;
  private firstAt = 0;
  private lastAt = 0;
  /** When the latest-sent request that was answered went out (its answer's time less its latency). */
  private lastSentAt = 0;
  /** Errors since the last response. */
  private failingSinceResponse = 0;

  /** With `keepSamples`, every latency (µs) by status class, for `load --samples` (re-analysis, merge proofs). */
  readonly samples: Map<StatusClass, number[]> | null;

  /** `maxSeconds` bounds the timeline: a late response lands in the last bucket. */
  constructor(
    private readonly startedAt: number,
    private readonly maxSeconds: number,
    private readonly clock: () => number = Date.now,
    keepSamples = false,
  ) {
    this.samples = keepSamples ? new Map() : null;
  }

  attach(instance: EventEmitter): void {
    instance.on('response', (_client: unknown, status: number, _bytes: number, responseTimeMs: number) =>
      this.response(status, responseTimeMs),
    );
    instance.on('reqError', (error: Error & { code?: string }) => this.error(error));
  }

  private bucket(now: number = this.clock()): MutableBucket {
    const second = Math.min(this.maxSeconds, Math.max(0, Math.floor((now - this.startedAt) / 1000)));
    for (let i = this.buckets.length; i <= second; i++) this.buckets.push({ statuses: {}, errors: 0, timeouts: 0 });
    return this.buckets[second]!;
  }

  response(status: number, responseTimeMs: number): void {
    const now = this.clock();
    if (this.responses === 0) this.firstAt = now - responseTimeMs;
    this.lastAt = now;
    this.lastSentAt = Math.max(this.lastSentAt, now - responseTimeMs);
    this.failingSinceResponse = 0;
    this.responses++;
    const key = statusKey(status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
    const b = this.bucket(now);
    b.statuses[key] = (b.statuses[key] ?? 0) + 1;
    const cls = statusClass(status);
    if (cls === '429') this.seen429 = true;
    else if (cls === '2xx' && !this.seen429) this.acceptedBeforeFirst429++;
    let h = this.histograms.get(cls);
    if (!h) {
      h = newHistogram();
      this.histograms.set(cls, h);
    }
    const us = Math.max(1, Math.round(responseTimeMs * 1000));
    h.recordValue(us);
    if (this.samples) {
      const list = this.samples.get(cls);
      if (list) list.push(us);
      else this.samples.set(cls, [us]);
    }
  }

  error(error: Error & { code?: string }): void {
    const timeout = error.message === 'request timed out';
    const label = timeout ? 'request timed out' : (error.code ?? error.message.slice(0, 80));
    this.errors++;
    this.failingSinceResponse++;
    if (timeout) this.timeouts++;
    this.errorMessages[label] = (this.errorMessages[label] ?? 0) + 1;
    const b = this.bucket();
    b.errors++;
    if (timeout) b.timeouts++;
  }

  /**
   * Seconds without any response while requests have been failing (0 unless requests failed since the last response):
   * how long the target has looked gone, counted from the last response (or the start, when none came).
   */
  silentFailingSeconds(now: number = this.clock()): number {
    // One error alone may be a reset among slow answers; two with nothing answered between are a pattern.
    if (this.failingSinceResponse < 2) return 0;
    return (now - (this.responses > 0 ? this.lastAt : this.startedAt)) / 1000;
  }

  /**
   * Responses per second. Closed loop: over the span from first request to last response. Under a rate, autocannon
   * sends each second's requests at the start of the second, so the sends span one second less than the run: divide
   * by the requested duration, or by the span of the sends when the generator took longer to send them (it could not
   * keep its rate). The last answers' latency is not the generator's rate: a slow last answer does not lower it.
   */
  achievedRate(paced: boolean, requestedSeconds: number): number {
    if (this.responses === 0) return 0;
    const seconds = paced
      ? Math.max((this.lastSentAt - this.firstAt) / 1000, requestedSeconds)
      : Math.max((this.lastAt - this.firstAt) / 1000, 0.001);
    return Math.round((this.responses / seconds) * 100) / 100;
  }

  latency(): Partial<Record<StatusClass, LatencySummary>> {
    const out: Partial<Record<StatusClass, LatencySummary>> = {};
    for (const [cls, h] of this.histograms) out[cls] = summarize(h);
    return out;
  }

  timeline(): SecondBucket[] {
    return this.buckets.map((b, second) => ({
      second,
      statuses: { ...b.statuses },
      errors: b.errors,
      timeouts: b.timeouts,
    }));
  }
}
