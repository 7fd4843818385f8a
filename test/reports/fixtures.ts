/** Synthetic load runs with known latencies and counts, for report tests that need no network. */
import { newHistogram, summarize } from '../../load/histogram.js';
import type { LatencySummary, LoadRun, ScenarioResult, SecondBucket } from '../../load/model.js';

/** A latency summary of `count` samples of `ms` each. */
export function latencyOf(samples: readonly [ms: number, count: number][]): LatencySummary {
  const h = newHistogram();
  for (const [ms, count] of samples) h.recordValueWithCount(Math.round(ms * 1000), count);
  return summarize(h);
}

function timeline(perSecond: readonly Record<string, number>[]): SecondBucket[] {
  return perSecond.map((statuses, second) => ({ second, statuses, errors: 0, timeouts: 0 }));
}

export function mixScenario(
  id: string,
  samples: readonly [number, number][],
  overrides: Partial<ScenarioResult> = {},
): ScenarioResult {
  const responses = samples.reduce((n, [, c]) => n + c, 0);
  return {
    id,
    kind: 'mix-connections',
    measures: ['latency', 'throughput'],
    title: `mix ${id}`,
    plan: 'enterprise',
    multiplier: null,
    requested: { connections: 10, overallRate: null, durationSeconds: 2, maxRequests: 100_000 },
    latencyKind: 'response time (closed loop)',
    startOffsetSeconds: 0,
    startedAt: '2030-01-01T02:00:00.000Z',
    elapsedSeconds: 2,
    responses,
    byStatus: { '200': responses },
    errors: 0,
    timeouts: 0,
    errorMessages: {},
    achievedRate: responses / 2,
    latency: { '2xx': latencyOf(samples) },
    timeline: timeline([{ '200': Math.ceil(responses / 2) }, { '200': Math.floor(responses / 2) }]),
    planLine: null,
    limiter: null,
    conformance: {
      responsesChecked: responses,
      bodiesValidated: Math.ceil(responses / 20),
      nonConformant: 0,
      byCheck: {},
      examples: [],
    },
    raw: [
      {
        latencies: null,
        requests: null,
        throughput: null,
        statusCodeStats: { '200': { count: responses } },
        errors: 0,
        timeouts: 0,
      },
    ],
    ...overrides,
  };
}

export function planScenario(multiplier: number, accepted: number, rejected: number, offset: number): ScenarioResult {
  const limit = 60;
  return {
    ...mixScenario(`plan-rate-free-${multiplier}x`, [
      [2, accepted],
      [1, rejected],
    ]),
    kind: 'plan-rate',
    measures: ['limiter'],
    title: `free key at ${multiplier}× its rate`,
    plan: 'free',
    multiplier,
    requested: {
      connections: 10,
      overallRate: Math.floor((multiplier * limit) / 2),
      durationSeconds: multiplier > 1 ? 4 : 2,
      maxRequests: accepted + rejected,
    },
    latencyKind: 'service time (open loop, no coordinated-omission correction)',
    startOffsetSeconds: offset,
    byStatus: rejected > 0 ? { '200': accepted, '429': rejected } : { '200': accepted },
    latency:
      rejected > 0
        ? { '2xx': latencyOf([[2, accepted]]), '429': latencyOf([[0.3, rejected]]) }
        : { '2xx': latencyOf([[2, accepted]]) },
    timeline: timeline([
      { '200': Math.min(accepted, 30) },
      { '200': Math.max(0, accepted - 30), ...(rejected ? { '429': rejected } : {}) },
    ]),
    planLine: { plan: 'free', limitPerWindow: limit, windowSeconds: 2, acceptedPerSecond: 30 },
    limiter: {
      multiplier,
      offered: accepted + rejected,
      accepted,
      rejected,
      acceptedBeforeFirst429: accepted,
      falseRejections: multiplier <= 1 ? rejected : 0,
      firstWindowRatio: multiplier <= 1 ? null : accepted / limit,
      acceptedRatio: multiplier <= 1 ? null : accepted / (limit * 2),
      note: 'synthetic',
    },
  };
}

export function syntheticRun(
  scenarios: readonly ScenarioResult[] = [
    mixScenario('mix-connections-10', [
      [1, 900],
      [5, 90],
      [40, 10],
    ]),
    planScenario(0.9, 54, 0, 4),
    planScenario(2, 60, 180, 8),
  ],
): LoadRun {
  return {
    profile: 'smoke',
    target: { url: 'http://127.0.0.1:9/v1', embedded: true, windowSeconds: 2 },
    startedAt: '2030-01-01T02:00:00.000Z',
    finishedAt: '2030-01-01T02:00:20.000Z',
    environment: {
      node: 'v20',
      platform: 'linux',
      arch: 'x64',
      cpus: 4,
      cpuModel: 'test',
      totalMemoryMb: 1024,
      autocannon: '8.0.0',
      tool: '0.1.0',
    },
    generator: [
      { wallSeconds: 20, cpuUserMs: 1000, cpuSystemMs: 100, cpuPercent: 5.5, peakRssMb: 90, eventLoopDelayP99Ms: 3 },
    ],
    scenarios,
  };
}
