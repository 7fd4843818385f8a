/**
 * The rate-limit headers of a response (section 8: X-RateLimit-Limit, -Remaining, -Reset; section 7: Retry-After on
 * a 429), read in one place for the response checks, the rate-limit checks, the pacing policy and the preflight.
 * Reading never throws: a header that is absent, malformed or repeated with different values reads as null.
 */
import type { Exchange, RecordedResponse } from './exchange.js';
import { singleHeader } from './header-read.js';
import { Recent } from './recent.js';
import { parseRetryAfter } from './retry-after.js';

export type RateLimitName = 'limit' | 'remaining' | 'reset';

/** One X-RateLimit header of a response, as a number and exactly (null when absent or malformed). */
interface Reading {
  /** Null when absent, malformed or beyond exact integers. */
  readonly number: number | null;
  readonly exact: bigint | null;
}

type Readings = Readonly<Record<RateLimitName, Reading>>;

/**
 * The X-RateLimit headers of the latest responses, each read once: the response checks, the pacer and the ledger
 * (Ledger.answered, runner/ledger.ts) all ask for them on every exchange, one right after the other. Remembered by
 * the response's (read-only) headers object.
 */
const recentReadings = new Recent<object, Readings>(8);

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** The three headers of section 8, as recorded (lower case); the contract lists the same (a test holds them alike). */
export const RATE_LIMIT_HEADERS: Readonly<Record<RateLimitName, string>> = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
};
export const RATE_LIMIT_NAMES = Object.keys(RATE_LIMIT_HEADERS) as readonly RateLimitName[];

/** A rate-limit header's name as the spec writes it (X-RateLimit-Limit), for messages. */
export function rateLimitLabel(name: RateLimitName): string {
  return `X-RateLimit-${name[0]!.toUpperCase()}${name.slice(1)}`;
}

function reading(ex: { response: RecordedResponse | null }, name: RateLimitName): Reading {
  const v = singleHeader(ex, RATE_LIMIT_HEADERS[name]);
  if (v === null || !/^\d{1,40}$/.test(v)) return { number: null, exact: null };
  // Every judged exchange asks for all three exactly (the response checks): made at once.
  const exact = BigInt(v);
  return { number: exact <= MAX_SAFE ? Number(v) : null, exact };
}

function readingsOf(ex: { response: RecordedResponse | null }): Readings | null {
  const headers = ex.response?.headers;
  if (headers === undefined || headers === null || typeof headers !== 'object') return null;
  return recentReadings.of(headers, () => ({
    limit: reading(ex, 'limit'),
    remaining: reading(ex, 'remaining'),
    reset: reading(ex, 'reset'),
  }));
}

/** X-RateLimit-<name> as an exact non-negative integer (digits only), or null. */
export function rateLimitValue(ex: { response: RecordedResponse | null }, name: RateLimitName): bigint | null {
  return readingsOf(ex)?.[name].exact ?? null;
}

/** X-RateLimit-<name> as a number (null when absent, malformed, or beyond exact integers). */
export function rateLimitNumber(ex: { response: RecordedResponse | null }, name: RateLimitName): number | null {
  return readingsOf(ex)?.[name].number ?? null;
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
  const value = singleHeader(ex, 'retry-after');
  if (value === null) return null;
  return parseRetryAfter(value, now, singleHeader(ex, 'date') ?? undefined)?.ms ?? null;
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
