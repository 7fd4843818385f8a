import { describe, expect, it } from 'vitest';
import { decodeHistogram } from '../../load/histogram.js';
import { PROFILES } from '../../load/profiles.js';
import { silentProgress } from '../../load/progress.js';
import { runScenario } from '../../load/run-scenario.js';
import { mixConnectionsScenario } from '../../load/scenarios/mix-connections.js';
import { mixRateScenario } from '../../load/scenarios/mix-rate.js';
import { limiterOutcome, planRateScenario } from '../../load/scenarios/plan-rate.js';
import type { TargetKey } from '../../load/target.js';
import { ApiKey } from '../../http/redact.js';
import { startReferenceServer } from '../../reference/server.js';

const profile = { ...PROFILES.smoke, sampleEvery: 5 };
const ctx = { runStartedAt: Date.now(), progress: silentProgress };

async function server(options: Parameters<typeof startReferenceServer>[0] = {}) {
  const s = await startReferenceServer({ port: 0, windowSeconds: 1, ...options });
  const keys: TargetKey[] = s.keys.map((k) => ({ plan: k.plan, key: new ApiKey(k.key, k.plan), limits: k.limits }));
  return { s, key: (plan: string) => keys.find((k) => k.plan === plan)! };
}

describe('load scenarios against the reference server', () => {
  it('a bounded closed-loop mix: counts, per-class histograms and raw result agree; a conformant server has no findings', async () => {
    const { s, key } = await server();
    try {
      // The request cap ends the run; the duration is only a bound, long enough that a stalled host still reaches it.
      const spec = {
        ...mixConnectionsScenario(s.url, key('enterprise'), profile, { connections: 4, durationSeconds: 30 }),
        maxRequests: 400,
      };
      const r = await runScenario(spec, ctx);
      expect(r.responses).toBe(400);
      expect(r.latencyKind).toBe('response time (closed loop)');
      expect(Object.keys(r.byStatus).sort()).toEqual(['200', '201']);
      const classTotal = Object.values(r.latency).reduce((n, l) => n + decodeHistogram(l!.histogram).totalCount, 0);
      expect(classTotal).toBe(400);
      const raw = r.raw[0] as { statusCodeStats: Record<string, { count: number }> };
      expect(Object.fromEntries(Object.entries(raw.statusCodeStats).map(([k, v]) => [k, v.count]))).toEqual(r.byStatus);
      expect(r.timeline.reduce((n, b) => n + Object.values(b.statuses).reduce((a, c) => a + c, 0), 0)).toBe(400);
      expect(r.conformance).toMatchObject({ responsesChecked: 400, nonConformant: 0 });
      expect(r.conformance.bodiesValidated).toBe(80);
      expect(r.achievedRate).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });

  it('counts non-conformant answers under load, with examples', async () => {
    const { s, key } = await server({ faults: ['rl-headers-missing', 'pet-missing-categoryId'] });
    try {
      const spec = {
        ...mixConnectionsScenario(s.url, key('enterprise'), profile, { connections: 2, durationSeconds: 30 }),
        maxRequests: 100,
      };
      const r = await runScenario(spec, ctx);
      expect(r.conformance.nonConformant).toBe(100);
      expect(r.conformance.byCheck['rate-limit-headers-present']).toBe(100);
      expect(r.conformance.byCheck['body-schema']).toBeGreaterThan(0);
      expect(r.conformance.examples.length).toBeGreaterThan(0);
      expect(r.conformance.examples.some((e) => /X-RateLimit-Limit missing/.test(e.message))).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('an open-loop run shows service time and paces to the asked rate', async () => {
    const { s, key } = await server();
    try {
      const spec = mixRateScenario(s.url, 1, key('pro'), profile, { fraction: 0.5, maxRate: 50, durationSeconds: 2 });
      expect(spec.overallRate).toBe(50);
      const r = await runScenario(spec, ctx);
      expect(r.latencyKind).toMatch(/^service time/);
      expect(r.responses).toBeLessThanOrEqual(100);
      expect(r.responses).toBeGreaterThanOrEqual(50);
      expect(r.byStatus['429']).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it('a plan key at 2× its rate gets about its limit before the first 429, then 429s', async () => {
    const { s, key } = await server();
    try {
      const free = key('free');
      const spec = planRateScenario(s.url, 1, free, profile, 2);
      expect(spec).toMatchObject({ overallRate: 120, durationSeconds: 2, maxRequests: 240 });
      const r = await runScenario(spec, ctx, (rec) => limiterOutcome(spec, free, 1, rec));
      expect(r.limiter!.acceptedBeforeFirst429).toBeGreaterThanOrEqual(54);
      expect(r.limiter!.firstWindowRatio).toBeGreaterThanOrEqual(0.9);
      expect(r.limiter!.acceptedRatio).toBeLessThanOrEqual(1.5);
      expect(r.limiter!.rejected).toBeGreaterThan(0);
      // 429s are fast; they have their own histogram and never enter the 2xx percentiles.
      expect(r.latency['429']!.count).toBe(r.limiter!.rejected);
      expect(r.latency['2xx']!.count).toBe(r.limiter!.accepted);
      expect(r.conformance.nonConformant).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('a missing limiter reads 2 accepted per window at 2× and exceeds the bound', async () => {
    const { s, key } = await server({ faults: ['rl-not-enforced'] });
    try {
      const free = key('free');
      const spec = planRateScenario(s.url, 1, free, profile, 2);
      const r = await runScenario(spec, ctx, (rec) => limiterOutcome(spec, free, 1, rec));
      expect(r.limiter!.rejected).toBe(0);
      expect(r.limiter!.acceptedRatio).toBeGreaterThan(1.5);
    } finally {
      await s.close();
    }
  });

  it('a dead target yields connection errors, and the scenario ends by itself', async () => {
    const { s, key } = await server();
    const url = s.url;
    await s.close();
    // It ends at its duration or request cap (a hang fails at the test's timeout); its wall time is not asserted.
    const r = await runScenario(
      {
        ...mixConnectionsScenario(url, key('enterprise'), profile, { connections: 1, durationSeconds: 1 }),
        maxRequests: 10,
      },
      ctx,
    );
    expect(r.responses).toBe(0);
    expect(r.errors).toBeGreaterThan(0);
    expect(Object.keys(r.errorMessages)).toContain('ECONNREFUSED');
  });
});
