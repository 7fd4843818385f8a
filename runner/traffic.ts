/**
 * What the run's traffic looked like over time, per key: answers per second by status class, and every wait (a
 * Retry-After waited out, a spent window). The reports draw it as a timeline per key and weigh a pass by it (most
 * answers refused with 401 or 429 say little). Kept as counts per bucket, never exchanges, and the buckets widen as
 * the run goes on: memory stays bounded however long the run. Counted by plan: two keys of one plan share a timeline.
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
export const MAX_BUCKETS = 150;
/** Waits listed at most (a long run waits out a window per key and minute). */
export const MAX_WAITS = 500;
/** Characters of a wait's reason kept (it may quote a request's path). */
const REASON_MAX = 160;
/** Bucket widths in seconds, each a multiple of the one before: buckets widen by merging whole ones. */
const WIDTHS = [1, 2, 10, 20, 60, 120, 600, 1200, 3600, 7200, 21600, 86400] as const;

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
  /** Plan → bucket start (seconds) → counts, in STATUS_CLASSES order. */
  private readonly buckets = new Map<string, Map<number, Uint32Array>>();
  /** The width recording is at: widened while the run goes on, so a plan holds at most 2 × MAX_BUCKETS buckets. */
  private width = 1;
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
    if (at / this.width >= 2 * MAX_BUCKETS) this.widen(widthFor(at, 2 * MAX_BUCKETS));
    const buckets = entry(this.buckets, ex.keyPlan, () => new Map<number, Uint32Array>());
    const counts = entry(buckets, Math.floor(at / this.width) * this.width, newCounts);
    counts[STATUS_CLASSES.indexOf(statusClass(ex))]!++;
  }

  waited(plan: string | null, ms: number, reason: string, now: number = Date.now()): void {
    if (ms <= 0) return;
    if (this.waitList.length >= MAX_WAITS) {
      this.waitsNotListed++;
      return;
    }
    const why = reason.length > REASON_MAX ? `${reason.slice(0, REASON_MAX - 1)}…` : reason;
    this.waitList.push({ plan, at: round(this.since(now), 2), seconds: round(ms / 1000, 2), reason: why });
  }

  /** Merges the buckets into wider ones (`width` is a multiple of the current one). */
  private widen(width: number): void {
    for (const [plan, buckets] of this.buckets) this.buckets.set(plan, merged(buckets, width));
    this.width = width;
  }

  /** Buckets held, over every plan (what the recording's memory grows with). */
  held(): number {
    let n = 0;
    for (const buckets of this.buckets.values()) n += buckets.size;
    return n;
  }

  snapshot(): TrafficSnapshot {
    const width = Math.max(this.width, widthFor(this.last, MAX_BUCKETS));
    const keys = [...this.buckets].map(([plan, buckets]): KeyTraffic => {
      const wide = merged(buckets, width);
      const totals = newCounts();
      for (const counts of wide.values()) add(totals, counts);
      return {
        plan,
        totals: countsOf(totals),
        buckets: [...wide].sort(([a], [b]) => a - b).map(([at, counts]) => ({ at, counts: countsOf(counts) })),
      };
    });
    return {
      bucketSeconds: width,
      // Rounded up: the last answer's bucket lies within it.
      seconds: Math.ceil(this.last * 10) / 10,
      keys: keys.sort((a, b) => (a.plan < b.plan ? -1 : a.plan > b.plan ? 1 : 0)),
      waits: [...this.waitList],
      waitsNotListed: this.waitsNotListed,
    };
  }
}

/** The narrowest width that spans `seconds` in fewer than `buckets` buckets. */
function widthFor(seconds: number, buckets: number): number {
  return WIDTHS.find((w) => seconds / w < buckets) ?? WIDTHS[WIDTHS.length - 1]!;
}

function merged(buckets: ReadonlyMap<number, Uint32Array>, width: number): Map<number, Uint32Array> {
  const wide = new Map<number, Uint32Array>();
  for (const [at, counts] of buckets) {
    add(entry(wide, Math.floor(at / width) * width, newCounts), counts);
  }
  return wide;
}

const newCounts = () => new Uint32Array(STATUS_CLASSES.length);

function add(sum: Uint32Array, counts: Uint32Array): void {
  for (let i = 0; i < counts.length; i++) sum[i]! += counts[i]!;
}

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
