/**
 * The load report as an operator sees it, in the real browser: a smoke night against the embedded server, a second
 * night (the trend has two points, dated, and says when relative thresholds begin), and a night against a dead target
 * (no verdict, no charts). Charts read at a glance: full scenario names, the plan line inside its chart (not flattened
 * on zero), dated trend ticks. Screenshots are kept in test-artifacts/html-nights/ for people to look at.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCommand } from '../../cli/load-command.js';
import { keyEnv } from '../../config/config.js';
import type { LoadRun } from '../../load/model.js';
import { generateKeys } from '../../reference/server.js';
import type { LoadReport } from '../../reports/model.js';
import { DEFAULT_THRESHOLDS } from '../../reports/thresholds.js';
import { mergeReports } from '../../reports/merge.js';
import { writeRunReport } from '../../reports/write-report.js';
import { artifactDir, readJson } from '../support/artifacts.js';
import { openFile, withBrowser } from '../support/browser.js';
import { mixScenario, planScenario, syntheticRun } from './fixtures.js';
import { closedPort } from '../cli/support.js';
import { tempDir } from '../support/temp-dir.js';

const quiet = { stderr: { isTTY: false, write: () => {} }, stdout: { write: () => {} } };

interface Nights {
  readonly smoke: string;
  readonly second: string;
  readonly dead: string;
  readonly merged: string;
}

/** Two shard reports written 3 s apart, the second unable to generate its share: the merged page shows both. */
async function mergedNight(root: string): Promise<string> {
  const dirs: string[] = [];
  for (const [index, achieved, started] of [
    [1, 500, '2030-01-01T02:00:00.000Z'],
    [2, 210, '2030-01-01T02:00:03.000Z'],
  ] as const) {
    const run = syntheticRun([
      mixScenario('mix-rate-50pct', [[2, 1000]], {
        title: 'mix at 1000 req/s (at most 50% of the enterprise rate)',
        requested: { connections: 5, overallRate: 500, durationSeconds: 2, maxRequests: 1000 },
        achievedRate: achieved,
        generator: [
          {
            shard: index,
            cpuPercent: 60,
            peakCpuPercent: index === 2 ? 99 : 40,
            eventLoopDelayP99Ms: 12,
            requestedRate: 500,
            achievedRate: achieved,
          },
        ],
      }),
      planScenario(2, 60, 180, 4),
    ]);
    const shard = {
      index,
      count: 2,
      profile: 'smoke',
      profileId: 'abc123',
      limiterShards: 'all' as const,
      startAt: null,
    };
    const w = await writeRunReport(
      { ...run, startedAt: started, shard },
      join(root, `shard-${index}`),
      DEFAULT_THRESHOLDS,
    );
    dirs.push(w.dir);
  }
  return (await mergeReports(dirs, join(root, 'merged'), { thresholds: DEFAULT_THRESHOLDS })).dir;
}

let nights: Nights;
let smokeReport: LoadReport;

beforeAll(async () => {
  const out = tempDir('psc-nights-');
  expect(
    await loadCommand(
      ['--embedded', '--profile', 'smoke', '--out', out, '--thresholds', 'load-thresholds.json'],
      quiet,
    ),
  ).toBeLessThan(2);
  const first = readdirSync(out).find((d) => /^\d{4}-/.test(d))!;
  smokeReport = readJson<LoadReport>(join(out, first, 'report.json'));
  // The second night: the same measurements a day later, judged against the history the first night left.
  const { schemaVersion: _v, createdAt: _c, shards: _s, figures: _f, verdict: _d, trend: _t, ...run } = smokeReport;
  const second = await writeRunReport(
    run as LoadRun,
    out,
    DEFAULT_THRESHOLDS,
    new Date(Date.parse(smokeReport.createdAt) + 86_400_000),
  );
  // A dead target: a port where nothing listens.
  const port = await closedPort();
  const deadOut = join(out, 'dead');
  const code = await loadCommand(['--profile', 'smoke', '--target', `http://127.0.0.1:${port}/v1`, '--out', deadOut], {
    ...quiet,
    env: keyEnv(generateKeys()),
  });
  expect(code).toBe(3);
  const dead = readdirSync(deadOut).find((d) => /^\d{4}-/.test(d))!;
  nights = { smoke: join(out, first), second: second.dir, dead: join(deadOut, dead), merged: await mergedNight(out) };
}, 120_000);

/** Opens a report, fails on any console error or non-file request, keeps a full-page screenshot. */
async function open(page: Page, dir: string, name: string): Promise<void> {
  const opened = await openFile(page, join(dir, 'report.html'));
  const problems = [
    ...opened.problems,
    ...opened.requests.filter((u) => !u.startsWith('file://')).map((u) => `request: ${u}`),
  ];
  const dir_ = artifactDir('html-nights');
  await page.screenshot({ path: join(dir_, `${name}.png`), fullPage: true });
  // Each chart alone too, at full size, to look at closely.
  for (const id of await page.$$eval('figure[data-chart]', (fs) => fs.map((f) => f.getAttribute('data-chart')!)))
    await page.locator(`figure[data-chart="${id}"]`).screenshot({ path: join(dir_, `${name}-${id}.png`) });
  expect(problems).toEqual([]);
}

/** The text labels of a chart's axes and headers. */
const labels = (page: Page, chart: string) =>
  page.$$eval(`figure[data-chart="${chart}"] svg text`, (ts) => ts.map((t) => t.textContent ?? ''));

describe('the load report of three nights in headless Chromium', () => {
  it('a smoke night: full scenario names, the plan lines inside their charts, real time axes', async () => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await open(page, nights.smoke, '1-smoke-night');
      const ids = await page.$$eval('figure[data-chart]', (fs) => fs.map((f) => f.getAttribute('data-chart')));
      expect(ids).toEqual(
        expect.arrayContaining(['latency-percentiles', 'throughput', 'status-codes', 'plan-free', 'trend-p99']),
      );
      // Every scenario by its full title: on the latency chart's axis and as a header of its own throughput chart.
      const latency = await labels(page, 'latency-percentiles');
      const throughput = await labels(page, 'throughput');
      const answered = smokeReport.scenarios.filter((x) => x.latency['2xx']);
      expect(answered.length).toBeGreaterThan(0);
      for (const s of answered) expect(latency).toContain(s.title);
      for (const s of smokeReport.scenarios) expect(throughput).toContain(s.title);
      expect([...latency, ...throughput].some((t) => t.includes('…'))).toBe(false);
      // The plan line lies inside its chart, above the axis: not flattened on zero by another scenario's scale.
      for (const plan of ['free', 'pro', 'business']) {
        const box = await page.$eval(`figure[data-chart="plan-${plan}"] svg`, (svg) => {
          const frame =
            svg.querySelector('.role-frame path, .mark-rect.role-frame path') ?? svg.querySelector('.background');
          const rule = [...svg.querySelectorAll('.mark-rule line')].find((l) => l.getAttribute('stroke') === '#1565c0');
          const f = frame!.getBoundingClientRect();
          const r = rule!.getBoundingClientRect();
          return { top: f.top, bottom: f.bottom, rule: r.top };
        });
        expect(box.rule, plan).toBeGreaterThan(box.top);
        expect(box.rule, plan).toBeLessThan(box.bottom - 5);
      }
      // Time axes are quantitative seconds (tick labels are numbers spaced by value, not one per bucket).
      const status = await labels(page, 'status-codes');
      expect(status).toContain('seconds since the run started');
      // Generator health per scenario, with its busiest second.
      expect(await page.locator('th', { hasText: 'client CPU % (busiest second)' }).count()).toBe(1);
      // The first night: dated trend ticks and when relative thresholds begin.
      const trend = await labels(page, 'trend-p99');
      expect(trend.some((t) => /^\d{4}-\d\d-\d\d \d\d:\d\d$/.test(t))).toBe(true);
      expect(trend.some((t) => /^\.\d+$/.test(t))).toBe(false);
      expect(await page.locator('figure[data-chart="trend-p99"] .note').textContent()).toMatch(
        /begin once 3 earlier nights exist \(0 so far\)/,
      );
    });
  }, 60_000);

  it('a second night: two dated points, one earlier night on record, thresholds still absolute and saying so', async () => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await open(page, nights.second, '2-second-night');
      const points = await page.$$eval('figure[data-chart="trend-p99"] .mark-symbol path', (ps) => ps.length);
      expect(points).toBe(2);
      expect(await page.locator('figure[data-chart="trend-p99"] .note').textContent()).toMatch(/\(1 so far\)/);
      expect(await page.locator('body').textContent()).toMatch(
        /1 earlier night of this profile and target on record; every threshold is absolute so far\. Thresholds relative to earlier nights begin once 3 earlier nights exist \(night 4\)/,
      );
    });
  }, 60_000);

  it('a dead-target night: TARGET UNAVAILABLE, no verdict on performance, no charts', async () => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await open(page, nights.dead, '3-dead-target-night');
      expect(await page.locator('#verdict strong').textContent()).toBe('TARGET UNAVAILABLE');
      expect(await page.locator('#verdict').textContent()).toMatch(/not a regression.*No load was sent/s);
      expect(await page.locator('figure[data-chart]').count()).toBe(0);
      expect(await page.locator('body').textContent()).toMatch(/Nothing was measured to chart/);
    });
  }, 60_000);

  it("a merged night: each shard's start offset, the spread warned, the shard below its share flagged", async () => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await open(page, nights.merged, '4-merged-night');
      const warnings = await page.locator('#merge-warnings').textContent();
      expect(warnings).toMatch(/the shards started 3 s apart/);
      expect(warnings).toMatch(
        /shard 2 achieved 210 of its 500 req\/s share.*its own bottleneck; its latency is not to be trusted/,
      );
      expect(await page.locator('body').textContent()).toMatch(/⚠ its own bottleneck/);
      const latency = await labels(page, 'latency-percentiles');
      expect(latency).toContain('mix at 1000 req/s (at most 50% of the enterprise rate) ⚠ untrustworthy');
    });
  }, 60_000);
});
