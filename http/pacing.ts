/**
 * Rate-limit waiting policy, beside the HTTP layer (which itself never waits or retries). The functional suites pace
 * themselves from the X-RateLimit headers so that they do not meet a 429 in normal operation; when they do, they wait
 * what Retry-After says, backing off exponentially with jitter, and stop using a key after a few 429s in a row
 * (section 8 rule 3: continuing after a 429 may get the key banned).
 * One pacer may serve several lanes side by side (--concurrency): it counts each key's requests in flight, so that
 * a Remaining read from a response, which cannot know of requests sent since, is lowered by them, and lanes that meet
 * a spent window wait out one reset together.
 */
import { KeyBlockedError } from '../errors/catalogue.js';
import type { Exchange } from './exchange.js';
import { readRateLimit } from './rate-limit-headers.js';
import { sleep } from './waits.js';

export interface PacerOptions {
  /** Requests kept in reserve: when Remaining falls to this, wait for the reset. */
  readonly reserve?: number;
  /** Longest single wait the pacer accepts before declaring the key blocked. */
  readonly maxWaitMs?: number;
  /** Consecutive 429s after which the key is considered banned. */
  readonly max429InARow?: number;
  /** How a wait is slept (a run's ends early on its stop: runner/run.ts); a plain timer by default. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
  readonly random?: () => number;
  /** Told about every wait, for a countdown and the run's traffic (`plan`: the key whose limit is waited out). */
  readonly onWait?: (ms: number, reason: string, plan?: string) => void;
}

interface KeyState {
  remaining: number | null;
  resetAt: number | null;
  consecutive429: number;
  /** Requests let through by `before` whose answer `settle` has not yet been told of. */
  inFlight: number;
  /** The wait for the window's reset that lanes meeting a spent window share. */
  resetWait: Promise<void> | null;
}

export class Pacer {
  private readonly states = new Map<string, KeyState>();
  private readonly o: Required<PacerOptions>;
  waitedMs = 0;
  rateLimited = 0;

  constructor(options: PacerOptions = {}) {
    this.o = {
      reserve: options.reserve ?? 1,
      maxWaitMs: options.maxWaitMs ?? 120_000,
      max429InARow: options.max429InARow ?? 3,
      sleep: options.sleep ?? ((ms) => sleep(ms)),
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
      onWait: options.onWait ?? (() => {}),
    };
  }

  private state(label: string): KeyState {
    let s = this.states.get(label);
    if (!s) {
      s = { remaining: null, resetAt: null, consecutive429: 0, inFlight: 0, resetWait: null };
      this.states.set(label, s);
    }
    return s;
  }

  /**
   * Waits, if the key's last known Remaining (less what is in flight) is at the reserve, until its window resets; then
   * counts the request as in flight until `settle`.
   */
  async before(label: string, cost = 1): Promise<void> {
    const s = this.state(label);
    for (;;) {
      if (s.remaining === null || s.resetAt === null || s.remaining - cost >= this.o.reserve) {
        if (s.remaining !== null) s.remaining -= cost;
        s.inFlight += cost;
        return;
      }
      s.resetWait ??= this.waitForReset(label, s).finally(() => {
        s.resetWait = null;
      });
      await s.resetWait;
    }
  }

  private async waitForReset(label: string, s: KeyState): Promise<void> {
    const wait = s.resetAt! - this.o.now() + 250;
    if (wait > 0) {
      if (wait > this.o.maxWaitMs)
        throw new KeyBlockedError(
          `key ${label}: its window resets in ${Math.ceil(wait / 1000)} s, longer than the run may wait`,
        );
      this.o.onWait(wait, `for the ${label} key's window`, label);
      this.waitedMs += wait;
      await this.o.sleep(wait);
    }
    s.remaining = null;
    s.resetAt = null;
  }

  /** The answer to a request `before` let through has come (or the request failed): it is no longer in flight. */
  settle(label: string, cost = 1): void {
    const s = this.state(label);
    s.inFlight = Math.max(0, s.inFlight - cost);
  }

  /** Learns from a response's headers. Returns the wait before a retry when it was a 429, else null. */
  after(label: string, ex: Exchange): number | null {
    const s = this.state(label);
    const res = ex.response;
    if (!res) return null;
    const rl = readRateLimit(ex, this.o.now());
    // Requests still in flight were sent after this one was counted, or may have been: they are spent as well.
    if (rl.remaining !== null) s.remaining = Math.max(0, rl.remaining - s.inFlight);
    // Reset is epoch seconds per the spec; a value that is not a plausible epoch is ignored for pacing.
    if (rl.resetAtMs !== null) s.resetAt = rl.resetAtMs;
    if (res.status !== 429) {
      s.consecutive429 = 0;
      return null;
    }
    this.rateLimited++;
    s.consecutive429++;
    if (s.consecutive429 >= this.o.max429InARow) {
      throw new KeyBlockedError(
        `key ${label}: ${s.consecutive429} responses in a row were 429 after waiting Retry-After; the key looks banned`,
      );
    }
    const base = rl.retryAfterMs ?? 1000;
    const backoff = 500 * 2 ** (s.consecutive429 - 1);
    const wait = Math.max(base, backoff) + Math.floor(this.o.random() * 250);
    if (wait > this.o.maxWaitMs)
      throw new KeyBlockedError(
        `key ${label}: Retry-After asks for ${Math.ceil(wait / 1000)} s, longer than the run may wait`,
      );
    return wait;
  }

  async wait(ms: number, reason: string, plan?: string): Promise<void> {
    this.o.onWait(ms, reason, plan);
    this.waitedMs += ms;
    await this.o.sleep(ms);
  }
}
