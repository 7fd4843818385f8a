/**
 * Charts of a report, rendered at report time to static SVG with vega-lite and vega, so the page needs no script and
 * no network. A chart with no data is left out rather than drawn empty. Each reads without the table: scenarios by
 * their full titles (rows, never a colour per scenario), one small chart per scenario with its own scale (a
 * closed-loop burst does not flatten a plan's rate), real time axes (seconds since the run started: rests and gaps
 * show), per-plan bars of accepted and 429 stacked to what was offered against the plan line, dated trend ticks with
 * the thresholds drawn.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { ScenarioResult } from '../load/model.js';
import type { StatusClass } from '../runner/traffic.js';
import type { LoadReport } from './model.js';

export interface Chart {
  readonly id: string;
  readonly title: string;
  /** What to read in it, under the title. */
  readonly note?: string;
  readonly svg: string;
}

type Row = Record<string, string | number | null>;
type Spec = vl.TopLevelSpec;

const WIDTH = 640;
const HEIGHT = 220;
/** Titles are long ("free key at 2× its rate (60 req/s)"): axis and header labels are never cut. */
// 0: no limit (rendered without a canvas, vega estimates text widths generously and would cut well before the edge).
const LABEL_LIMIT = 0;

/** A vega-lite spec as static SVG (no canvas, no script: the page needs neither). */
export async function renderSvg(spec: Spec): Promise<string> {
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
/** Five percentiles, five colours that stay apart (light to dark as the percentile rises). */
const PERCENTILE_COLOURS = ['#4c9be8', '#2ca02c', '#ff7f0e', '#d62728', '#6b3fa0'];

/** The scenario's name on every chart: its title, marked when its latency is not to be trusted. */
function label(s: ScenarioResult): string {
  return `${s.title}${s.untrustworthy ? ' ⚠ untrustworthy' : ''}${s.targetUnavailable ? ' ⚠ target gone' : ''}`;
}

function latencyRows(report: LoadReport): Row[] {
  return report.scenarios.flatMap((s) => {
    const l = s.latency['2xx'];
    // A log scale cannot show 0: sub-resolution latencies are drawn at the histogram's 1 µs floor.
    return l
      ? PERCENTILES.map(([name, key], order) => ({
          scenario: label(s),
          percentile: name,
          order,
          ms: Math.max(0.001, l[key] as number),
        }))
      : [];
  });
}

const total = (statuses: Readonly<Record<string, number>>) => Object.values(statuses).reduce((a, n) => a + n, 0);
const at = (s: ScenarioResult, second: number) => Math.round((s.startOffsetSeconds + second) * 100) / 100;

function throughputRows(report: LoadReport): Row[] {
  return report.scenarios.flatMap((s) =>
    s.timeline.map((b) => ({
      scenario: label(s),
      t: at(s, b.second),
      rps: total(b.statuses),
      asked: s.requested.overallRate,
    })),
  );
}

/** One colour per status class, for every chart of answers by status (the load nights', the conformance traffic). */
export const STATUS_CLASS_COLOUR: Readonly<Record<StatusClass, string>> = {
  '2xx': '#2e7d32',
  '401': '#6a1b9a',
  '429': '#e65100',
  '4xx': '#f9a825',
  '5xx': '#b71c1c',
  other: '#90a4ae',
  error: '#4a4a4a',
};

/** Status colours by class, so that 2xx never looks like a 429 whatever statuses a night saw. */
function statusColour(status: string): string {
  if (status === 'connection error') return STATUS_CLASS_COLOUR.error;
  if (status === 'timeout') return '#9e9e9e';
  if (status === '429') return STATUS_CLASS_COLOUR['429'];
  const n = Number(status);
  if (n >= 500) return STATUS_CLASS_COLOUR['5xx'];
  if (n >= 400) return STATUS_CLASS_COLOUR['4xx'];
  if (n >= 300) return '#8e24aa';
  return ({ '200': STATUS_CLASS_COLOUR['2xx'], '201': '#66bb6a' } as Record<string, string>)[status] ?? '#1b5e20';
}

function statusRows(report: LoadReport): Row[] {
  const rows = new Map<string, Row>();
  for (const s of report.scenarios) {
    for (const b of s.timeline) {
      const t = Math.floor(s.startOffsetSeconds + b.second);
      const add = (status: string, n: number) => {
        if (n <= 0) return;
        const k = `${t} ${status}`;
        const row = rows.get(k) ?? { t, t2: t + 1, status, count: 0 };
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

function planRows(scenarios: readonly ScenarioResult[], t0: number): Row[] {
  return scenarios.flatMap((s) =>
    s.timeline.flatMap((b) => {
      const t = Math.floor(s.startOffsetSeconds - t0 + b.second);
      let accepted = 0;
      for (const [status, n] of Object.entries(b.statuses)) if (status.startsWith('2')) accepted += n;
      const rejected = b.statuses['429'] ?? 0;
      const run = `${s.multiplier}× the plan rate`;
      return [
        { t, t2: t + 1, outcome: 'accepted', count: accepted, run },
        { t, t2: t + 1, outcome: '429 (offered beyond the limit)', count: rejected, run },
      ].filter((r) => r.count > 0);
    }),
  );
}

/** Each per-plan run's offered rate (multiplier × plan) over its span, as a step line above the bars. */
function offeredRows(scenarios: readonly ScenarioResult[], t0: number): Row[] {
  return scenarios.flatMap((s) => {
    const from = Math.floor(s.startOffsetSeconds - t0);
    const rate = s.requested.overallRate ?? 0;
    return [
      { t: from, rate, run: `${s.multiplier}×` },
      { t: from + Math.max(1, s.timeline.length), rate, run: `${s.multiplier}×` },
    ];
  });
}

const dateFormat = '%Y-%m-%d %H:%M';

/** A chart before it is drawn: its rows and the vega-lite spec of them (a chart with no rows is left out). */
interface ChartPlan {
  readonly id: string;
  readonly title: string;
  readonly rows: Row[];
  readonly spec: (values: Row[]) => Spec;
  readonly note?: string;
}

/** A legend over the chart, its labels never cut. */
const topLegend = { orient: 'top', title: null, labelLimit: LABEL_LIMIT } as const;

function latencyChart(report: LoadReport, scenarioOrder: readonly string[]): ChartPlan {
  return {
    id: 'latency-percentiles',
    title: 'Latency percentiles of 2xx answers, per scenario (ms, log scale)',
    rows: latencyRows(report),
    spec: (values) => ({
      width: WIDTH,
      height: { step: 22 },
      data: { values },
      mark: { type: 'point', filled: true, size: 70 },
      encoding: {
        y: {
          field: 'scenario',
          type: 'nominal',
          sort: [...scenarioOrder],
          title: null,
          axis: { labelLimit: LABEL_LIMIT },
        },
        x: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'ms (log scale)' },
        color: {
          field: 'percentile',
          type: 'nominal',
          sort: PERCENTILES.map(([p]) => p),
          scale: { domain: PERCENTILES.map(([p]) => p), range: PERCENTILE_COLOURS },
          legend: topLegend,
        },
        tooltip: [{ field: 'scenario' }, { field: 'percentile' }, { field: 'ms' }],
      },
    }),
    note: 'One row per scenario; each dot a percentile. Closed-loop rows show response time, rate rows service time.',
  };
}

function throughputChart(report: LoadReport, scenarioOrder: readonly string[]): ChartPlan {
  return {
    id: 'throughput',
    title:
      'Answers per second over the run (429s included), one chart per scenario (own scale; dashed: the rate asked)',
    rows: throughputRows(report),
    spec: (values) => ({
      data: { values },
      facet: {
        row: {
          field: 'scenario',
          type: 'nominal',
          sort: [...scenarioOrder],
          title: null,
          header: {
            labelAngle: 0,
            labelAlign: 'left',
            labelAnchor: 'start',
            labelLimit: LABEL_LIMIT,
            labelOrient: 'top',
          },
        },
      },
      resolve: { scale: { y: 'independent' } },
      spacing: 6,
      spec: {
        width: WIDTH,
        height: 48,
        layer: [
          {
            mark: { type: 'line', point: { size: 14 }, color: '#1565c0' },
            encoding: {
              x: { field: 't', type: 'quantitative', title: 'seconds since the run started' },
              y: { field: 'rps', type: 'quantitative', title: null, axis: { tickCount: 2 } },
              tooltip: [{ field: 't' }, { field: 'rps' }],
            },
          },
          {
            transform: [{ filter: 'datum.asked != null' }],
            mark: { type: 'rule', strokeDash: [5, 3], color: '#e65100' },
            encoding: {
              x: { field: 't', type: 'quantitative', aggregate: 'min' },
              x2: { field: 't', aggregate: 'max' },
              y: { field: 'asked', type: 'quantitative', aggregate: 'max' },
            },
          },
        ],
      },
    }),
    note: 'Each scenario on its own scale, so a per-plan rate is not flattened by the closed-loop mix; the time axis is shared, gaps are the rests between scenarios.',
  };
}

function statusChart(report: LoadReport): ChartPlan {
  const rows = statusRows(report);
  const seen = [...new Set(rows.map((r) => String(r.status)))].sort();
  return {
    id: 'status-codes',
    title: 'Status codes and errors per second over the run',
    rows,
    spec: (values) => ({
      width: WIDTH,
      height: HEIGHT,
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        // Pre-binned seconds [t, t + 1): a real time axis, and the bars stack vertically.
        x: {
          field: 't',
          type: 'quantitative',
          bin: { binned: true, step: 1 },
          title: 'seconds since the run started',
        },
        x2: { field: 't2' },
        y: { field: 'count', type: 'quantitative', stack: 'zero', title: 'answers per second' },
        color: {
          field: 'status',
          type: 'nominal',
          scale: { domain: seen, range: seen.map(statusColour) },
          legend: topLegend,
        },
        tooltip: [{ field: 't' }, { field: 'status' }, { field: 'count' }],
      },
    }),
  };
}

/** A horizontal line across a chart with its label, in one colour. */
function labelledRule(values: Row[], color: string, rule: Record<string, unknown>) {
  return {
    data: { values },
    layer: [
      { mark: { type: 'rule' as const, color, ...rule } },
      {
        mark: { type: 'text' as const, align: 'left' as const, dx: 4, dy: -6, color },
        encoding: { text: { field: 'label' }, x: { value: 0 } },
      },
    ],
    encoding: { y: { field: 'y', type: 'quantitative' as const } },
  };
}

/** One plan's per-plan runs: accepted and 429 per second, stacked to what was offered, against the plan line. */
function planChart(report: LoadReport, plan: string): ChartPlan {
  const runs = report.scenarios.filter((s) => s.kind === 'plan-rate' && s.plan === plan);
  const line = runs[0]!.planLine!;
  const t0 = Math.min(...runs.map((s) => s.startOffsetSeconds));
  return {
    id: `plan-${plan}`,
    title: `${plan}: accepted and 429 per second, stacked to what was offered, against the plan line (${line.limitPerWindow} per ${line.windowSeconds} s)`,
    rows: planRows(runs, t0),
    spec: (values) => ({
      width: WIDTH,
      height: HEIGHT,
      layer: [
        {
          data: { values },
          mark: 'bar',
          encoding: {
            x: {
              field: 't',
              type: 'quantitative',
              bin: { binned: true, step: 1 },
              title: `seconds since the ${plan} key's first run`,
            },
            x2: { field: 't2' },
            y: { field: 'count', type: 'quantitative', stack: 'zero', title: 'answers per second' },
            color: {
              field: 'outcome',
              type: 'nominal',
              scale: { domain: ['accepted', '429 (offered beyond the limit)'], range: ['#2e7d32', '#e65100'] },
              legend: topLegend,
            },
            tooltip: [{ field: 'run' }, { field: 'outcome' }, { field: 'count' }],
          },
        },
        {
          data: { values: offeredRows(runs, t0) },
          mark: { type: 'line', interpolate: 'step-after', strokeDash: [2, 2], color: '#555' },
          encoding: {
            x: { field: 't', type: 'quantitative' },
            y: { field: 'rate', type: 'quantitative' },
            detail: { field: 'run' },
          },
        },
        labelledRule([{ y: line.acceptedPerSecond, label: `plan line ${line.acceptedPerSecond}/s` }], '#1565c0', {
          strokeDash: [6, 4],
          strokeWidth: 2,
        }),
      ],
    }),
    note: `Bar height = offered (accepted + 429); dotted steps: the rate each run offered (${runs.map((s) => `${s.multiplier}×`).join(', ')}); dashed: the plan's average rate. A limiter may accept a whole window's limit in one second, so one bar can pass the line: the verdict is per window (table below).`,
  };
}

function planCharts(report: LoadReport): ChartPlan[] {
  const plans = [...new Set(report.scenarios.filter((s) => s.kind === 'plan-rate' && s.planLine).map((s) => s.plan!))];
  return plans.map((plan) => planChart(report, plan));
}

/** One figure by night, this night's last, with the thresholds in force drawn. */
interface TrendFigure {
  readonly id: string;
  readonly title: string;
  readonly pick: (f: LoadReport['figures']) => number | null;
  readonly unit: string;
  readonly thresholdNames: readonly string[];
}

const TREND_FIGURES: readonly TrendFigure[] = [
  {
    id: 'trend-p99',
    title: 'Trend: p99 latency of 2xx (ms), by night',
    pick: (f) => f.p99LatencyMs,
    unit: 'p99 ms',
    thresholdNames: ['p99 latency (ms)', 'p99 latency against the trend (ms)'],
  },
  {
    id: 'trend-throughput',
    title: 'Trend: throughput (req/s), by night',
    pick: (f) => f.throughputRps,
    unit: 'req/s',
    thresholdNames: ['throughput (req/s)', 'throughput against the trend (req/s)'],
  },
];

/** The note under a trend chart: how many nights, and whether relative thresholds apply yet. */
function trendNote(report: LoadReport, nights: number): string {
  const from = report.verdict.relativeFromNights ?? null;
  const relativeNote =
    from === null
      ? ''
      : report.verdict.checks.some((c) => c.basis !== 'absolute')
        ? ' Relative thresholds apply (median of the earlier nights).'
        : ` Thresholds relative to earlier nights begin once ${from} earlier night${from === 1 ? '' : 's'} exist (${report.trend.length} so far): until then every limit is absolute.`;
  return `${nights} night${nights === 1 ? '' : 's'} of this profile and target; red: the limit in force.${relativeNote}`;
}

function trendCharts(report: LoadReport): ChartPlan[] {
  const nights = [
    ...report.trend.map((n) => ({ createdAt: n.createdAt, figures: n.figures, kind: 'earlier night' })),
    { createdAt: report.createdAt, figures: report.figures, kind: 'this night' },
  ];
  const times = nights.map((n) => Date.parse(n.createdAt));
  // A single night still gets a dated axis: the domain is widened by half a day each side.
  const pad = 12 * 3600 * 1000;
  const domain = [Math.min(...times) - pad, Math.max(...times) + pad];
  return TREND_FIGURES.map((fig): ChartPlan => {
    const rows: Row[] = nights.flatMap((n) => {
      const v = fig.pick(n.figures);
      return v === null ? [] : [{ night: Date.parse(n.createdAt), value: v, kind: n.kind }];
    });
    const limits: Row[] = report.verdict.checks
      .filter((c) => fig.thresholdNames.includes(c.name))
      .map((c) => ({ y: c.limit, label: `${c.comparison} ${c.limit} (${c.basis})` }));
    return {
      id: fig.id,
      title: fig.title,
      rows,
      spec: (values) => ({
        width: WIDTH,
        height: 160,
        layer: [
          {
            data: { values },
            mark: { type: 'line', point: { size: 60, filled: true }, color: '#1565c0' },
            encoding: {
              x: {
                field: 'night',
                type: 'temporal',
                title: 'night',
                scale: { domain },
                axis: { format: dateFormat, labelAngle: -20, tickCount: Math.min(6, Math.max(2, rows.length)) },
              },
              y: { field: 'value', type: 'quantitative', title: fig.unit },
              tooltip: [
                { field: 'night', type: 'temporal', format: dateFormat },
                { field: 'value' },
                { field: 'kind' },
              ],
            },
          },
          ...(limits.length > 0 ? [labelledRule(limits, '#c62828', { strokeDash: [4, 4] })] : []),
        ],
      }),
      note: trendNote(report, nights.length),
    };
  });
}

/** Every chart of a load report, drawn: those with no data are left out. */
export async function renderCharts(report: LoadReport): Promise<Chart[]> {
  const scenarioOrder = report.scenarios.map(label);
  const plans = [
    latencyChart(report, scenarioOrder),
    throughputChart(report, scenarioOrder),
    statusChart(report),
    ...planCharts(report),
    ...trendCharts(report),
  ];
  const charts: Chart[] = [];
  for (const p of plans)
    if (p.rows.length > 0)
      charts.push({
        id: p.id,
        title: p.title,
        ...(p.note ? { note: p.note } : {}),
        svg: await renderSvg(p.spec(p.rows)),
      });
  return charts;
}
