// The one reader of the rate-limit headers, shared by the checks, the pacing policy and the preflight.
import { describe, expect, test } from 'vitest';
import type { Exchange } from '../../http/exchange.js';
import { bareExchange } from '../support/bare-exchange.js';
import {
  RATE_LIMIT_HEADERS,
  RATE_LIMIT_NAMES,
  rateLimitLabel,
  rateLimitValue,
  readRateLimit,
  resetEpochMs,
  retryAfterMs,
} from '../../http/rate-limit-headers.js';
import { contract } from '../../spec/contract.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);

function ex(headers: Record<string, string | string[]>, status = 200): Exchange {
  return bareExchange(status, headers, NOW, 10);
}

test('the headers read are those the contract lists, and their labels are its spelling', () => {
  expect(RATE_LIMIT_NAMES.map((n) => RATE_LIMIT_HEADERS[n])).toEqual(contract.rateLimitHeaders);
  expect(RATE_LIMIT_NAMES.map(rateLimitLabel)).toEqual([
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
  ]);
  expect(RATE_LIMIT_NAMES.map((n) => rateLimitLabel(n).toLowerCase())).toEqual(contract.rateLimitHeaders);
});

describe('readRateLimit', () => {
  test('reads the three headers as integers and a plausible epoch-seconds Reset as ms', () => {
    const r = readRateLimit(
      ex({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': ' 59 ', 'x-ratelimit-reset': String(NOW / 1000 + 30) }),
    );
    expect(r).toEqual({
      limit: 60,
      remaining: 59,
      reset: NOW / 1000 + 30,
      resetAtMs: NOW + 30_000,
      retryAfterMs: null,
    });
  });

  test('a value that is not digits, or repeated with different values, reads as null; identical repeats collapse', () => {
    expect(rateLimitValue(ex({ 'x-ratelimit-remaining': '-1' }), 'remaining')).toBeNull();
    expect(rateLimitValue(ex({ 'x-ratelimit-reset': '1712345678.123' }), 'reset')).toBeNull();
    expect(rateLimitValue(ex({ 'x-ratelimit-limit': ['60', '1000'] }), 'limit')).toBeNull();
    expect(rateLimitValue(ex({ 'x-ratelimit-limit': ['60', '60'] }), 'limit')).toBe(60n);
    expect(rateLimitValue(ex({}), 'limit')).toBeNull();
  });

  test('a Reset in milliseconds or in seconds remaining is not an epoch to wait for', () => {
    expect(resetEpochMs(NOW)).toBeNull();
    expect(resetEpochMs(30)).toBeNull();
    expect(resetEpochMs(NOW / 1000)).toBe(NOW);
  });

  test('Retry-After: delta-seconds, or an HTTP-date from the Date header; a fraction is neither form', () => {
    expect(retryAfterMs(ex({ 'retry-after': '3' }, 429))).toBe(3000);
    const date = new Date(NOW).toUTCString();
    expect(retryAfterMs(ex({ 'retry-after': new Date(NOW + 5000).toUTCString(), date }, 429))).toBe(5000);
    // Without a Date header, an HTTP-date is measured from when the response arrived.
    expect(retryAfterMs(ex({ 'retry-after': new Date(NOW + 5000).toUTCString() }, 429))).toBe(4990);
    expect(retryAfterMs(ex({ 'retry-after': '0.25' }, 429))).toBeNull();
  });
});
