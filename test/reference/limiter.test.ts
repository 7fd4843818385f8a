import { describe, expect, test } from 'vitest';
import { RateLimiter, type LimiterAlgorithm, type LimiterDefects } from '../../reference/limiter.js';

const ALGORITHMS: LimiterAlgorithm[] = ['fixed-window', 'fixed-window-aligned', 'sliding-window', 'token-bucket'];
const W = 1000;
const LIMITS = { requestsPerMinute: 5, requestsPerDay: 1000 };
const T0 = 1_700_000_000_000;

function limiter(
  algorithm: LimiterAlgorithm,
  defects: LimiterDefects = {},
  more: { banAfter?: number } = {},
): RateLimiter {
  return new RateLimiter({
    algorithm,
    windowMs: W,
    dayWindowMs: 100 * W,
    banAfter: more.banAfter ?? 100,
    banMs: 5 * W,
    defects,
  });
}

/** Sends requests at `now` until the first rejection (bounded); returns how many were admitted. */
function burst(l: RateLimiter, key: string, now: number, max = 50): number {
  for (let i = 0; i < max; i++) if (!l.take(key, LIMITS, now).allowed) return i;
  return max;
}

for (const algorithm of ALGORITHMS) {
  describe(algorithm, () => {
    test('a rested key gets exactly its limit in a burst, then 429 with a sound Retry-After', () => {
      const l = limiter(algorithm);
      const remaining: number[] = [];
      for (let i = 0; i < 5; i++) {
        const d = l.take('k', LIMITS, T0 + i);
        expect(d.allowed).toBe(true);
        expect(d.limit).toBe(5);
        remaining.push(d.remaining);
      }
      expect(remaining).toEqual([4, 3, 2, 1, 0]);
      const rejected = l.take('k', LIMITS, T0 + 5);
      expect(rejected.allowed).toBe(false);
      expect(rejected.banned).toBe(false);
      expect(Number.isInteger(rejected.retryAfter)).toBe(true);
      expect(rejected.retryAfter).toBeGreaterThanOrEqual(1);
      expect(rejected.retryAfter * 1000).toBeGreaterThanOrEqual(rejected.waitMs);
      expect(rejected.remaining).toBe(0);
      // Just before the real wait ends it is still refused; after Retry-After it is admitted.
      expect(l.take('k', LIMITS, T0 + 5 + rejected.waitMs - 2).allowed).toBe(false);
      const later = l.take('k', LIMITS, T0 + 5 + rejected.retryAfter * 1000);
      expect(later.allowed).toBe(true);
    });

    test('rejected requests do not consume: after a full rest the next burst is the whole limit again', () => {
      const l = limiter(algorithm);
      expect(burst(l, 'k', T0)).toBe(5);
      for (let i = 0; i < 5; i++) expect(l.take('k', LIMITS, T0 + 10 + i).allowed).toBe(false);
      expect(burst(l, 'k', T0 + 2 * W + 20)).toBe(5);
    });

    test('the charge-rejected defect makes the next burst shorter (so the test above can fail)', () => {
      const l = limiter(algorithm, { chargeRejected: true });
      expect(burst(l, 'k', T0)).toBe(5);
      for (let i = 0; i < 3; i++) l.take('k', LIMITS, T0 + 10 + i);
      // Before a full rest for the sliding window and the bucket, whose charge decays; the fixed window carries it.
      const next = burst(l, 'k', algorithm === 'fixed-window' ? T0 + 2 * W + 20 : T0 + W + 20);
      expect(next).toBeLessThan(5);
    });

    test('keys are independent', () => {
      const l = limiter(algorithm);
      expect(burst(l, 'a', T0)).toBe(5);
      expect(burst(l, 'b', T0 + 1)).toBe(5);
      expect(l.take('a', LIMITS, T0 + 2).allowed).toBe(false);
    });

    test('Reset is never in the past and within the window; Remaining stays within 0..Limit', () => {
      const l = limiter(algorithm);
      let seed = 7;
      let now = T0;
      let rejections = 0;
      for (let i = 0; i < 500; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        now += seed % 300;
        const d = l.take('k', LIMITS, now);
        expect(Math.ceil(d.resetAt / 1000) * 1000).toBeGreaterThanOrEqual(now);
        expect(d.resetAt).toBeLessThanOrEqual(now + W);
        expect(d.remaining).toBeGreaterThanOrEqual(0);
        expect(d.remaining).toBeLessThanOrEqual(d.limit);
        if (!d.allowed) {
          // Waiting Retry-After, with no request in between, always works.
          rejections++;
          expect(d.retryAfter).toBeGreaterThanOrEqual(1);
          now += d.retryAfter * 1000;
          expect(l.take('k', LIMITS, now).allowed).toBe(true);
        }
      }
      expect(rejections).toBeGreaterThan(10);
    });

    test('the day window binds with tiny Enterprise limits and then describes the headers', () => {
      const l = new RateLimiter({ algorithm, windowMs: W, dayWindowMs: 10 * W, banAfter: 100, banMs: 5 * W });
      const tiny = { requestsPerMinute: 3, requestsPerDay: 5 };
      for (let i = 0; i < 3; i++) expect(l.take('e', tiny, T0 + i).allowed).toBe(true);
      const minute = l.take('e', tiny, T0 + 3);
      expect(minute.allowed).toBe(false);
      expect(minute.limit).toBe(3);
      let now = T0 + 3 + minute.retryAfter * 1000;
      expect(l.take('e', tiny, now).allowed).toBe(true);
      // The day has one request left: its window describes the headers now.
      const second = l.take('e', tiny, now + 1);
      expect(second.allowed).toBe(true);
      expect(second.limit).toBe(5);
      expect(second.remaining).toBe(0);
      expect(second.resetAt).toBe(T0 + 10 * W);
      now += W + 10;
      const day = l.take('e', tiny, now);
      expect(day.allowed).toBe(false);
      expect(day.limit).toBe(5);
      expect(day.resetAt).toBe(T0 + 10 * W);
      expect(day.retryAfter).toBe(Math.ceil((T0 + 10 * W - now) / 1000));
      expect(l.take('e', tiny, T0 + 10 * W).allowed).toBe(true);
    });

    test('ban after more than banAfter requests sent while limited', () => {
      const l = limiter(algorithm, {}, { banAfter: 2 });
      expect(burst(l, 'k', T0)).toBe(5);
      expect(l.take('k', LIMITS, T0 + 1).banned).toBe(false);
      expect(l.take('k', LIMITS, T0 + 2).banned).toBe(false);
      const ban = l.take('k', LIMITS, T0 + 3);
      expect(ban.banned).toBe(true);
      expect(ban.allowed).toBe(false);
      expect(ban.retryAfter).toBe(5);
      expect(ban.remaining).toBe(0);
      expect(l.take('k', LIMITS, T0 + 3 + 4 * W).banned).toBe(true);
      expect(l.take('k', LIMITS, T0 + 3 + 5 * W).allowed).toBe(true);
      expect(l.take('other', LIMITS, T0 + 4).allowed).toBe(true);
    });

    test('a client that waits Retry-After is never banned', () => {
      const l = limiter(algorithm, {}, { banAfter: 0 });
      let now = T0;
      for (let round = 0; round < 5; round++) {
        let d = l.take('k', LIMITS, now);
        for (let i = 0; i < 10 && d.allowed; i++) d = l.take('k', LIMITS, now);
        expect(d.allowed).toBe(false);
        expect(d.banned).toBe(false);
        now += d.retryAfter * 1000;
      }
    });

    test('the anonymous bucket is reported, never enforced', () => {
      const l = limiter(algorithm);
      for (let i = 0; i < 20; i++) {
        const d = l.take('anon', LIMITS, T0 + i, false);
        expect(d.allowed).toBe(true);
        expect(d.remaining).toBe(Math.max(0, 4 - i));
      }
    });

    test('defects: off-by-one admits 6, stricter admits 4, not-enforced admits all, never-resets stays shut', () => {
      expect(burst(limiter(algorithm, { minuteSlack: 1 }), 'k', T0)).toBe(6);
      expect(burst(limiter(algorithm, { minuteSlack: -1 }), 'k', T0)).toBe(4);
      expect(burst(limiter(algorithm, { notEnforced: true }), 'k', T0)).toBe(50);
      const stuck = limiter(algorithm, { neverResets: true });
      burst(stuck, 'k', T0);
      const d = stuck.take('k', LIMITS, T0 + 1);
      expect(stuck.take('k', LIMITS, T0 + 1 + d.retryAfter * 1000).allowed).toBe(false);
    });
  });
}

test('sliding window weighs the previous window', () => {
  const l = limiter('sliding-window');
  expect(burst(l, 'k', T0)).toBe(5);
  // Halfway through the next window, half of the previous 5 still counts: 2 more fit.
  expect(l.take('k', LIMITS, T0 + 1.5 * W).remaining).toBe(1);
  expect(l.take('k', LIMITS, T0 + 1.5 * W).allowed).toBe(true);
  expect(l.take('k', LIMITS, T0 + 1.5 * W).allowed).toBe(false);
});

test("a clock-aligned fixed window: every key's window ends on the same boundary, which its Reset names", () => {
  const l = limiter('fixed-window-aligned');
  // A key's first request 0.9 of a window past a boundary: its window ends 0.1 of a window later, as does another's.
  const first = l.take('a', LIMITS, T0 + 0.9 * W);
  expect(first.resetAt).toBe(T0 + W);
  expect(l.take('b', LIMITS, T0 + 0.95 * W).resetAt).toBe(T0 + W);
  // A burst across the boundary gets most of two windows' worth.
  expect(burst(l, 'c', T0 + 0.99 * W) + burst(l, 'c', T0 + W)).toBe(10);
  const refused = l.take('c', LIMITS, T0 + 1.5 * W);
  expect(refused.allowed).toBe(false);
  expect(refused.resetAt).toBe(T0 + 2 * W);
  expect(refused.waitMs).toBe(0.5 * W);
});

test('token bucket refills one token per window/limit', () => {
  const l = limiter('token-bucket');
  expect(burst(l, 'k', T0)).toBe(5);
  const d = l.take('k', LIMITS, T0 + 100);
  expect(d.allowed).toBe(false);
  expect(d.waitMs).toBeCloseTo(100, 5);
  expect(d.retryAfter).toBe(1);
  expect(l.take('k', LIMITS, T0 + 200).allowed).toBe(true);
  expect(l.take('k', LIMITS, T0 + 200).allowed).toBe(false);
});

describe('a read-modify-write across an await (readThenWrite, the rl-lost-increments fault)', () => {
  for (const algorithm of ALGORITHMS) {
    test(`${algorithm}: one at a time every request counts; read together, the writes after the first are lost`, () => {
      const l = limiter(algorithm);
      // Sequential: each read after the previous write.
      for (let i = 0; i < 2; i++) expect(l.readThenWrite('k', LIMITS)(T0).allowed).toBe(true);
      expect(l.take('k', LIMITS, T0).remaining).toBe(2);
      // Three reads before any write: one increment of the three lands.
      const other = limiter(algorithm);
      const writes = [0, 1, 2].map(() => other.readThenWrite('k', LIMITS));
      expect(writes.map((w) => w(T0).allowed)).toEqual([true, true, true]);
      expect(other.take('k', LIMITS, T0).remaining).toBe(3);
    });
  }
});

describe('the day count alone read, then written (dayLostIncrementsMs, the quota-lost-increments fault)', () => {
  test('read together, the day loses the writes after the first and the minute window counts every one', () => {
    const QUOTA = { requestsPerMinute: 10, requestsPerDay: 3 };
    const l = limiter('fixed-window', { dayLostIncrementsMs: 20 });
    const writes = [0, 1, 2, 3, 4].map(() => l.readThenWrite('k', QUOTA));
    // Five accepted from a quota of 3: four day increments lost.
    expect(writes.map((w) => w(T0).allowed)).toEqual([true, true, true, true, true]);
    const d = l.take('k', QUOTA, T0);
    expect(d.dayRemaining).toBe(1);
    // The minute window counted all six.
    expect(l.take('k', { requestsPerMinute: 10, requestsPerDay: 1000 }, T0).remaining).toBe(3);
    // One at a time, every request counts: the quota is then enforced.
    const one = limiter('fixed-window', { dayLostIncrementsMs: 20 });
    expect([0, 1, 2, 3].map(() => one.readThenWrite('k', QUOTA)(T0).allowed)).toEqual([true, true, true, false]);
  });
});
