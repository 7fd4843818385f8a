/**
 * Conformant limiter timings the rate-limit suite must not read as faults (issue 28): a fixed window aligned to the
 * clock, a limiter that counts a request in the Remaining it reports only once it has answered it, and answers held
 * back with jitter. The server's time is the test's (a clock that holds every answer until the test releases it), so
 * what overlaps is chosen, never raced.
 */
import { describe, expect, test } from 'vitest';
import { RateLimiter } from '../../reference/limiter.js';
import { generateKeys, startReferenceServer, type ReferenceClock } from '../../reference/server.js';
import { call, ManualClock } from './support.js';

/** A server time that holds every delayed answer until the test releases it. */
class HoldingClock extends ManualClock implements ReferenceClock {
  readonly queue: { ms: number; fn: () => void }[] = [];
  override later(ms: number, fn: () => void): void {
    this.held.push(ms);
    this.queue.push({ ms, fn });
  }
  /** Releases the held answer at `index` (in the order they were held). */
  release(index: number): void {
    const [h] = this.queue.splice(index, 1);
    h!.fn();
  }
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

const keys = () => generateKeys({ enterprise: { requestsPerMinute: 10, requestsPerDay: 1000 } });

describe('a fixed window aligned to the clock', () => {
  test('every window ends on a whole multiple of its length: the Reset it announces, then a fresh limit', () => {
    const W = 2000;
    const l = new RateLimiter({
      algorithm: 'fixed-window-aligned',
      windowMs: W,
      dayWindowMs: 100 * W,
      banAfter: 100,
      banMs: W,
    });
    const limits = { requestsPerMinute: 3, requestsPerDay: 1000 };
    const T = 1_700_000_000_000 + 1500; // 1.5 s into a 2 s window of the clock
    const first = l.take('k', limits, T);
    expect(first.resetAt).toBe(T - 1500 + W);
    expect([l.take('k', limits, T + 1).allowed, l.take('k', limits, T + 2).allowed]).toEqual([true, true]);
    expect(l.take('k', limits, T + 3).allowed).toBe(false);
    // 0.5 s later, at the Reset it announced: a fresh limit, whatever the key's first request.
    const next = l.take('k', limits, T - 1500 + W);
    expect(next.allowed).toBe(true);
    expect(next.remaining).toBe(2);
    expect(next.resetAt).toBe(T - 1500 + 2 * W);
  });
});

describe('answer timing', () => {
  test('jitter: each answer is held back 0 to answerJitterMs ms after the decision, so answers overtake', async () => {
    const clock = new HoldingClock();
    const server = await startReferenceServer({ keys: keys(), answerJitterMs: 50 }, clock);
    try {
      const order: string[] = [];
      const a = call(server, 'GET', '/pets?limit=1').then((r) => {
        order.push('a');
        return r;
      });
      await until(() => clock.queue.length === 1);
      const b = call(server, 'GET', '/pets?limit=1').then((r) => {
        order.push('b');
        return r;
      });
      await until(() => clock.queue.length === 2);
      clock.release(1);
      const rb = await b;
      clock.release(0);
      const ra = await a;
      expect(order).toEqual(['b', 'a']);
      // Decided in the order they arrived (counted then): a took the first slot, b the second.
      expect([ra.headers['x-ratelimit-remaining'], rb.headers['x-ratelimit-remaining']]).toEqual(['9', '8']);
      expect(clock.held.every((ms) => ms >= 0 && ms < 50)).toBe(true);
    } finally {
      await server.close();
    }
  });

  test('count after answer: an answer leaves out the requests still being answered, never what was answered', async () => {
    const clock = new HoldingClock();
    const server = await startReferenceServer({ keys: keys(), answerJitterMs: 50, countAfterAnswer: true }, clock);
    try {
      const pending = [0, 1, 2].map(async (i) => {
        await until(() => clock.queue.length === i);
        return call(server, 'GET', '/pets?limit=1');
      });
      await until(() => clock.queue.length === 3);
      for (let i = 0; i < 3; i++) clock.release(0);
      const replies = await Promise.all(pending);
      // Each was decided with the others under way: its Remaining counts itself only (10 - 1), whatever was decided.
      expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['9', '9', '9']);
      // With nothing in flight, the next answer counts every request answered before it: 10 - 4.
      const next = call(server, 'GET', '/pets?limit=1');
      await until(() => clock.queue.length === 1);
      clock.release(0);
      expect((await next).headers['x-ratelimit-remaining']).toBe('6');
      // Enforcement stays exact: 6 more are accepted, then 429.
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const r = call(server, 'GET', '/pets?limit=1');
        await until(() => clock.queue.length === 1);
        clock.release(0);
        statuses.push((await r).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
    } finally {
      await server.close();
    }
  });
});
