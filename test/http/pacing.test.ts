// The pacing policy: wait for the window when Remaining is spent, honour Retry-After with backoff, stop a key that
// keeps getting 429 (section 8 rule 3: continuing may get it banned).
import { describe, expect, test } from 'vitest';
import { KeyBlockedError } from '../../errors/catalogue.js';
import { Pacer } from '../../http/pacing.js';
import type { Exchange } from '../../http/exchange.js';
import { bareExchange } from '../support/bare-exchange.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);

function ex(status: number, headers: Record<string, string>): Exchange {
  return bareExchange(status, headers, NOW, 1);
}

function pacer() {
  const waits: number[] = [];
  let now = NOW;
  const p = new Pacer({
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
    random: () => 0,
  });
  return {
    p,
    waits,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('Pacer', () => {
  test('sends freely while Remaining is above the reserve, then waits for the reset', async () => {
    const { p, waits } = pacer();
    p.after('free', ex(200, { 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': String(NOW / 1000 + 10) }));
    await p.before('free');
    expect(waits).toEqual([]);
    await p.before('free');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(10_000);
    expect(waits[0]).toBeLessThan(11_000);
  });

  test('ignores a Reset that is not epoch seconds (it cannot be waited for soundly)', async () => {
    const { p, waits } = pacer();
    p.after('free', ex(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW + 10_000) }));
    await p.before('free');
    expect(waits).toEqual([]);
  });

  test('on a 429 waits Retry-After (delta-seconds), backing off exponentially on repeats', () => {
    const { p } = pacer();
    expect(p.after('free', ex(429, { 'retry-after': '2' }))).toBe(2000);
    expect(p.after('free', ex(429, { 'retry-after': '0' }))).toBe(1000);
  });

  test('reads an HTTP-date Retry-After relative to the Date header', () => {
    const { p } = pacer();
    const date = new Date(NOW).toUTCString();
    const at = new Date(NOW + 5000).toUTCString();
    expect(p.after('free', ex(429, { 'retry-after': at, date }))).toBe(5000);
  });

  test('stops using a key after three 429s in a row', () => {
    const { p } = pacer();
    p.after('free', ex(429, { 'retry-after': '1' }));
    p.after('free', ex(429, { 'retry-after': '1' }));
    expect(() => p.after('free', ex(429, { 'retry-after': '1' }))).toThrow(KeyBlockedError);
  });

  test('a success resets the count; keys are paced independently', () => {
    const { p } = pacer();
    p.after('free', ex(429, { 'retry-after': '1' }));
    p.after('free', ex(429, { 'retry-after': '1' }));
    p.after('free', ex(200, {}));
    expect(() => p.after('free', ex(429, { 'retry-after': '1' }))).not.toThrow();
    expect(() => p.after('pro', ex(429, { 'retry-after': '1' }))).not.toThrow();
  });

  test('refuses a wait longer than the run allows', () => {
    const { p } = pacer();
    expect(() => p.after('free', ex(429, { 'retry-after': '86400' }))).toThrow(/longer than the run may wait/);
  });
});

describe('Pacer shared by lanes side by side (--concurrency)', () => {
  const reset = String(NOW / 1000 + 10);

  test('a Remaining read while other requests are in flight is lowered by them', async () => {
    const { p, waits } = pacer();
    // Three lanes send before any answer is known.
    await Promise.all([p.before('pro'), p.before('pro'), p.before('pro')]);
    // The first answer says 4 left; the two requests still in flight will spend two of them.
    p.settle('pro');
    p.after('pro', ex(200, { 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': reset }));
    await p.before('pro'); // the last one above the reserve (1)
    expect(waits).toEqual([]);
    await p.before('pro');
    expect(waits).toHaveLength(1);
  });

  test('one lane alone reads Remaining as it is (nothing in flight)', async () => {
    const { p, waits } = pacer();
    await p.before('pro');
    p.settle('pro');
    p.after('pro', ex(200, { 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': reset }));
    await p.before('pro');
    await p.before('pro');
    expect(waits).toEqual([]);
    await p.before('pro');
    expect(waits).toHaveLength(1);
  });

  test('lanes meeting a spent window wait out one reset together, then go on', async () => {
    const { p, waits } = pacer();
    p.after('pro', ex(200, { 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': reset }));
    await Promise.all([p.before('pro'), p.before('pro'), p.before('pro'), p.before('pro')]);
    expect(waits).toHaveLength(1);
    expect(p.waitedMs).toBe(waits[0]);
  });
});
