// The run's traffic over time (runner/traffic.ts): answers per key and second by status class, the waits, and a
// timeline that stays a few hundred buckets long whatever the run's length.
import { describe, expect, it } from 'vitest';
import { MAX_BUCKETS, MAX_WAITS, statusClass, Traffic } from '../../runner/traffic.js';

const T0 = 1_800_000_000_000;
const answer = (keyPlan: 'free' | 'pro' | 'none', atMs: number, status: number | null) => ({
  keyPlan,
  startedAt: T0 + atMs,
  durationMs: 10,
  response: status === null ? null : ({ status } as never),
});

describe('traffic', () => {
  it('counts answers per key and second by status class, 401 and 429 apart, no answer as error', () => {
    expect([200, 201, 401, 429, 404, 400, 500, 302].map((s) => statusClass(answer('free', 0, s)))).toEqual([
      '2xx',
      '2xx',
      '401',
      '429',
      '4xx',
      '4xx',
      '5xx',
      'other',
    ]);
    const t = new Traffic(T0);
    for (const [plan, at, status] of [
      ['free', 100, 200],
      ['free', 900, 200],
      ['free', 1_200, 429],
      ['free', 1_300, null],
      ['pro', 2_500, 201],
      ['none', 50, 401],
    ] as const)
      t.answered(answer(plan, at, status));
    const snap = t.snapshot();
    expect(snap.bucketSeconds).toBe(1);
    // To the end of the last answer (2.5 s + 10 ms), rounded up.
    expect(snap.seconds).toBe(2.6);
    expect(snap.keys.map((k) => k.plan)).toEqual(['free', 'none', 'pro']);
    const free = snap.keys[0]!;
    expect(free.totals).toEqual({ '2xx': 2, '429': 1, error: 1 });
    expect(free.buckets).toEqual([
      { at: 0, counts: { '2xx': 2 } },
      { at: 1, counts: { '429': 1, error: 1 } },
    ]);
    expect(snap.keys[2]!.buckets).toEqual([{ at: 2, counts: { '2xx': 1 } }]);
  });

  it('a long run is drawn in wider buckets, at most MAX_BUCKETS per key, with every answer still counted', () => {
    const t = new Traffic(T0);
    // Two hours, an answer every 3 s.
    for (let ms = 0; ms < 2 * 3600_000; ms += 3_000) t.answered(answer('pro', ms, ms % 60_000 === 0 ? 429 : 200));
    const snap = t.snapshot();
    expect(snap.bucketSeconds).toBeGreaterThan(1);
    const pro = snap.keys[0]!;
    expect(pro.buckets.length).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(pro.totals).toEqual({ '2xx': 2400 - 120, '429': 120 });
    const counted = pro.buckets.reduce((n, b) => n + (b.counts['2xx'] ?? 0) + (b.counts['429'] ?? 0), 0);
    expect(counted).toBe(2400);
    expect(pro.buckets.every((b) => b.at % snap.bucketSeconds === 0)).toBe(true);
  });

  it('widens its buckets while a long run goes on: what it holds stays bounded, every answer counted', () => {
    const t = new Traffic(T0);
    // A day, an answer every second, for two plans.
    for (let s = 0; s < 86_400; s++) {
      t.answered(answer('pro', s * 1000, 200));
      t.answered(answer('free', s * 1000 + 500, s % 10 === 0 ? 429 : 200));
      expect(t.held()).toBeLessThanOrEqual(2 * 2 * MAX_BUCKETS);
    }
    const snap = t.snapshot();
    expect(snap.keys.map((k) => k.totals)).toEqual([{ '2xx': 77_760, '429': 8_640 }, { '2xx': 86_400 }]);
    for (const k of snap.keys) expect(k.buckets.length).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(snap.keys[1]!.buckets.at(-1)!.at + snap.bucketSeconds).toBeGreaterThanOrEqual(snap.seconds);
  });

  it('lists the waits with their key, start and length; past MAX_WAITS it counts them', () => {
    const t = new Traffic(T0);
    t.waited('free', 2_890, 'free key: 429: waiting Retry-After (3 s)', T0 + 2_530);
    t.waited(null, 0, 'nothing waited', T0 + 3_000);
    expect(t.snapshot().waits).toEqual([
      { plan: 'free', at: 2.53, seconds: 2.89, reason: 'free key: 429: waiting Retry-After (3 s)' },
    ]);
    for (let i = 0; i < MAX_WAITS + 5; i++) t.waited('pro', 1_000, 'window', T0 + i);
    const snap = t.snapshot();
    expect(snap.waits.length).toBe(MAX_WAITS);
    expect(snap.waitsNotListed).toBe(6);
  });
});
