/**
 * report.html: one self-contained file (inline CSS, inline SVG charts, no script, no external reference), readable
 * offline and from an email attachment. Verdict first, then the evidence.
 */
import type { ScenarioResult, StatusClass } from '../load/model.js';
import { STATUS_CLASSES } from '../load/model.js';
import type { Chart } from './charts.js';
import type { LoadReport } from './model.js';
import { nightHeadline, trendNote } from './summary.js';

/** The flag of one shard's scenario in a merged report, or nothing. */
function healthFlag(report: LoadReport, scenario: string, shard: number | null): string {
  const f = report.merge?.flagged.find((x) => x.scenario === scenario && x.shard === shard);
  return f ? `⚠ ${f.generatorBound ? 'its own bottleneck' : 'below its share'}` : '';
}

/** A merged report's shards: start offsets, the spread, warnings and the shards flagged. */
function mergeSection(report: LoadReport): string {
  const m = report.merge;
  if (!m) return '';
  return `<h2>Shards</h2>
<p>${esc(m.count)} shards of the ${esc(m.profile)} profile${m.profileId ? ` (definition ${esc(m.profileId)})` : ''}; start spread ${esc(m.startSpreadSeconds)} s.</p>
${m.warnings.length > 0 ? `<ul class="warn" id="merge-warnings">${m.warnings.map((w) => `<li>⚠ ${esc(w)}</li>`).join('')}</ul>` : ''}
${table(
  ['shard', 'report', 'started at', 'start offset s'],
  m.shards.map((s) => [s.index ?? '–', s.dir, s.startedAt, s.startOffsetSeconds]),
)}`;
}

export function esc(text: unknown): string {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const num = (v: number | null | undefined, unit = '') => (v === null || v === undefined ? '–' : `${v}${unit}`);

/** A table of plain cells, every one escaped (none: a muted 'none'). */
export function table(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  if (rows.length === 0) return '<p class="muted">none</p>';
  return `<table><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

function statuses(s: ScenarioResult): string {
  return Object.entries(s.byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k}×${n}`)
    .join(' ');
}

function latencyRows(report: LoadReport): unknown[][] {
  return report.scenarios.flatMap((s) =>
    STATUS_CLASSES.flatMap((cls: StatusClass) => {
      const l = s.latency[cls];
      return l ? [[s.id, cls, s.latencyKind, l.count, l.p50Ms, l.p90Ms, l.p99Ms, l.p999Ms, l.maxMs]] : [];
    }),
  );
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1000px;padding:16px;color:#1b1b1b}
h1{font-size:22px;margin:.2em 0}h2{font-size:17px;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
.verdict{padding:12px 16px;border-radius:6px;margin:8px 0 16px}.pass{background:#e8f5e9;border:1px solid #2e7d32}
.fail{background:#ffebee;border:1px solid #c62828}.unavailable{background:#fff8e1;border:1px solid #f57f17}.verdict strong{font-size:20px}
.warn{color:#8a4b00}figure .note{color:#555;font-size:12px;margin:0 0 4px}
table{border-collapse:collapse;margin:6px 0;font-size:13px}td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f5f5f5}.muted{color:#777}figure{margin:10px 0}figcaption{font-weight:600;margin-bottom:4px}
.chart svg{max-width:100%;height:auto}`;

/** The verdict in words, and why. */
function verdictSection(report: LoadReport): string {
  const v = report.verdict;
  const { word } = nightHeadline(report);
  return `<div class="verdict ${v.unavailable || report.interrupted ? 'unavailable' : v.pass ? 'pass' : 'fail'}" id="verdict"><strong>${word}</strong>
${
  v.unavailable
    ? `<p>No performance verdict: the target was not there to measure, which is not a regression. ${
        report.unavailable?.scenario
          ? `It went away during ${esc(report.unavailable.scenario)}; below is what was measured before.`
          : 'No load was sent.'
      }</p><ul>${v.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`
    : v.pass
      ? '<p>Every threshold held.</p>'
      : `<ul>${v.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`
}</div>`;
}

/** The night's key figures. */
function keyFiguresSection(report: LoadReport): string {
  const f = report.figures;
  return `<h2>Key figures</h2>
${table(
  ['figure', 'value'],
  [
    ['p50 latency, 2xx, mix scenarios', num(f.p50LatencyMs, ' ms')],
    ['p99 latency, 2xx, mix scenarios', num(f.p99LatencyMs, ' ms')],
    ['throughput, closed-loop mix (best)', num(f.throughputRps, ' req/s')],
    ['error rate (connection errors, timeouts, 5xx)', f.errorRate],
    ['non-conformant responses under load', f.nonConformant],
    ['responses', f.responses],
    ['429s at or below the plan rate', f.falseRejections],
    ['accepted before the first 429 ÷ limit (min)', num(f.minFirstWindowRatio)],
    ['accepted ÷ limit per window above the rate (max)', num(f.maxAcceptedRatio)],
  ],
)}`;
}

/** Each threshold with its value and result. */
function thresholdsSection(report: LoadReport): string {
  const v = report.verdict;
  return `<h2>Thresholds</h2>
${table(
  ['check', 'value', 'limit', 'basis', 'result'],
  v.checks.map((c) => [c.name, num(c.value), `${c.comparison} ${c.limit}`, c.basis, c.pass ? 'pass' : 'FAIL']),
)}`;
}

/** The charts, drawn at report time. */
function chartsSection(charts: readonly Chart[]): string {
  return `<h2>Charts</h2>
${charts.length === 0 ? '<p class="muted">Nothing was measured to chart.</p>' : ''}
${charts.map((c) => `<figure class="chart" data-chart="${esc(c.id)}"><figcaption>${esc(c.title)}</figcaption>${c.note ? `<p class="note">${esc(c.note)}</p>` : ''}${c.svg}</figure>`).join('\n')}`;
}

/** One row per scenario: what was asked and what came. */
function scenariosSection(report: LoadReport): string {
  return `<h2>Scenarios</h2>
${table(
  [
    'scenario',
    'connections',
    'rate asked',
    'duration',
    'responses',
    'statuses',
    'conn. errors',
    'timeouts',
    'achieved req/s',
  ],
  report.scenarios.map((s) => [
    `${s.title}${s.targetUnavailable ? ` — stopped: target unavailable (${s.targetUnavailable})` : ''}${s.untrustworthy ? ` — ⚠ ${s.untrustworthy}` : ''}`,
    s.requested.connections,
    s.requested.overallRate ?? 'closed loop',
    `${s.elapsedSeconds} s`,
    s.responses,
    statuses(s),
    s.errors - s.timeouts,
    s.timeouts,
    s.achievedRate,
  ]),
)}`;
}

/** Latency per scenario and status class. */
function latencySection(report: LoadReport): string {
  return `<h2>Latency by status class</h2>
<p class="muted">Closed-loop scenarios show response time; scenarios with a rate show service time (autocannon's coordinated-omission correction is off). 429s and other classes have their own histograms so fast rejections do not pull percentiles down.</p>
${table(['scenario', 'class', 'latency shown', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms'], latencyRows(report))}`;
}

/** The per-plan runs against their limits. */
function rateLimitSection(report: LoadReport): string {
  return `<h2>Rate limits per plan</h2>
${table(
  [
    'scenario',
    'offered',
    'accepted',
    '429',
    'accepted before first 429',
    'false 429s',
    'first-window ratio',
    'accepted ratio',
    'note',
  ],
  report.scenarios.flatMap((s) =>
    s.limiter
      ? [
          [
            s.title,
            s.limiter.offered,
            s.limiter.accepted,
            s.limiter.rejected,
            s.limiter.acceptedBeforeFirst429,
            s.limiter.falseRejections,
            num(s.limiter.firstWindowRatio),
            num(s.limiter.acceptedRatio),
            s.limiter.note,
          ],
        ]
      : [],
  ),
)}`;
}

/** Responses judged under load, with examples. */
function conformanceSection(report: LoadReport): string {
  const conformanceExamples = report.scenarios.flatMap((s) =>
    s.conformance.examples.map((e) => [s.id, e.operation, e.status, e.checkId, e.clause, e.message]),
  );
  return `<h2>Conformance under load</h2>
${table(
  ['scenario', 'responses checked', 'bodies validated', 'non-conformant', 'by check'],
  report.scenarios.map((s) => [
    s.id,
    s.conformance.responsesChecked,
    s.conformance.bodiesValidated,
    s.conformance.nonConformant,
    Object.entries(s.conformance.byCheck)
      .map(([k, n]) => `${k}×${n}`)
      .join(' '),
  ]),
)}
${conformanceExamples.length > 0 ? `<h3>Examples</h3>${table(['scenario', 'operation', 'status', 'check', 'clause', 'message'], conformanceExamples)}` : ''}`;
}

/** Connection errors and timeouts per scenario. */
function errorsSection(report: LoadReport): string {
  const errorRows = report.scenarios.flatMap((s) => Object.entries(s.errorMessages).map(([m, n]) => [s.id, m, n]));
  return `<h2>Connection errors and timeouts</h2>
${table(['scenario', 'error', 'count'], errorRows)}`;
}

/** The load generator's own health: a shard near a core measures itself. */
function generatorSection(report: LoadReport): string {
  const rateRows = report.scenarios
    .filter((s) => s.requested.overallRate !== null)
    .map((s) => [
      s.id,
      s.requested.overallRate,
      s.achievedRate,
      s.requested.overallRate ? `${Math.round((s.achievedRate / s.requested.overallRate) * 100)}%` : '–',
    ]);
  return `<h2>Generator health</h2>
<p class="muted">Per scenario and shard: the client's CPU over the scenario and at its busiest second (100 % = one core: a shard near it measures itself), event-loop delay, and the rate asked of this generator against what it achieved. The night's whole-run figures below average over rests.</p>
${table(
  [
    'scenario',
    'shard',
    'client CPU % (scenario)',
    'client CPU % (busiest second)',
    'event-loop delay p99 ms',
    'rate asked',
    'achieved req/s',
    '',
  ],
  report.scenarios.flatMap((s) =>
    (s.generator ?? []).map((g) => [
      s.id,
      g.shard ?? '–',
      g.cpuPercent,
      g.peakCpuPercent,
      g.eventLoopDelayP99Ms,
      g.requestedRate ?? 'closed loop',
      g.achievedRate,
      healthFlag(report, s.id, g.shard),
    ]),
  ),
)}
${table(
  ['shard', 'wall s', 'client CPU % (whole run, one core)', 'peak RSS MB', 'event-loop delay p99 ms'],
  report.generator.map((g, i) => [i + 1, g.wallSeconds, g.cpuPercent, g.peakRssMb, g.eventLoopDelayP99Ms]),
)}
${table(['scenario', 'requested req/s', 'achieved req/s', 'achieved ÷ requested'], rateRows)}`;
}

/** This night beside the earlier ones. */
function trendSection(report: LoadReport): string {
  const v = report.verdict;
  const f = report.figures;
  return `<h2>Trend</h2>
<p>${esc(trendNote(report))}</p>
${table(
  ['night', 'pass', 'p99 ms', 'throughput req/s', 'error rate', 'non-conformant'],
  [
    ...report.trend,
    {
      createdAt: report.createdAt,
      pass: v.pass,
      figures: f,
      ...(v.unavailable ? { unavailable: true } : {}),
      ...(report.interrupted ? { interrupted: true } : {}),
    },
  ].map((n) => [
    n.createdAt,
    'interrupted' in n ? 'interrupted' : 'unavailable' in n ? 'target unavailable' : n.pass ? 'pass' : 'FAIL',
    num(n.figures.p99LatencyMs),
    num(n.figures.throughputRps),
    n.figures.errorRate,
    n.figures.nonConformant,
  ]),
)}`;
}

/** Where the night ran. */
function environmentSection(report: LoadReport): string {
  return `<h2>Environment</h2>
${table(['', ''], Object.entries(report.environment))}
<p class="muted">report.json schemaVersion ${esc(report.schemaVersion)}; raw autocannon results and HDR histograms are in report.json.</p>`;
}

export function renderHtml(report: LoadReport, charts: readonly Chart[]): string {
  const { word } = nightHeadline(report);
  const target = report.target.embedded ? `embedded reference server (${report.target.url})` : report.target.url;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Load report ${esc(report.profile)} ${esc(report.createdAt)}: ${word}</title>
<style>${CSS}</style></head><body>
<h1>Pet Store load report — ${esc(report.profile)}</h1>
${verdictSection(report)}
${mergeSection(report)}
<p>Target: ${esc(target)} · rate window ${esc(report.target.windowSeconds)} s · ${esc(report.startedAt)} → ${esc(report.finishedAt)} · ${esc(report.shards)} shard(s)</p>
${keyFiguresSection(report)}
${thresholdsSection(report)}
${chartsSection(charts)}
${scenariosSection(report)}
${latencySection(report)}
${rateLimitSection(report)}
${conformanceSection(report)}
${errorsSection(report)}
${generatorSection(report)}
${trendSection(report)}
${environmentSection(report)}
</body></html>
`;
}
