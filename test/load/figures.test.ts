// The report's figures follow what each scenario declares it measures: a new kind is never counted as "mix" by default.
import { describe, expect, it } from 'vitest';
import { MEASURES } from '../../load/model.js';
import { PROFILES } from '../../load/profiles.js';
import { computeFigures } from '../../reports/figures.js';
import { mixScenario, planScenario } from '../reports/fixtures.js';

describe('figures from declared measures', () => {
  it('a scenario of a new kind that measures nothing leaves latency and throughput alone', () => {
    const base = mixScenario('a', [[1, 1000]]);
    const slow = mixScenario('probe', [[500, 1000]], { kind: 'warm-up-probe', measures: [], achievedRate: 9999 });
    const f = computeFigures([base, slow]);
    expect(f.p99LatencyMs).toBe(1);
    expect(f.throughputRps).toBe(500);
    // Totals still count every response.
    expect(f.responses).toBe(2000);
  });

  it('the same scenario declaring latency and throughput feeds both', () => {
    const base = mixScenario('a', [[1, 1000]]);
    const slow = mixScenario('probe', [[500, 1000]], {
      kind: 'warm-up-probe',
      measures: ['latency', 'throughput'],
      achievedRate: 9999,
    });
    const f = computeFigures([base, slow]);
    expect(f.p99LatencyMs).toBeGreaterThan(400);
    expect(f.throughputRps).toBe(9999);
  });

  it('limiter figures come only from scenarios that measure the limiter', () => {
    const plan = planScenario(2, 57, 180, 5);
    expect(computeFigures([plan]).maxAcceptedRatio).toBe(0.475);
    expect(computeFigures([{ ...plan, measures: ['latency'] }]).maxAcceptedRatio).toBeNull();
  });

  it('every profile entry names a scenario kind and declares known measures', () => {
    for (const profile of Object.values(PROFILES)) {
      expect(profile.scenarios.length).toBeGreaterThan(0);
      for (const e of profile.scenarios) {
        expect(e.kind).toMatch(/^[a-z][a-z-]*$/);
        expect(e.plannedSeconds(profile.embeddedWindowSeconds)).toBeGreaterThan(0);
      }
    }
    expect(MEASURES).toEqual(['latency', 'throughput', 'limiter']);
  });
});
