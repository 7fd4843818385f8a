/**
 * Charts of a report, rendered at report time to static SVG with vega-lite and vega, so the page needs no script and
 * no network. A chart with no data is left out rather than drawn empty.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { ScenarioResult } from '../load/model.js';
import type { LoadReport } from './model.js';

export interface Chart {
  readonly id: string;
  readonly title: string;
  readonly svg: string;
}

type Row = Record<string, string | number>;
type Spec = vl.TopLevelSpec;

const WIDTH = 640;
const HEIGHT = 220;

async function render(spec: Spec): Promise<string> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const PERCENTILES: readonly [string, keyof NonNullable<ScenarioResult['latency']['2xx']>][] = [
  ['p50', 'p50Ms'],
  ['p90', 'p90Ms'],
  ['p99', 'p99Ms'],
  ['p99.9', 'p999Ms'],
  ['max', 'maxMs'],
];

function latencyRows(report: LoadReport): Row[] {
  return report.scenarios.flatMap((s) => {
    const l = s.latency['2xx'];
    return l
      ? PERCENTILES.map(([name, key], order) => ({ scenario: s.id, percentile: name, order, ms: l[key] as number }))
      : [];
  });
}

function throughputRows(report: LoadReport): Row[] {
  return report.scenarios.flatMap((s) =>
    s.timeline.map((b) => ({
      scenario: s.id,
      t: Math.round((s.startOffsetSeconds + b.second) * 100) / 100,
      rps: Object.values(b.statuses).reduce((a, n) => a + n, 0),
    })),
  );
}

function statusRows(report: LoadReport): Row[] {
  const rows = new Map<string, Row>();
  for (const s of report.scenarios) {
    for (const b of s.timeline) {
      const t = Math.floor(s.startOffsetSeconds + b.second);
      const add = (status: string, n: number) => {
        if (n <= 0) return;
        const k = `${t} ${status}`;
        const row = rows.get(k) ?? { t, status, count: 0 };
        row.count = (row.count as number) + n;
        rows.set(k, row);
      };
      for (const [status, n] of Object.entries(b.statuses)) add(status, n);
      add('connection error', b.errors - b.timeouts);
      add('timeout', b.timeouts);
    }
  }
  return [...rows.values()];
}

function planRows(scenarios: readonly ScenarioResult[]): Row[] {
  const t0 = Math.min(...scenarios.map((s) => s.startOffsetSeconds));
  return scenarios.flatMap((s) =>
    s.timeline.flatMap((b) => {
      const t = Math.floor(s.startOffsetSeconds - t0 + b.second);
      let accepted = 0;
      for (const [status, n] of Object.entries(b.statuses)) if (status.startsWith('2')) accepted += n;
      const rejected = b.statuses['429'] ?? 0;
      return [
        { t, outcome: 'accepted', count: accepted, run: `${s.multiplier}×` },
        { t, outcome: '429', count: rejected, run: `${s.multiplier}×` },
      ].filter((r) => r.count > 0);
    }),
  );
}

export async function renderCharts(report: LoadReport): Promise<Chart[]> {
  const charts: Chart[] = [];
  const add = async (id: string, title: string, rows: Row[], spec: (values: Row[]) => Spec) => {
    if (rows.length > 0) charts.push({ id, title, svg: await render(spec(rows)) });
  };
  await add('latency-percentiles', 'Latency percentiles of 2xx answers (ms)', latencyRows(report), (values) => ({
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'percentile', type: 'ordinal', sort: { field: 'order' }, title: 'percentile' },
      y: { field: 'ms', type: 'quantitative', title: 'ms' },
      color: { field: 'scenario', type: 'nominal' },
    },
  }));
  await add('throughput', 'Throughput over time (responses per second)', throughputRows(report), (values) => ({
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 't', type: 'quantitative', title: 'seconds since start' },
      y: { field: 'rps', type: 'quantitative', title: 'responses/s' },
      color: { field: 'scenario', type: 'nominal' },
    },
  }));
  await add('status-codes', 'Status codes and errors over time', statusRows(report), (values) => ({
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    mark: 'bar',
    encoding: {
      x: { field: 't', type: 'ordinal', title: 'second since start' },
      y: { field: 'count', type: 'quantitative', stack: 'zero', title: 'responses' },
      color: { field: 'status', type: 'nominal' },
    },
  }));
  const plans = [...new Set(report.scenarios.filter((s) => s.kind === 'plan-rate' && s.planLine).map((s) => s.plan!))];
  for (const plan of plans) {
    const runs = report.scenarios.filter((s) => s.kind === 'plan-rate' && s.plan === plan);
    const line = runs[0]!.planLine!;
    await add(
      `plan-${plan}`,
      `${plan}: accepted vs 429 per second, against the plan line (${line.limitPerWindow} per ${line.windowSeconds}s)`,
      planRows(runs),
      (values) => ({
        width: WIDTH,
        height: HEIGHT,
        layer: [
          {
            data: { values },
            mark: 'bar',
            encoding: {
              x: { field: 't', type: 'ordinal', title: 'second since the first run of the plan' },
              y: { field: 'count', type: 'quantitative', stack: 'zero', title: 'answers per second' },
              color: {
                field: 'outcome',
                type: 'nominal',
                scale: { domain: ['accepted', '429'], range: ['#2e7d32', '#c62828'] },
              },
              tooltip: [{ field: 'run' }, { field: 'count' }],
            },
          },
          {
            data: { values: [{ y: line.acceptedPerSecond, label: 'plan line' }] },
            mark: { type: 'rule', strokeDash: [6, 4], color: '#1565c0', strokeWidth: 2 },
            encoding: { y: { field: 'y', type: 'quantitative' } },
          },
        ],
      }),
    );
  }
  const nights = [...report.trend, { createdAt: report.createdAt, figures: report.figures }];
  const trendRows = (pick: (f: LoadReport['figures']) => number | null, figure: string): Row[] =>
    nights.flatMap((n) => {
      const v = pick(n.figures);
      return v === null ? [] : [{ night: n.createdAt, figure, value: v }];
    });
  const trendSpec =
    (title: string) =>
    (values: Row[]): Spec => ({
      width: WIDTH,
      height: 160,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'night', type: 'temporal', title: 'night' },
        y: { field: 'value', type: 'quantitative', title },
      },
    });
  await add(
    'trend-p99',
    'Trend: p99 latency of 2xx (ms), last nights',
    trendRows((f) => f.p99LatencyMs, 'p99'),
    trendSpec('p99 ms'),
  );
  await add(
    'trend-throughput',
    'Trend: throughput (req/s), last nights',
    trendRows((f) => f.throughputRps, 'throughput'),
    trendSpec('req/s'),
  );
  return charts;
}
