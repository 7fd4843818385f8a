import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportCommand } from '../../cli/report-command.js';
import { decodeHistogram, mergeHistograms } from '../../load/histogram.js';
import { buildReport } from '../../reports/build-report.js';
import { flagShards, mergeReports, reportFile } from '../../reports/merge.js';
import type { ScenarioResult } from '../../load/model.js';
import type { LoadReport } from '../../reports/model.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import { renderSummary } from '../../reports/summary.js';
import { DEFAULT_THRESHOLDS } from '../../reports/thresholds.js';
import { writeReportFiles } from '../../reports/write-report.js';
import { readJson } from '../support/artifacts.js';
import { mixScenario, planScenario, syntheticRun } from './fixtures.js';
import { tempDir } from '../support/temp-dir.js';

async function shard(
  dir: string,
  fast: [number, number][],
  plan: ReturnType<typeof planScenario>,
): Promise<LoadReport> {
  const report = buildReport(syntheticRun([mixScenario('mix-connections-10', fast), plan]), DEFAULT_THRESHOLDS, []);
  await writeReportFiles(report, dir);
  return report;
}

describe('report merge', () => {
  it('adds counts and histograms of two shards; percentiles come from the merged histogram', async () => {
    const root = tempDir('psc-merge-');
    // Shard A: 990 answers at 1 ms. Shard B: 10 answers at 200 ms. Averaging their p99s would say ~100 ms; the merged
    // histogram knows that 1 % of 1000 answers were slow, so p99 is 1 ms and p99.9 is 200 ms.
    const a = await shard(join(root, 'a'), [[1, 990]], planScenario(2, 60, 180, 3));
    const b = await shard(join(root, 'b'), [[200, 10]], planScenario(2, 54, 186, 3));
    const out = join(root, 'merged');
    const { report, dir } = await mergeReports([join(root, 'a'), join(root, 'b')], out, {
      thresholds: DEFAULT_THRESHOLDS,
    });
    // The layout of load --out: OUT/<UTC timestamp>-merged/ and OUT/history.json.
    expect(dir).toMatch(/merged[/\\]\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-merged$/);
    expect(readJson<{ runs: unknown[] }>(join(out, 'history.json')).runs).toHaveLength(1);
    expect(reportSchemaErrors(readJson<unknown>(join(dir, 'report.json')))).toEqual([]);
    expect(report.shards).toBe(2);
    expect(report.profile).toBe('merged');
    const mix = report.scenarios.find((s) => s.id === 'mix-connections-10')!;
    expect(mix.responses).toBe(1000);
    expect(mix.byStatus['200']).toBe(1000);
    expect(mix.raw).toHaveLength(2);
    const l = mix.latency['2xx']!;
    expect(l.count).toBe(1000);
    expect(decodeHistogram(l.histogram).totalCount).toBe(1000);
    expect(l.p99Ms).toBe(1);
    expect(l.p999Ms).toBeCloseTo(200, 0);
    const averaged = (a.scenarios[0]!.latency['2xx']!.p99Ms + b.scenarios[0]!.latency['2xx']!.p99Ms) / 2;
    expect(averaged).toBeGreaterThan(90);
    // The merged histogram equals the sum of the shard histograms, bucket for bucket.
    const direct = mergeHistograms([
      a.scenarios[0]!.latency['2xx']!.histogram,
      b.scenarios[0]!.latency['2xx']!.histogram,
    ]);
    expect(l.p50Ms).toBe(direct.getValueAtPercentile(50) / 1000);
    // Timelines add second by second; plan-rate limiter counts add, ratios use one key (limit) per shard.
    expect(mix.timeline.map((t) => t.statuses['200'])).toEqual([495 + 5, 495 + 5]);
    const plan = report.scenarios.find((s) => s.kind === 'plan-rate')!;
    expect(plan.limiter).toMatchObject({
      accepted: 114,
      rejected: 366,
      acceptedBeforeFirst429: 114,
      firstWindowRatio: 0.95,
    });
    expect(plan.latency['429']!.count).toBe(366);
    expect(report.generator).toHaveLength(2);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/## Load merged/);
  });

  it('the CLI merges, and refuses a directory without a report', async () => {
    const root = tempDir('psc-merge-cli-');
    await shard(join(root, 'a'), [[1, 100]], planScenario(2, 60, 180, 3));
    await shard(join(root, 'b'), [[2, 100]], planScenario(2, 60, 180, 3));
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
    expect(await reportCommand(['merge', join(root, 'a'), join(root, 'b'), '--out', join(root, 'm')], io)).toBe(0);
    expect(readJson<LoadReport>(reportFile(join(root, 'm'))).scenarios[0]!.responses).toBe(200);
    expect(await reportCommand(['merge', join(root, 'nothing')], io)).toBe(2);
    expect(err.join('')).toMatch(/^petstore-conformance: report merge: cannot read .*\[PSC_USAGE\]$/m);
    expect(await reportCommand(['frobnicate'], io)).toBe(2);
    expect(await reportCommand(['merge'], io)).toBe(2);
  });
});

describe('flagShards: a shard that could not generate its share', () => {
  const shardReport = (index: number, g: { peak: number; asked: number | null; achieved: number }): LoadReport => {
    const run = syntheticRun([
      mixScenario('mix-rate-50pct', [[1, 100]], {
        requested: { connections: 5, overallRate: g.asked, durationSeconds: 2, maxRequests: 100 },
        generator: [
          {
            shard: index,
            cpuPercent: g.peak / 2,
            peakCpuPercent: g.peak,
            eventLoopDelayP99Ms: 40,
            requestedRate: g.asked,
            achievedRate: g.achieved,
          },
        ],
      }),
    ]);
    return buildReport(run, DEFAULT_THRESHOLDS, []);
  };

  it('below 90% of its share: flagged, its own bottleneck only with its CPU near a core', () => {
    const flags = flagShards([
      shardReport(1, { peak: 97, asked: 1000, achieved: 600 }),
      shardReport(2, { peak: 30, asked: 1000, achieved: 600 }),
      shardReport(3, { peak: 97, asked: 1000, achieved: 950 }),
    ]);
    expect(flags.map((f) => [f.shard, f.generatorBound])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(flags[0]!.reason).toMatch(
      /^shard 1 achieved 600 of its 1000 req\/s share; its client CPU peaked at 97% .*its own bottleneck$/,
    );
    expect(flags[1]!.reason).toMatch(/the target, the network or a busy machine held it back/);
  });

  it('a closed loop is flagged only when its CPU was near a core', () => {
    const flags = flagShards([
      shardReport(1, { peak: 95, asked: null, achieved: 9000 }),
      shardReport(2, { peak: 40, asked: null, achieved: 9000 }),
    ]);
    expect(flags.map((f) => f.shard)).toEqual([1]);
  });
});

describe('a single run whose generator peaked near a core', () => {
  it('its summary says the figures may measure the generator', () => {
    const run = syntheticRun([
      mixScenario('mix-connections-50', [[1, 100]], {
        title: 'mix, 50 connections (enterprise key)',
        generator: [
          {
            shard: null,
            cpuPercent: 80,
            peakCpuPercent: 98.5,
            eventLoopDelayP99Ms: 60,
            requestedRate: null,
            achievedRate: 14800,
          },
        ],
      }),
      mixScenario('mix-connections-1', [[1, 100]], {
        generator: [
          {
            shard: null,
            cpuPercent: 20,
            peakCpuPercent: 30,
            eventLoopDelayP99Ms: 5,
            requestedRate: null,
            achievedRate: 900,
          },
        ],
      }),
    ]);
    const summary = renderSummary(buildReport(run, DEFAULT_THRESHOLDS, []));
    expect(summary).toMatch(
      /mix, 50 connections \(enterprise key\): the load generator's CPU peaked at 98\.5% of a core/,
    );
    expect(summary.match(/CPU peaked/g)).toHaveLength(1);
  });
});

describe('the headline of a night that is no verdict on the target', () => {
  const scenarios = (mixOverrides: Partial<ScenarioResult> = {}) => [
    mixScenario('mix-connections-10', [[1, 1000]], mixOverrides),
    planScenario(0.9, 54, 0, 4),
    planScenario(2, 60, 180, 8),
  ];

  it("a merged night whose shards' latency cannot be trusted says so and does not pass on latency", async () => {
    // The same figures, trusted, pass: only the shards' flag changes the verdict.
    const trusted = buildReport(syntheticRun(scenarios()), DEFAULT_THRESHOLDS, []);
    expect(trusted.verdict.pass, trusted.verdict.reasons.join('\n')).toBe(true);
    const report = buildReport(
      syntheticRun(
        scenarios({
          untrustworthy:
            'shard 1, shard 2 could not generate their share: the latency measured is that of a saturated generator or an unplanned load, not to be trusted',
        }),
      ),
      DEFAULT_THRESHOLDS,
      [],
    );
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.verdict).toMatchObject({ pass: false, latencyUntrusted: true });
    expect(report.verdict.checks.find((c) => c.name === 'p99 latency (ms)')?.pass).toBe(false);
    // What latency does not judge still passes on its figures.
    expect(report.verdict.checks.find((c) => c.name === 'error rate')?.pass).toBe(true);
    expect(report.verdict.reasons[0]).toMatch(/^latency not to be trusted: mix mix-connections-10: shard 1, shard 2/);
    const summary = renderSummary(report);
    expect(summary).toMatch(/^## Load smoke: LATENCY NOT TO BE TRUSTED ⚠️/m);
    expect(summary).not.toMatch(/PASS/);
    const dir = tempDir('psc-untrusted-');
    await writeReportFiles(report, dir);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/<strong>LATENCY NOT TO BE TRUSTED<\/strong>/);
  });

  it('an interrupted night is INTERRUPTED, not FAIL', async () => {
    const report = buildReport(
      {
        ...syntheticRun(scenarios()),
        interrupted: {
          signal: 'SIGTERM',
          message: 'the run was interrupted by SIGTERM after 3.0 s',
          leftOut: ['plan-rate: did not start'],
        },
      },
      DEFAULT_THRESHOLDS,
      [],
    );
    expect(report.verdict.pass).toBe(false);
    const summary = renderSummary(report);
    expect(summary).toMatch(/^## Load smoke: INTERRUPTED ⏹️/m);
    expect(summary).toMatch(/interrupted by SIGTERM after 3\.0 s/);
    expect(summary).not.toMatch(/FAIL|Why it failed/);
    const dir = tempDir('psc-interrupted-');
    await writeReportFiles(report, dir);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/<strong>INTERRUPTED<\/strong>/);
    expect(html).not.toMatch(/>FAIL</);
  });
});
