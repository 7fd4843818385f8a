/**
 * The rate-limit and quota suites against the reference server: the faultless server passes with each limiter
 * algorithm, in little more than one window, spending about one plan's worth of requests per key.
 */
import { describe, expect, test } from 'vitest';
import { generateKeys, type LimiterAlgorithm } from '../../reference/server.js';
import type { RateLimitResult } from '../../runner/scenarios/rate-limit.js';
import { PLANS, runRateLimit } from './support.js';

const WINDOW_S = 2;
const failing = (fs: readonly { level: string; checkId: string; message: string }[]) =>
  fs.filter((f) => f.level !== 'observation').map((f) => `${f.checkId}: ${f.message}`);

describe.concurrent('the faultless reference server passes', () => {
  for (const algorithm of ['fixed-window', 'sliding-window', 'token-bucket'] as LimiterAlgorithm[]) {
    test(`rate-limit suite, ${algorithm} limiter, ${WINDOW_S} s window`, async () => {
      const r = await runRateLimit('rate-limit', { windowSeconds: WINDOW_S, algorithm, plans: PLANS });
      expect(r.aborted).toBeNull();
      expect(failing(r.findings)).toEqual([]);
      const results = r.rateLimitResults as RateLimitResult[];
      expect(results.map((x) => x.plan).sort()).toEqual(['business', 'free', 'pro']);
      for (const x of results) {
        // Every key was paced, burst to a 429, waited Retry-After and was accepted again.
        expect(x.paced.got429, x.plan).toBe(false);
        expect(x.paced.sent, x.plan).toBeGreaterThan(0);
        expect(x.recovered, x.plan).toBe(true);
        expect(x.burst?.first429AtRequest, x.plan).toBeGreaterThan(0);
        expect(x.burst!.accepted, x.plan).toBeGreaterThanOrEqual(x.burst!.fromRemaining!);
        // About one plan's worth of requests: never more than twice the limit (a token bucket refills in the burst).
        expect(x.requests, x.plan).toBeLessThanOrEqual(2 * x.limit + 50);
      }
      // All keys in parallel: about 1.5 windows at 2 s (whole-second Retry-After dominates); a loaded machine may
      // push a burst across a window boundary and measure again, so the bound only catches keys run one by one.
      expect(r.wallMs).toBeLessThan(WINDOW_S * 1000 * 4);
      // Observations only: the 401 gap is recorded.
      expect(r.findings.some((f) => f.checkId === 'rl-401-rate-limited')).toBe(true);
    });
  }

  test('quota suite: an Enterprise key with 5/min and 8/day gets 8, then a daily 429 at the day boundary', async () => {
    const waits: string[] = [];
    const r = await runRateLimit('quota', {
      windowSeconds: 1,
      dayWindowSeconds: 30,
      keys: generateKeys({ enterprise: { requestsPerMinute: 5, requestsPerDay: 8 } }),
      onWait: (_ms, reason) => waits.push(reason),
    });
    expect(r.aborted).toBeNull();
    expect(failing(r.findings)).toEqual([]);
    expect(r.rateLimitResults[0]).toMatchObject({ plan: 'enterprise', accepted: 8, sent: 9, stopped: null });
    // The run said how long it would take before it started.
    expect(waits[0]).toMatch(/^quota: spending the enterprise key's 8 requests per day at 4.5 per 1 s takes about 2 s$/);
  });
});
