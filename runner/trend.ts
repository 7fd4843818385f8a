/**
 * Progressive slow-down: a target that keeps slowing down stops the run with a `latency-trend` warning (checks/run.ts,
 * a harness clause). Answers are gathered in windows of TREND_WINDOW, and at the end of each window (from the second
 * on) the check judges the first window, the latest and the medians so far.
 */
import type { Finding } from '../checks/check.js';
import { latencyTrend, median } from '../checks/run.js';
import type { Exchange } from '../http/exchange.js';

export const TREND_WINDOW = 15;

export class LatencyTrend {
  private readonly first: Exchange[] = [];
  private readonly recent: Exchange[] = [];
  private readonly medians: number[] = [];
  private count = 0;
  private established: Finding | null = null;

  /** Records an answer; returns the warning finding when this answer establishes the slow-down. */
  add(ex: Exchange): Finding | null {
    if (this.established || !ex.response) return null;
    this.count++;
    if (this.first.length < TREND_WINDOW) this.first.push(ex);
    this.recent.push(ex);
    if (this.recent.length > TREND_WINDOW) this.recent.shift();
    if (this.count < 2 * TREND_WINDOW || this.count % TREND_WINDOW !== 0) return null;
    this.medians.push(median(this.recent.map((e) => e.durationMs)));
    const found = latencyTrend.run({
      first: this.first,
      recent: this.recent,
      medians: this.medians,
      answers: this.count,
    });
    this.established = found.find((f) => f.level !== 'observation') ?? null;
    return this.established;
  }
}
