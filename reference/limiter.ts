/**
 * Per-key rate limiting: a "minute" window of the chosen algorithm AND a "day" window (always a fixed window), plus
 * a temporary ban for keys that keep sending while limited. O(1) per request: one Map lookup and a few arithmetic
 * operations, whatever the limit.
 *
 * Choices (the spec leaves them open):
 * - Windows start with a key's first request (and restart with the first request after they expire), not on clock
 *   boundaries: a rested key always gets its whole limit in one burst. The aligned fixed window is the exception, as
 *   many limiters are: every key's windows end at the same wall time (whole multiples of the window since the epoch),
 *   so a burst near the end of one gets the rest of it and then a fresh limit, at the Reset it announced.
 * - Rejected requests are not counted in either window.
 * - The headers describe the minute window, except when the day window has fewer requests left (or is the reason
 *   for a 429): then Limit/Remaining/Reset describe the day window (Reset = the end of the key's day window).
 * - Reset: fixed window (aligned or not) = end of the window; sliding window = end of the current counting window; token bucket =
 *   when the bucket is full again; token bucket with a static reset (as a Go service over golang.org/x/time/rate
 *   may send: the bucket has no reset, so the header names the end of the current clock window) = the next multiple
 *   of the window since the epoch, which does not move with the tokens. Always rounded up to whole epoch seconds, so
 *   never in the past. Token buckets report Remaining as the whole tokens left (a fraction is floored).
 * - Retry-After = the real wait rounded up to whole seconds, at least 1.
 * - Ban: more than `banAfter` requests sent after a 429 and before its Retry-After elapsed ban the key for
 *   `banSeconds`; a ban is answered 429 with Retry-After = the rest of the ban.
 */
import type { PlanLimits } from '../spec/contract.js';

export type LimiterAlgorithm =
  | 'fixed-window'
  | 'fixed-window-aligned'
  | 'sliding-window'
  | 'token-bucket'
  | 'token-bucket-static-reset';

/** Every algorithm, for the server's options and `serve --algorithm`. */
export const LIMITER_ALGORITHMS: readonly LimiterAlgorithm[] = Object.freeze([
  'fixed-window',
  'fixed-window-aligned',
  'sliding-window',
  'token-bucket',
  'token-bucket-static-reset',
]);

/** Defects the limiter can be told to have: each field is a seam of the server (seams.ts) that one fault sets. */
export interface LimiterDefects {
  /** Added to the minute limit actually enforced (+1 off-by-one, -1 stricter); the headers keep the plan's. */
  readonly minuteSlack?: number;
  readonly notEnforced?: boolean;
  readonly neverResets?: boolean;
  readonly chargeRejected?: boolean;
  readonly dailyNotEnforced?: boolean;
  readonly retryAfterHalved?: boolean;
  /** One counter for all keys, with the limits of the first key seen (a limiter keyed by client, not by key). */
  readonly sharedAcrossKeys?: boolean;
  /** One counter for all keys, each key still held to (and told) its own plan's limits. */
  readonly sharedCounter?: boolean;
  /** One counter per key and route (a limiter library's quick-start): the plan's limit on every operation. */
  readonly perRoute?: boolean;
  /** Every 429 bans the key for the ban length, even when the client then waits what Retry-After said. */
  readonly banOnLimit?: boolean;
  /**
   * Above 0: the count is read, then written back this many ms later (a read-modify-write across an await, as a
   * limiter over a remote store without an atomic increment): a request whose write lands after another's, both
   * read before either wrote, writes the count it read plus one over it, and one increment is lost. Only requests
   * of a key in flight together lose any: one at a time, every request is counted.
   */
  readonly lostIncrementsMs?: number;
  /**
   * The same read-modify-write for the day's count alone (a daily quota kept in a remote store, the minute window in
   * memory): requests of a key in flight together lose day increments, and the minute window counts every one.
   */
  readonly dayLostIncrementsMs?: number;
}

/** One window of one key. `limit` is passed on every call so that a counter shared by keys stays well-defined. */
export interface Meter {
  /** Brings the state to `now`; whether one more request fits. Call first, with the same `now` as the others. */
  fits(now: number, limit: number): boolean;
  /** Counts one request. */
  take(now: number, limit: number): void;
  remaining(now: number, limit: number): number;
  /** Epoch ms when the window resets (see the header comment). */
  resetAt(now: number, limit: number): number;
  /** Ms from now until one request fits again. */
  waitMs(now: number, limit: number): number;
}

const EPS = 1e-9;

export class FixedWindow implements Meter {
  private start = -Infinity;
  private count = 0;
  constructor(
    private readonly windowMs: number,
    private readonly defects: LimiterDefects = {},
  ) {}
  protected get length(): number {
    return this.windowMs;
  }
  fits(now: number, limit: number): boolean {
    return this.fitsFrom(now, now, limit);
  }
  /** Whether one more fits at `now`; a window that ended gives way to one starting at `start`. */
  protected fitsFrom(start: number, now: number, limit: number): boolean {
    if (now >= this.start + this.windowMs) {
      // Charged rejections (a defect) carry into the new window; a never-resetting counter keeps everything.
      const carry = this.defects.neverResets ? this.count : Math.max(0, this.count - limit);
      this.count = this.defects.chargeRejected || this.defects.neverResets ? carry : 0;
      this.start = start;
    }
    return this.count < limit;
  }
  take(): void {
    this.count++;
  }
  remaining(_now: number, limit: number): number {
    return Math.max(0, limit - this.count);
  }
  resetAt(): number {
    return this.start + this.windowMs;
  }
  waitMs(now: number): number {
    return this.start + this.windowMs - now;
  }
}

/** A fixed window aligned to the clock: windows are whole multiples of its length since the epoch. */
export class AlignedFixedWindow extends FixedWindow {
  override fits(now: number, limit: number): boolean {
    return super.fitsFrom(Math.floor(now / this.length) * this.length, now, limit);
  }
}

/** Sliding counter: the previous window's count, weighted by how much of it still overlaps, plus the current one. */
export class SlidingWindow implements Meter {
  private start = -Infinity;
  private prev = 0;
  private curr = 0;
  constructor(
    private readonly windowMs: number,
    private readonly defects: LimiterDefects = {},
  ) {}
  private estimate(now: number): number {
    const weight = Math.max(0, 1 - (now - this.start) / this.windowMs);
    return this.prev * weight + this.curr;
  }
  fits(now: number, limit: number): boolean {
    const elapsed = now - this.start;
    if (elapsed >= this.windowMs) {
      const frozen = this.defects.neverResets === true; // the window rolls, the counts stay (a defect)
      if (elapsed < 2 * this.windowMs) {
        if (!frozen) this.prev = this.curr;
        this.start += this.windowMs;
      } else {
        if (!frozen) this.prev = 0;
        this.start = now;
      }
      if (!frozen) this.curr = 0;
    }
    return this.estimate(now) + 1 <= limit + EPS;
  }
  take(): void {
    this.curr++;
  }
  remaining(now: number, limit: number): number {
    return Math.max(0, Math.floor(limit - this.estimate(now) + EPS));
  }
  resetAt(): number {
    return this.start + this.windowMs;
  }
  waitMs(now: number, limit: number): number {
    const W = this.windowMs;
    const room = limit - 1 - this.curr;
    if (room >= 0 && this.prev > 0) {
      // Within this window, once the previous window's weighted share has shrunk to `room`.
      const e = W * (1 - room / this.prev);
      if (e < W) return this.start + e - now;
    }
    // In the next window the current count becomes the weighted one.
    const end = this.start + W;
    if (this.curr <= limit - 1) return end - now;
    return end + W * (1 - (limit - 1) / this.curr) - now;
  }
}

/** Token bucket of capacity `limit`, refilled at `limit` tokens per window; a rested key starts full. */
export class TokenBucket implements Meter {
  private tokens = NaN;
  private last = 0;
  constructor(
    protected readonly windowMs: number,
    private readonly defects: LimiterDefects = {},
  ) {}
  fits(now: number, limit: number): boolean {
    if (Number.isNaN(this.tokens)) this.tokens = limit;
    else if (!this.defects.neverResets) {
      this.tokens = Math.min(limit, this.tokens + ((now - this.last) * limit) / this.windowMs);
    }
    this.last = now;
    return this.tokens >= 1 - EPS;
  }
  take(): void {
    this.tokens--;
  }
  remaining(_now: number, _limit: number): number {
    return Math.max(0, Math.floor(this.tokens + EPS));
  }
  resetAt(now: number, limit: number): number {
    return now + (Math.max(0, limit - this.tokens) * this.windowMs) / limit;
  }
  waitMs(_now: number, limit: number): number {
    return ((1 - this.tokens) * this.windowMs) / limit;
  }
}

/**
 * A token bucket whose Reset does not follow its tokens: the end of the current clock window (a whole number of
 * windows since the epoch). A conformant choice (the spec says only "the Unix timestamp at which the limit resets"),
 * and a hard one for a black-box test: refill shows in Remaining only, never in Reset.
 */
export class StaticResetBucket extends TokenBucket {
  override resetAt(now: number): number {
    return (Math.floor(now / this.windowMs) + 1) * this.windowMs;
  }
}

export interface Decision {
  readonly allowed: boolean;
  /** The key is banned (answered 429, or 403 under the ban-403 fault). */
  readonly banned: boolean;
  /** Header values: the window they describe. */
  readonly limit: number;
  readonly remaining: number;
  /** Epoch ms; the header is ceil(resetAt / 1000). */
  readonly resetAt: number;
  /** Whole seconds, ≥ 1, when !allowed. */
  readonly retryAfter: number;
  /** The real wait in ms when !allowed (for the fractional Retry-After fault). */
  readonly waitMs: number;
  /** Remaining in the day window, whatever window the headers describe (for the remaining-above-limit fault). */
  readonly dayRemaining: number;
}

interface KeyState {
  readonly minute: Meter;
  readonly day: Meter;
  /** Epoch ms until which the key is limited (its last Retry-After), and requests sent meanwhile. */
  limitedUntil: number;
  strikes: number;
  bannedUntil: number;
  /** Requests counted so far (for the lost-increment defects: whether a write landed since a request's read). */
  writes: number;
  /** The limits the state was created with (used by the shared-counter defect). */
  readonly firstLimits: PlanLimits;
}

export interface LimiterOptions {
  readonly algorithm: LimiterAlgorithm;
  readonly windowMs: number;
  readonly dayWindowMs: number;
  readonly banAfter: number;
  readonly banMs: number;
  readonly defects?: LimiterDefects;
}

export class RateLimiter {
  private readonly states = new Map<string, KeyState>();
  private readonly meters = new Map<string, { readonly minute: Meter; readonly day: Meter }>();
  private readonly defects: LimiterDefects;

  constructor(private readonly opts: LimiterOptions) {
    this.defects = opts.defects ?? {};
  }

  private meter(): Meter {
    const { algorithm, windowMs } = this.opts;
    if (algorithm === 'fixed-window') return new FixedWindow(windowMs, this.defects);
    if (algorithm === 'fixed-window-aligned') return new AlignedFixedWindow(windowMs, this.defects);
    if (algorithm === 'sliding-window') return new SlidingWindow(windowMs, this.defects);
    if (algorithm === 'token-bucket-static-reset') return new StaticResetBucket(windowMs, this.defects);
    return new TokenBucket(windowMs, this.defects);
  }

  /** A key's state; its windows are those of `counter` (the key itself, unless a defect shares or splits them). */
  private state(key: string, limits: PlanLimits, counter = key): KeyState {
    let s = this.states.get(key);
    if (!s) {
      let m = this.meters.get(counter);
      if (!m) {
        m = { minute: this.meter(), day: new FixedWindow(this.opts.dayWindowMs) };
        this.meters.set(counter, m);
      }
      s = { ...m, limitedUntil: 0, strikes: 0, bannedUntil: 0, writes: 0, firstLimits: limits };
      this.states.set(key, s);
    }
    return s;
  }

  /**
   * Decides one request of `key` at `now`. With enforce=false (the anonymous bucket of unauthenticated clients) the
   * request is counted while there is room and always allowed: the headers are reported, never enforced.
   */
  take(key: string, limits: PlanLimits, now: number, enforce = true, route = '', lost = false): Decision {
    const d = this.defects;
    const s = this.stateOf(key, limits, enforce, route);
    if (enforce && d.sharedAcrossKeys === true) limits = s.firstLimits;
    const perMinute = limits.requestsPerMinute;
    const perDay = limits.requestsPerDay;

    if (enforce) {
      if (now < s.bannedUntil) return this.banned(s, perMinute, now);
      if (now < s.limitedUntil) {
        if (++s.strikes > this.opts.banAfter) {
          s.bannedUntil = now + this.opts.banMs;
          s.strikes = 0;
          s.limitedUntil = 0;
          return this.banned(s, perMinute, now);
        }
      } else {
        s.strikes = 0;
      }
    }

    const enforcedMinute = Math.max(1, perMinute + (d.minuteSlack ?? 0));
    const minuteFits = s.minute.fits(now, enforcedMinute);
    const dayFits = s.day.fits(now, perDay);
    const fits = minuteFits && (dayFits || d.dailyNotEnforced === true);
    const allowed = fits || !enforce || d.notEnforced === true;

    if (fits || (allowed && enforce)) {
      // A lost write is the count it read plus one, written over a write that landed since: nothing added to the
      // counts kept that way (both, or the day's alone).
      const dayAlone = (d.dayLostIncrementsMs ?? 0) > 0 && !((d.lostIncrementsMs ?? 0) > 0);
      if (!lost || dayAlone) s.minute.take(now, enforcedMinute);
      if (!lost) s.day.take(now, perDay);
      s.writes++;
    } else if (enforce && d.chargeRejected) {
      s.minute.take(now, enforcedMinute);
    }

    const minuteRemaining = Math.min(perMinute, s.minute.remaining(now, enforcedMinute));
    const dayRemaining = s.day.remaining(now, perDay);
    const dayBinds = (!dayFits && !d.dailyNotEnforced) || dayRemaining < minuteRemaining;

    let waitMs = 0;
    if (!allowed) {
      if (!minuteFits) waitMs = s.minute.waitMs(now, enforcedMinute);
      if (!dayFits && !d.dailyNotEnforced) waitMs = Math.max(waitMs, s.day.waitMs(now, perDay));
    }
    const retryAfter = allowed ? 0 : this.retryAfterSeconds(waitMs);
    if (!allowed) s.limitedUntil = now + retryAfter * 1000;
    if (!allowed && d.banOnLimit) s.bannedUntil = now + this.opts.banMs;

    return {
      allowed,
      banned: false,
      limit: dayBinds ? perDay : perMinute,
      remaining: dayBinds ? dayRemaining : minuteRemaining,
      resetAt: dayBinds ? s.day.resetAt(now, perDay) : s.minute.resetAt(now, enforcedMinute),
      retryAfter,
      waitMs,
      dayRemaining,
    };
  }

  /**
   * A read-modify-write across an await (the lostIncrementsMs or dayLostIncrementsMs defect): the key's count is read
   * now; the function returned decides and writes it back later. When a write of the key's landed in between, this one
   * is written over it from the count read before: the request is answered as the limiter decides, but its increment
   * is lost (in both windows, or in the day's alone).
   */
  readThenWrite(key: string, limits: PlanLimits, route = ''): (now: number) => Decision {
    const s = this.stateOf(key, limits, true, route);
    const seen = s.writes;
    return (now) => this.take(key, limits, now, true, route, s.writes !== seen);
  }

  /** The state a request of `key` is counted in (the key's own, unless a defect shares or splits counters). */
  private stateOf(key: string, limits: PlanLimits, enforce: boolean, route: string): KeyState {
    const d = this.defects;
    if (enforce && d.sharedAcrossKeys === true) return this.state('shared', limits);
    const own = enforce && d.perRoute ? `${key} ${route}` : key;
    return this.state(own, limits, enforce && d.sharedCounter ? 'shared' : own);
  }

  private retryAfterSeconds(waitMs: number): number {
    const real = Math.max(1, Math.ceil(waitMs / 1000));
    return this.defects.retryAfterHalved ? Math.max(1, Math.floor(real / 2)) : real;
  }

  private banned(s: KeyState, perMinute: number, now: number): Decision {
    const waitMs = s.bannedUntil - now;
    return {
      allowed: false,
      banned: true,
      limit: perMinute,
      remaining: 0,
      resetAt: s.bannedUntil,
      retryAfter: Math.max(1, Math.ceil(waitMs / 1000)),
      waitMs,
      dayRemaining: 0,
    };
  }
}
