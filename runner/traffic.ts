/**
 * What the run's traffic looked like over time, per key: answers per second by status class, and every wait (a
 * Retry-After waited out, a spent window). The reports draw it as a timeline per key and weigh a pass by it (most
 * answers refused with 401 or 429 say little). Kept as counts per second, never exchanges: memory stays bounded.
 */
import type { Exchange } from '../http/exchange.js';

/** How an answer is counted: its status class, 401 and 429 apart, or `error` when no response came. */
export const STATUS_CLASSES = ['2xx', '401', '429', '4xx', '5xx', 'other', 'error'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export type StatusCounts = Partial<Record<StatusClass, number>>;

export interface TrafficBucket {
  /** Seconds after the run began at which the bucket starts. */
  readonly at: number;
  /** Answers in the bucket by status class (a class with none is left out). */
  readonly counts: StatusCounts;
}

export interface KeyTraffic {
  /** The key's plan, or 'none'/'invalid' for requests sent deliberately without a valid key. */
  readonly plan: string;
  readonly totals: StatusCounts;
  readonly buckets: readonly TrafficBucket[];
}

export interface TrafficWait {
  /** The key whose limit was waited out; null when the wait was not one key's. */
  readonly plan: string | null;
  /** Seconds after the run began at which the wait started, and how long it was. */
  readonly at: number;
  readonly seconds: number;
  readonly reason: string;
}

export interface TrafficSnapshot {
  /** The width of a bucket: one second, wider for a long run (at most MAX_BUCKETS buckets). */
  readonly bucketSeconds: number;
  /** Seconds from the run's start to its last answer. */
  readonly seconds: number;
  readonly keys: readonly KeyTraffic[];
  readonly waits: readonly TrafficWait[];
  /** Waits beyond MAX_WAITS, counted but not listed. */
  readonly waitsNotListed: number;
}

/** Buckets per key at most: a timeline a page can draw whatever the run's length. */
export const MAX_BUCKETS = 300;
/** Waits listed at most (a long run waits out a window per key and minute). */
export const MAX_WAITS = 500;
const WIDTHS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600] as const;

export function statusClass(ex: Pick<Exchange, 'response'>): StatusClass {
  const s = ex.response?.status;
  if (s === undefined) return 'error';
  if (s === 401 || s === 429) return String(s) as StatusClass;
  if (s >= 200 && s < 300) return '2xx';
  if (s >= 400 && s < 500) return '4xx';
  if (s >= 500 && s < 600) return '5xx';
  return 'other';
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

export class Traffic {
  /** Plan → second → counts, in STATUS_CLASSES order. */
  private readonly perSecond = new Map<string, Map<number, Uint32Array>>();
  private readonly waitList: TrafficWait[] = [];
  private waitsNotListed = 0;
  private last = 0;

  constructor(private readonly startedAt: number = Date.now()) {}

  private since(epochMs: number): number {
    return Math.max(0, (epochMs - this.startedAt) / 1000);
  }

  answered(ex: Pick<Exchange, 'keyPlan' | 'response' | 'startedAt' | 'durationMs'>): void {
    const at = this.since(ex.startedAt);
    this.last = Math.max(this.last, at + ex.durationMs / 1000);
    const seconds = entry(this.perSecond, ex.keyPlan, () => new Map<number, Uint32Array>());
    const counts = entry(seconds, Math.floor(at), newCounts);
    counts[STATUS_CLASSES.indexOf(statusClass(ex))]!++;
  }

  waited(plan: string | null, ms: number, reason: string, now: number = Date.now()): void {
    if (ms <= 0) return;
    if (this.waitList.length >= MAX_WAITS) {
      this.waitsNotListed++;
      return;
    }
    this.waitList.push({ plan, at: round(this.since(now), 2), seconds: round(ms / 1000, 2), reason });
  }

  snapshot(): TrafficSnapshot {
    const width = WIDTHS.find((w) => this.last / w <= MAX_BUCKETS) ?? WIDTHS[WIDTHS.length - 1]!;
    const keys = [...this.perSecond].map(([plan, seconds]): KeyTraffic => {
      const wide = new Map<number, Uint32Array>();
      const totals = newCounts();
      for (const [second, counts] of seconds) {
        const sum = entry(wide, Math.floor(second / width) * width, newCounts);
        counts.forEach((n, i) => {
          sum[i]! += n;
          totals[i]! += n;
        });
      }
      return {
        plan,
        totals: countsOf(totals),
        buckets: [...wide].sort(([a], [b]) => a - b).map(([at, counts]) => ({ at, counts: countsOf(counts) })),
      };
    });
    return {
      bucketSeconds: width,
      seconds: round(this.last, 1),
      keys: keys.sort((a, b) => (a.plan < b.plan ? -1 : a.plan > b.plan ? 1 : 0)),
      waits: [...this.waitList],
      waitsNotListed: this.waitsNotListed,
    };
  }
}

const newCounts = () => new Uint32Array(STATUS_CLASSES.length);

function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

function countsOf(counts: Uint32Array): StatusCounts {
  const out: StatusCounts = {};
  STATUS_CLASSES.forEach((c, i) => {
    if (counts[i]! > 0) out[c] = counts[i]!;
  });
  return out;
}
