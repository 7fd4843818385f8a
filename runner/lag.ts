/**
 * How late this thread's own event loop ran (perf_hooks' event-loop delay): a busy host stalls the harness as much as
 * it stalls a target beside it, and every latency the run measures then includes the stall. The latency trend asks
 * how much the loop lagged over the span it judges, to name the host rather than the target (checks/run.ts).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** The run's own lag, as the latency trend asks for it. */
export interface LagSource {
  /** Takes a sample when one is due (cheap: called with every answer). */
  tick(now?: number): void;
  /** The longest lag seen between two epoch ms, in ms; null when nothing was measured then. */
  maxBetween(from: number, to: number): number | null;
}

/** How often the histogram is read (and reset) at most, and how many readings are kept (about ten minutes). */
const SAMPLE_MS = 1_000;
const KEPT = 600;

class EventLoopLag implements LagSource {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
  private readonly samples: { readonly from: number; readonly to: number; readonly maxMs: number }[] = [];
  private since = Date.now();

  constructor() {
    this.histogram.enable();
  }

  tick(now = Date.now()): void {
    if (now - this.since < SAMPLE_MS) return;
    this.read(now);
  }

  private read(now: number): void {
    // The histogram counts in nanoseconds; with no sample yet its max is 0.
    this.samples.push({ from: this.since, to: now, maxMs: this.histogram.max / 1e6 });
    if (this.samples.length > KEPT) this.samples.shift();
    this.histogram.reset();
    this.since = now;
  }

  maxBetween(from: number, to: number): number | null {
    this.read(Date.now());
    let max: number | null = null;
    for (const s of this.samples) if (s.to >= from && s.from <= to) max = Math.max(max ?? 0, s.maxMs);
    return max;
  }
}

let shared: EventLoopLag | null = null;

/** This thread's monitor, started on first use (its timer keeps no process alive). */
export function eventLoopLag(): LagSource {
  shared ??= new EventLoopLag();
  return shared;
}
