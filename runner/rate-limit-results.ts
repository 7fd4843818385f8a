/**
 * What the rate-limit and quota suites measured, per key, for the reports: the numbers behind each verdict and, when
 * a key was not (fully) measured, why.
 */
import type { PlanName } from '../spec/contract.js';
import type { QuotaStop } from '../checks/rate-limit.js';

/** One key through the rate-limit suite's phases (runner/scenarios/rate-limit.ts). */
export interface KeyRateLimitResult {
  readonly suite: 'rate-limit';
  readonly plan: PlanName;
  /** The key's label: its plan, or plan#2 for a second key of the same plan. */
  readonly key: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly paced: { readonly sent: number; readonly spanMs: number; readonly got429: boolean };
  readonly burst: {
    readonly fromRemaining: number | null;
    readonly accepted: number;
    readonly allowance: number;
    readonly first429AtRequest: number | null;
    /** From the start of its known state's request to the end of its last answer, ms (the rate the target gave). */
    readonly elapsedMs?: number;
  } | null;
  readonly retryAfterSeconds: number | null;
  /** Time spent waiting (rest, Retry-After), ms. */
  readonly waitedMs: number;
  readonly recovered: boolean | null;
  /** Requests this key spent in the suite. */
  readonly requests: number;
  readonly durationMs: number;
  /** Why the key was not (fully) measured, when it was not. */
  readonly note: string | null;
  /** What the key's phases proved about its limit, one line each. */
  readonly proven: readonly string[];
  /** What could not be measured for this key, and why. */
  readonly unmeasured: readonly string[];
}

/** The smallest daily quota spent in full (runner/scenarios/quota.ts). */
export interface QuotaResult {
  readonly suite: 'quota';
  readonly plan: PlanName;
  readonly requestsPerDay: number;
  readonly requestsPerMinute: number;
  readonly windowSeconds: number;
  readonly sent: number;
  readonly accepted: number;
  readonly dailyRetryAfterSeconds: number | null;
  /** X-RateLimit-Reset of the daily 429 (epoch s). */
  readonly dailyReset: number | null;
  readonly waitedMs: number;
  readonly durationMs: number;
  readonly stopped: QuotaStop | null;
  /** The tail sent over several connections at once (runner/scenarios/quota-parallel.ts), when there was one. */
  readonly parallel?: {
    readonly connections: number;
    /** The day window's Remaining it started from, read with nothing of the key in flight. */
    readonly fromRemaining: number | null;
    readonly sent: number;
    readonly accepted: number;
  };
}

export type RateLimitResult = KeyRateLimitResult | QuotaResult;

/**
 * What a scenario returns besides its findings (which it records as it goes): the rate-limit suites' per-key numbers,
 * and what ended it early when something did (a blocked key), which then ends the suite with those numbers kept.
 */
export interface ScenarioReturn {
  readonly rateLimits?: readonly RateLimitResult[];
  readonly ended?: unknown;
}

/**
 * Whether the suite judged this key's limit at all: a burst judged to its end, or a refusal while pacing. A key that
 * sent nothing, or whose measurement a limit, the target or the plan cut short before either, proved nothing: the
 * reports say "not measured" and why, never ✓.
 */
export function keyMeasured(r: Pick<KeyRateLimitResult, 'burst' | 'paced' | 'requests'>): boolean {
  return r.requests > 0 && ((r.burst !== null && r.burst.first429AtRequest !== null) || r.paced.got429);
}

/**
 * Whether the suite set out to measure the key's enforcement and could not exercise it: its burst ran, and no refusal
 * came within its cap (the target too slow for a burst to exceed the limit within a window, or a limiter that refills
 * as fast as it is asked). What nothing exercised is not vouched for: the run is INCOMPLETE unless it failed.
 */
export function keyNotExercised(r: Pick<KeyRateLimitResult, 'burst' | 'paced' | 'requests'>): boolean {
  return r.requests > 0 && r.burst !== null && r.burst.first429AtRequest === null && !r.paced.got429;
}

/** A key's rates in words: what exceeding its limit within a window needs, and what the target gave its burst. */
export function exerciseRates(r: Pick<KeyRateLimitResult, 'burst' | 'limit' | 'windowSeconds'>): string {
  const need = `exceeding ${r.limit} per ${r.windowSeconds} s within a window needs more than ${perSecond(r.limit, r.windowSeconds * 1000)} requests/s`;
  const b = r.burst;
  if (!b || b.elapsedMs === undefined || b.elapsedMs <= 0) return need;
  return `${need}; the target answered ${b.accepted} in ${(b.elapsedMs / 1000).toFixed(1)} s, ${perSecond(b.accepted, b.elapsedMs)} requests/s`;
}

const perSecond = (n: number, ms: number): string => {
  const rate = (n * 1000) / ms;
  return rate >= 10 ? rate.toFixed(0) : rate.toFixed(1);
};

/** Why a key was not measured, in a few words (its note, else what it could not measure, else that it sent nothing). */
export function whyNotMeasured(r: Pick<KeyRateLimitResult, 'note' | 'unmeasured' | 'requests'>): string {
  const why = r.note ?? r.unmeasured[0] ?? (r.requests === 0 ? 'it sent nothing' : 'no burst was judged');
  return why.replace(/^not measured: /, '');
}

/** A key whose measurement a limit of the run (request budget, deadline) cut short (the scenario notes it so). */
export function leftOutByLimit(r: Pick<KeyRateLimitResult, 'note'>): boolean {
  return r.note?.startsWith(LEFT_OUT) ?? false;
}
/** How the scenario's note of a key that a limit of the run stopped begins. */
export const LEFT_OUT = 'left out: ';

/** Whether the quota suite saw the daily quota enforced (or not) to the end: stopped early, it measured nothing. */
export function quotaMeasured(r: Pick<QuotaResult, 'stopped' | 'sent'>): boolean {
  return r.sent > 0 && r.stopped === null;
}
