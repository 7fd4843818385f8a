/**
 * The rate-limit headers of a response (section 8: X-RateLimit-Limit, -Remaining, -Reset; section 7: Retry-After on
 * a 429), read in one place for the response checks, the rate-limit checks, the pacing policy and the preflight.
 * Reading never throws: a header that is absent, malformed or repeated with different values reads as null.
 */
import type { Exchange, RecordedResponse } from './exchange.js';
import { parseRetryAfter } from './retry-after.js';

export type RateLimitName = 'limit' | 'remaining' | 'reset';

/** The value of a header when it has exactly one (identical repeats collapse: proxies duplicate headers). */
function single(ex: { response: RecordedResponse | null }, name: string): string | null {
  const v = ex.response?.headers[name];
  if (v === undefined) return null;
  if (typeof v === 'string') return v.trim();
  const values = [...new Set((Array.isArray(v) ? v : [v]).map((x) => String(x).trim()))];
  return values.length === 1 ? values[0]! : null;
}

/** X-RateLimit-<name> as an exact non-negative integer (digits only), or null. */
export function rateLimitValue(ex: { response: RecordedResponse | null }, name: RateLimitName): bigint | null {
  const v = single(ex, `x-ratelimit-${name}`);
  return v !== null && /^\d{1,40}$/.test(v) ? BigInt(v) : null;
}

/** X-RateLimit-<name> as a number (null when absent, malformed, or beyond exact integers). */
export function rateLimitNumber(ex: { response: RecordedResponse | null }, name: RateLimitName): number | null {
  const v = rateLimitValue(ex, name);
  return v === null || v > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(v);
}

/** A Reset that is plausibly epoch seconds (the spec's unit), as epoch ms; null for milliseconds, relative seconds. */
export function resetEpochMs(reset: number | null): number | null {
  return reset !== null && reset > 1e9 && reset < 1e11 ? reset * 1000 : null;
}

/**
 * Retry-After as a wait in ms (delta-seconds, or an HTTP-date measured from the response's Date header when it has
 * one, else from `now`, by default when the response arrived), or null when absent or in neither form.
 */
export function retryAfterMs(ex: Exchange, now = ex.startedAt + ex.durationMs): number | null {
  const value = single(ex, 'retry-after');
  if (value === null) return null;
  return parseRetryAfter(value, now, single(ex, 'date') ?? undefined)?.ms ?? null;
}

/** What one response says about its key's rate limit. */
export interface RateLimitReading {
  readonly limit: number | null;
  readonly remaining: number | null;
  /** X-RateLimit-Reset as sent (epoch seconds per the spec), and as epoch ms when it is plausibly that. */
  readonly reset: number | null;
  readonly resetAtMs: number | null;
  /** Retry-After in ms (429s), or null. */
  readonly retryAfterMs: number | null;
}

export function readRateLimit(ex: Exchange, now?: number): RateLimitReading {
  const reset = rateLimitNumber(ex, 'reset');
  return {
    limit: rateLimitNumber(ex, 'limit'),
    remaining: rateLimitNumber(ex, 'remaining'),
    reset,
    resetAtMs: resetEpochMs(reset),
    retryAfterMs: retryAfterMs(ex, now),
  };
}
