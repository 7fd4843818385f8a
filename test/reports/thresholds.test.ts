import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../errors/catalogue.js';
import { computeFigures } from '../../reports/figures.js';
import type { HistoryEntry, KeyFigures } from '../../reports/model.js';
import { DEFAULT_THRESHOLDS, evaluate, loadThresholds, median } from '../../reports/thresholds.js';
import { mixScenario, planScenario } from './fixtures.js';
import { tempDir } from '../support/temp-dir.js';

const good: KeyFigures = {
  p50LatencyMs: 2,
  p99LatencyMs: 10,
  throughputRps: 1000,
  errorRate: 0,
  nonConformant: 0,
  responses: 5000,
  falseRejections: 0,
  minFirstWindowRatio: 1,
  maxAcceptedRatio: 1,
};
const night = (p99: number, rps: number, i: number): HistoryEntry => ({
  createdAt: `2030-01-0${i + 1}T02:00:00.000Z`,
  dir: `n${i}`,
  profile: 'nightly',
  target: 'embedded',
  pass: true,
  figures: { ...good, p99LatencyMs: p99, throughputRps: rps },
});

describe('thresholds', () => {
  it('median handles odd, even and empty lists', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('passes good figures and fails each absolute threshold with its reason', () => {
    expect(evaluate(good, [], DEFAULT_THRESHOLDS)).toMatchObject({ pass: true, reasons: [] });
    const bad = evaluate(
      { ...good, p99LatencyMs: 900, nonConformant: 3, falseRejections: 2, maxAcceptedRatio: 2 },
      [],
      DEFAULT_THRESHOLDS,
    );
    expect(bad.pass).toBe(false);
    expect(bad.reasons.join('\n')).toMatch(/p99 latency \(ms\): 900 is not <= 500/);
    expect(bad.reasons.join('\n')).toMatch(/non-conformant responses under load: 3/);
    expect(bad.reasons.join('\n')).toMatch(/429s at or below the plan rate: 2/);
    expect(bad.reasons.join('\n')).toMatch(/accepted ÷ limit per window above the rate: 2 is not <= 1.5/);
  });

  it('a figure that was not measured fails rather than passing silently', () => {
    const v = evaluate({ ...good, throughputRps: null, minFirstWindowRatio: null }, [], DEFAULT_THRESHOLDS);
    expect(v.pass).toBe(false);
    expect(v.reasons).toContain('throughput (req/s): not measured (no data)');
    expect(evaluate({ ...good, responses: 0 }, [], DEFAULT_THRESHOLDS).reasons[0]).toMatch(/measured nothing/);
  });

  it('a figure the run never planned is not judged (a shard leaving the per-plan runs to shard 1, no run above the rate)', () => {
    const none = { ...good, falseRejections: 0, minFirstWindowRatio: null, maxAcceptedRatio: null };
    const shard2 = evaluate(none, [], DEFAULT_THRESHOLDS, { measures: ['latency', 'throughput'], aboveRate: false });
    expect(shard2).toMatchObject({ pass: true, reasons: [] });
    expect(shard2.checks.map((c) => c.name)).not.toContain('429s at or below the plan rate');
    const atRateOnly = evaluate(none, [], DEFAULT_THRESHOLDS, { measures: ['limiter'], aboveRate: false });
    expect(atRateOnly.checks.map((c) => c.name)).toContain('429s at or below the plan rate');
    expect(atRateOnly.pass).toBe(true);
    // Planned and not measured still fails.
    expect(evaluate(none, [], DEFAULT_THRESHOLDS, { measures: ['limiter'], aboveRate: true }).pass).toBe(false);
    // Nor against the trend: earlier nights measured latency and throughput, this limiter-only night did not plan to.
    const history = [night(10, 1000, 0), night(11, 1000, 1), night(9, 1000, 2)];
    const limiterNight = { ...none, p99LatencyMs: null, throughputRps: null };
    const judged = evaluate(limiterNight, history, DEFAULT_THRESHOLDS, { measures: ['limiter'], aboveRate: false });
    expect(judged).toMatchObject({ pass: true, reasons: [] });
    expect(judged.checks.map((c) => c.name).filter((n) => n.includes('trend'))).toEqual([]);
    // A night that planned them is still held to the trend.
    const planned = evaluate(limiterNight, history, DEFAULT_THRESHOLDS);
    expect(planned.reasons).toContain('p99 latency against the trend (ms): not measured (no data)');
  });

  it('compares with the median of earlier nights, so one noisy night neither fails nor becomes the yardstick', () => {
    // One noisy night (p99 80 ms) among quiet ones (10 ms): the median stays 10.
    const history = [night(10, 1000, 0), night(80, 300, 1), night(11, 1000, 2), night(9, 1000, 3)];
    const ok = evaluate({ ...good, p99LatencyMs: 12 }, history, DEFAULT_THRESHOLDS);
    expect(ok.pass).toBe(true);
    expect(ok.checks.find((c) => c.name === 'p99 latency against the trend (ms)')).toMatchObject({
      limit: 15.75,
      basis: 'median of 4 earlier nights × 1.5',
    });
    // Against the last night alone (80 ms), 40 ms would pass; against the median it is a regression.
    const regressed = evaluate({ ...good, p99LatencyMs: 40 }, history, DEFAULT_THRESHOLDS);
    expect(regressed.pass).toBe(false);
    expect(regressed.reasons.join()).toMatch(/p99 latency against the trend/);
    const slow = evaluate({ ...good, throughputRps: 600 }, history, DEFAULT_THRESHOLDS);
    expect(slow.reasons.join()).toMatch(/throughput against the trend \(req\/s\): 600 is not >= 700/);
  });

  it('does not judge a trend before minNights earlier nights exist', () => {
    const v = evaluate({ ...good, p99LatencyMs: 100 }, [night(10, 1000, 0), night(10, 1000, 1)], DEFAULT_THRESHOLDS);
    expect(v.pass).toBe(true);
    expect(v.checks.some((c) => c.basis !== 'absolute')).toBe(false);
  });

  it('reads a thresholds file over the defaults and rejects mistakes with PSC_CONFIG', () => {
    const dir = tempDir('psc-thr-');
    const file = join(dir, 't.json');
    writeFileSync(file, JSON.stringify({ $comment: 'x', p99LatencyMs: { max: 50 } }));
    const t = loadThresholds(file);
    expect(t.p99LatencyMs).toEqual({ max: 50, maxRatioToMedian: 1.5 });
    expect(t.errorRate).toEqual(DEFAULT_THRESHOLDS.errorRate);
    for (const bad of [
      { p99LatencyMs: { max: -1 } },
      { p99LatencyMs: { maxx: 1 } },
      { latency: {} },
      { errorRate: { max: '1' } },
    ]) {
      writeFileSync(file, JSON.stringify(bad));
      expect(() => loadThresholds(file)).toThrow(HarnessError);
    }
    writeFileSync(file, '{');
    expect(() => loadThresholds(file)).toThrow(/not JSON/);
    expect(() => loadThresholds(join(dir, 'missing.json'))).toThrow(/not found/);
  });

  it('the repository thresholds file is valid', () => {
    expect(() => loadThresholds('load-thresholds.json')).not.toThrow();
  });

  it('key figures come from merged histograms of the mix scenarios, not from plan-rate runs', () => {
    const f = computeFigures([
      mixScenario('a', [
        [1, 990],
        [100, 10],
      ]),
      mixScenario('b', [[1, 1000]], { kind: 'mix-rate', measures: ['latency'] }),
      planScenario(0.9, 54, 2, 0),
      planScenario(2, 57, 180, 5),
    ]);
    expect(f.p50LatencyMs).toBe(1);
    // 10 slow of 2000 = 0.5 %: p99 is fast when merged (averaging the two p99s would give ~50 ms).
    expect(f.p99LatencyMs).toBe(1);
    expect(f.throughputRps).toBe(500);
    expect(f.falseRejections).toBe(2);
    expect(f.minFirstWindowRatio).toBe(0.95);
    expect(f.maxAcceptedRatio).toBe(0.475);
  });
});
