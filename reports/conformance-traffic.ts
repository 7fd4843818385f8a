/**
 * The run's traffic in the conformance page: per key, answers per second by status class over the run (the 429s and
 * 401s apart) with the waits drawn as bands, and how much of the keyed traffic the target refused. From the report's
 * `traffic` (runner/traffic.ts) alone.
 */
import type { KeyTraffic, StatusClass, StatusCounts, TrafficSnapshot, TrafficWait } from '../runner/traffic.js';
import { STATUS_CLASSES } from '../runner/traffic.js';
import { isUnkeyedPlan } from '../http/exchange.js';
import { renderSvg, STATUS_CLASS_COLOUR } from './charts.js';
import { esc, table } from './html.js';

const CLASS_WORD: Readonly<Record<StatusClass, string>> = {
  '2xx': '2xx',
  '401': '401',
  '429': '429',
  '4xx': 'other 4xx',
  '5xx': '5xx',
  other: '1xx/3xx',
  error: 'no answer',
};

const sum = (c: StatusCounts): number => STATUS_CLASSES.reduce((n, k) => n + (c[k] ?? 0), 0);

/** The keys the run used as keys (the unkeyed requests are the auth suite's, refused on purpose). */
const keyedTraffic = (t: TrafficSnapshot): KeyTraffic[] => t.keys.filter((k) => !isUnkeyedPlan(k.plan));

/** Answers of a key's plan, and how many of them were refused with 401 or 429. */
export interface Refused {
  readonly plan: string;
  readonly answers: number;
  readonly refused: number;
}

/**
 * Each key (by plan) the run used whose answers were mostly refusals (401 or 429): its pass says little. Judged per key,
 * so a large plan's burst of 2xx does not hide the functional key refused; a few answers (under 10) prove nothing.
 */
export function mostlyRefused(t: TrafficSnapshot): Refused[] {
  return keyedTraffic(t)
    .map((k) => ({ plan: k.plan, answers: sum(k.totals), refused: (k.totals['401'] ?? 0) + (k.totals['429'] ?? 0) }))
    .filter((k) => k.answers >= 10 && k.refused * 2 > k.answers);
}

/** The length of the union of intervals (lanes wait side by side: their waits overlap). */
function covered(spans: readonly (readonly [number, number])[]): number {
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total;
}

type Row = Record<string, string | number>;

function rows(k: KeyTraffic, width: number): Row[] {
  return k.buckets.flatMap((b) =>
    STATUS_CLASSES.filter((c) => (b.counts[c] ?? 0) > 0).map((c) => ({
      t: b.at,
      t2: b.at + width,
      status: CLASS_WORD[c],
      perSecond: Math.round(((b.counts[c] ?? 0) / width) * 100) / 100,
    })),
  );
}

/** The 429s marked above their bucket, with their count: a few among thousands would not show in the stack alone. */
function limitedMarks(limited: Record<string, number | string>[]) {
  if (limited.length === 0) return [];
  const at = { x: { field: 't', type: 'quantitative' as const }, y: { field: 'top', type: 'quantitative' as const } };
  return [
    {
      data: { values: limited },
      mark: { type: 'point' as const, shape: 'triangle-down', filled: true, size: 50, color: '#e65100' },
      encoding: at,
    },
    {
      data: { values: limited },
      mark: { type: 'text' as const, dy: -10, fontSize: 10, color: '#e65100' },
      encoding: { ...at, text: { field: 'label' } },
    },
  ];
}

/** One key's timeline: stacked answers per second by status class, the waits as grey bands behind them. */
async function timeline(k: KeyTraffic, waits: readonly TrafficWait[], t: TrafficSnapshot): Promise<string> {
  const seen = STATUS_CLASSES.filter((c) => (k.totals[c] ?? 0) > 0);
  const bands = waits.filter((w) => w.plan === k.plan).map((w) => ({ t: w.at, t2: w.at + w.seconds, why: w.reason }));
  // To the end of the last bucket and of the last wait, so each is drawn whole inside the plot (no clip: vega numbers
  // its clip paths per process, and the page must be the same bytes whenever it is rendered).
  const end = Math.max(
    1,
    Math.ceil(t.seconds / t.bucketSeconds) * t.bucketSeconds,
    ...k.buckets.map((b) => b.at + t.bucketSeconds),
    ...bands.map((b) => b.t2),
  );
  const x = {
    field: 't',
    type: 'quantitative' as const,
    title: 'seconds since the run started',
    scale: { domain: [0, end] },
  };
  const limited = k.buckets
    .filter((b) => (b.counts['429'] ?? 0) > 0)
    .map((b) => ({
      t: b.at + t.bucketSeconds / 2,
      top: sum(b.counts) / t.bucketSeconds,
      label: `429 ×${b.counts['429']}`,
    }));
  return renderSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: 640,
    height: 110,
    layer: [
      ...(bands.length
        ? [
            {
              data: { values: bands },
              mark: { type: 'rect' as const, color: '#bdbdbd', opacity: 0.45 },
              encoding: { x, x2: { field: 't2' }, tooltip: [{ field: 'why' }] },
            },
          ]
        : []),
      {
        data: { values: rows(k, t.bucketSeconds) },
        mark: { type: 'bar' },
        encoding: {
          // Pre-binned buckets [t, t + width): a real time axis, and the classes stack.
          x: { ...x, bin: { binned: true, step: t.bucketSeconds } },
          x2: { field: 't2' },
          y: { field: 'perSecond', type: 'quantitative', stack: 'zero', title: 'answers per second' },
          color: {
            field: 'status',
            type: 'nominal',
            scale: { domain: seen.map((c) => CLASS_WORD[c]), range: seen.map((c) => STATUS_CLASS_COLOUR[c]) },
            legend: { orient: 'top', title: null },
          },
          tooltip: [{ field: 't' }, { field: 'status' }, { field: 'perSecond' }],
        },
      },
      ...limitedMarks(limited),
    ],
  });
}

/** The traffic section: a table of every key's answers by class and waits, then a timeline per key. */
export async function trafficSection(t: TrafficSnapshot | undefined): Promise<string> {
  if (!t) return '<p class="muted">The report holds no traffic (written by an older version).</p>';
  if (t.keys.length === 0) return '<p class="muted">No answer was counted.</p>';
  const waitsOf = (plan: string) => t.waits.filter((w) => w.plan === plan);
  const rows = t.keys.map((k) => {
    const w = waitsOf(k.plan);
    const waited = covered(w.map((x) => [x.at, x.at + x.seconds] as const));
    return [
      isUnkeyedPlan(k.plan) ? `${k.plan} (no valid key, on purpose)` : k.plan,
      sum(k.totals),
      ...STATUS_CLASSES.map((c) => k.totals[c] ?? 0),
      w.length ? `${w.length}, ${waited.toFixed(1)} s` : '–',
    ];
  });
  const charts: string[] = [];
  for (const k of keyedTraffic(t))
    charts.push(
      `<figure class="chart" data-chart="traffic-${esc(k.plan)}"><figcaption>${esc(k.plan)} key: answers per second by status; grey bands: waits (Retry-After, a spent window)</figcaption>${await timeline(k, t.waits, t)}</figure>`,
    );
  const unlisted = t.waitsNotListed
    ? `<p class="muted">${esc(t.waitsNotListed)} more waits were counted but not listed.</p>`
    : '';
  return `${table(['key', 'answers', ...STATUS_CLASSES.map((c) => CLASS_WORD[c]), 'waits (time spent waiting)'], rows)}
<p class="muted">By plan (two keys of one plan share a row), in buckets of ${esc(t.bucketSeconds)} s over ${esc(t.seconds)} s; waits side by side count once; the start-up check's request is not counted.</p>
<div class="charts">${charts.join('\n')}</div>${unlisted}`;
}
