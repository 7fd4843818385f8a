/**
 * The HTML page of a conformance run: one self-contained file (inline CSS, inline SVG charts rendered at build time
 * with vega-lite as the load report's, one small inline script for the copy buttons, no remote resource), built from
 * the JSON report alone so `report html r.json` rebuilds it byte for byte. Verdict first; then the spec as a map
 * (clause by clause, operation by operation), one card per defect with its smallest failing exchange, the rate limits
 * per plan, the run's traffic per key and the observations. Bounded for long runs: one exchange per defect,
 * observations grouped.
 */
import type * as vl from 'vega-lite';
import { checkById } from '../checks/registry.js';
import type { Finding } from '../checks/check.js';
import { parseLossless, stringifyLossless } from '../http/lossless.js';
import { type KeyRateLimitResult, keyMeasured, whyNotMeasured } from '../runner/rate-limit-results.js';
import { type Clause, clauses } from '../spec/clauses.js';
import { EVIDENCE_WORD, type EvidenceState, evidenceTable, OPERATIONS } from './evidence.js';
import type { ConformanceReport, Defect } from './conformance-report.js';
import { defectBlocks, replayFileLine, replayLine, specWords, whereSeen } from './conformance-text.js';
import { renderSvg } from './charts.js';
import { mostlyRefused, trafficSection } from './conformance-traffic.js';
import { esc, table } from './html.js';
import type { RunLimitsReport } from './run-limits.js';
import { VERDICT_WORD } from './verdict.js';

/** The JSON report as the run writes it: the run's limits are there when the run command wrote it. */
export type HtmlInput = ConformanceReport & { readonly run?: RunLimitsReport };

type CellState = EvidenceState | 'elsewhere' | 'not-applicable';

const CELL_WORD: Readonly<Record<CellState, string>> = {
  ...EVIDENCE_WORD,
  elsewhere: '≡ covered elsewhere',
  'not-applicable': '',
};

const anchor = (i: number) => `defect-${i + 1}`;

/** Finding index → the card (defect index) that shows it, as its own evidence or as what it was also seen as. */
function cardOfFinding(defects: readonly Defect[]): Map<number, number> {
  const m = new Map<number, number>();
  defects.forEach((d, i) => {
    for (const f of [
      ...d.findings,
      ...d.signatures.flatMap((s) => s.findings),
      ...d.alsoSeenAs.flatMap((s) => s.findings),
    ])
      if (!m.has(f)) m.set(f, i);
  });
  return m;
}

export interface MapCell {
  readonly state: CellState;
  /** Where its evidence is (#defect-N, #observations), or null. */
  readonly href: string | null;
  readonly title: string;
  /** Pieces of evidence a check of the clause applied to and passed here (a proven cell's count). */
  readonly passed: number;
}

/** Whether a finding bears on a clause: it cites it, or its check covers it (as the table of evidence reads it). */
function bearsOn(f: Finding, clause: string): boolean {
  if (f.clause === clause) return true;
  try {
    return f.level !== 'observation' && checkById(f.checkId).covers.includes(clause);
  } catch {
    return false;
  }
}

/**
 * The spec as a map: one row per clause, one cell per operation, drawn from the report's table of evidence (a report
 * written before it had one proves nothing: its cells say what failed, and not exercised otherwise).
 */
export function clauseMap(
  report: HtmlInput,
  cards: readonly Defect[],
): { columns: string[]; rows: { clause: Clause; cells: MapCell[] }[] } {
  const columns = [...OPERATIONS];
  const cardOf = cardOfFinding(cards);
  const table = report.evidence ?? evidenceTable({ findings: report.findings, counts: [] });
  const byCell = new Map(table.cells.map((c) => [`${c.clause} ${c.operation}`, c]));
  const rows = clauses.map((clause) => ({
    clause,
    cells: columns.map((col): MapCell => {
      const cell = byCell.get(`${clause.id} ${col}`);
      if (!cell) {
        if (clause.coverage && col === columns[0])
          return { state: 'elsewhere', href: null, title: `${clause.coverage.by}: ${clause.coverage.why}`, passed: 0 };
        return { state: 'not-applicable', href: null, title: 'no check of this clause applies here', passed: 0 };
      }
      const level = cell.state === 'violated' ? 'violation' : cell.state === 'warned' ? 'warning' : 'observation';
      const i =
        cell.state === 'violated' || cell.state === 'warned' || cell.state === 'observed'
          ? report.findings.findIndex((f) => f.level === level && f.operation === col && bearsOn(f, clause.id))
          : -1;
      const f = i >= 0 ? report.findings[i]! : null;
      const card = f ? cardOf.get(i) : undefined;
      const title =
        cell.state === 'proven'
          ? `proven: ${cell.passed} piece(s) of evidence a check of it applied to passed here; nothing failed`
          : f
            ? f.message.split('\n')[0]!
            : (cell.why ?? (cell.state === 'observed' ? 'a check applied but could only observe' : ''));
      const href =
        cell.state === 'left-out'
          ? '#run'
          : f && f.level !== 'observation'
            ? card === undefined
              ? null
              : `#${anchor(card)}`
            : f
              ? '#observations'
              : null;
      return { state: cell.state, href, title, passed: cell.passed };
    }),
  }));
  return { columns, rows };
}

/** A cell's words on the page: a proven cell with its count. */
const cellWord = (c: MapCell): string =>
  c.state === 'proven' ? `${CELL_WORD.proven} (${c.passed})` : CELL_WORD[c.state];

/** Why this pass says little, when it does: most requests refused, or whole suites left out. */
function meansLittle(report: HtmlInput): string[] {
  const out: string[] = [];
  // Counted from the traffic, key by key: answers 401 or 429 to requests with a valid key (the auth suite's keyless
  // ones are refused by design and not counted).
  for (const k of report.traffic ? mostlyRefused(report.traffic) : [])
    out.push(
      `${k.refused} of ${k.answers} requests with the ${k.plan} key were refused with 401 or 429: the target was barely reached with it.`,
    );
  if (report.totals.exchanges === 0) out.push('No exchange was judged.');
  if (report.run?.stop) out.push(`The run was stopped early: ${report.run.stop.message}.`);
  else if (report.verdict === 'blocked') out.push('The run could not go on (blocked): what it found is below.');
  const suitesOut = report.notMeasured.filter((n) => /not run|did not run|left out/.test(n));
  if (suitesOut.length > 0) out.push(`Whole parts of the spec were not measured: ${suitesOut.join('; ')}.`);
  return out;
}

const b64text = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8');

/** Control characters (a UTF-16 body's NULs) shown as their Unicode pictures (␀), so the page holds only text. */
export const visible = (text: string): string =>
  text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) =>
    String.fromCharCode(c === '\u007f' ? 0x2421 : 0x2400 + c.charCodeAt(0)),
  );

/** A body as text, pretty-printed when it is JSON, with every integer's digits as they were (no float rounding). */
export function prettyBody(text: string): string {
  try {
    // A text with no JSON form throws (stringifyLossless), and is shown as it came.
    return stringifyLossless(parseLossless(text), 2);
  } catch {
    return text;
  }
}

function requestText(f: Finding): string {
  const ex = f.exchanges[0];
  if (!ex) return '';
  const r = ex.request;
  const head = `${r.method} ${r.rawTarget ?? r.path} HTTP/1.1\n${Object.entries(r.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}`;
  return r.bodyBase64 ? `${head}\n\n${prettyBody(b64text(r.bodyBase64))}` : head;
}

const CUT_WORDS = {
  report: 'cut here: the HAR of a run given --har holds the whole body',
  'read-cap': "cut where the client stopped reading (its cap): the target's body was longer",
} as const;

/**
 * The response as the report keeps it: status, headers and body (pretty-printed, digits exact) when the reference
 * holds them; otherwise its status (or the transport error) and what the check saw in it.
 */
function responseText(f: Finding): string {
  const ex = f.exchanges[0];
  if (!ex) return '';
  const status = ex.error ? `no response: ${ex.error}` : `HTTP ${ex.status ?? '?'}`;
  const r = ex.response;
  if (r) {
    const headers = Object.entries(r.headers)
      .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${x}`))
      .join('\n');
    const body = r.bodyText === '' ? '' : `\n\n${r.cut ? `${r.bodyText}…` : prettyBody(r.bodyText)}`;
    return `${status}\n${headers}${body}${r.cut ? `\n(${CUT_WORDS[r.cut]})` : ''}`;
  }
  return `${status}${f.actual ? `\n\nreceived: ${prettyBody(f.actual)}` : ''}${f.expected ? `\nexpected: ${f.expected}` : ''}`;
}

const copyable = (label: string, text: string) =>
  `<div class="cmd"><span class="muted">${esc(label)}</span><code>${esc(text)}</code><button type="button" class="copy" data-copy="${esc(text)}">copy</button></div>`;

function defectCard(report: HtmlInput, d: Defect, i: number): string {
  const f = report.findings[d.findings[0]!]!;
  const known = report.baseline?.known.includes(d.signature) ?? false;
  const words = specWords(f.clause);
  const ex = f.exchanges[0];
  const replayFile = report.replayFiles?.[d.signature];
  const byReason = new Map<string, string[]>();
  for (const e of d.alsoSeenAs) byReason.set(e.reason, [...new Set([...(byReason.get(e.reason) ?? []), e.seenAs])]);
  return `<article class="card ${d.level}" id="${anchor(i)}" data-defect="${esc(d.signature)}">
<h3>${d.level === 'violation' ? '✗' : '!'} ${esc(d.signature)}</h3>
<p class="meta">check <b>${esc(d.checkId)}</b> · clause <b>${esc(f.clause)}</b> · seen ${esc(d.occurrences)}× · ${
    report.baseline
      ? known
        ? '<span class="known">known to the baseline</span>'
        : '<span class="new">new: not in the baseline</span>'
      : 'no baseline given'
  }</p>
${words ? `<blockquote>${esc(words)}</blockquote>` : ''}
<p>${esc(f.message).replace(/\n/g, '<br>')}</p>
<table class="facts"><tr><th>operations</th><td>${esc(whereSeen(d))}</td></tr><tr><th>statuses</th><td>${esc(d.statuses.join(', ') || '–')}</td></tr>${
    d.variants.length ? `<tr><th>variants</th><td>${esc(d.variants.join(' · '))}</td></tr>` : ''
  }${[...byReason].map(([reason, seen]) => `<tr><th>also seen as</th><td>${esc(seen.join(' · '))} — ${esc(reason)}</td></tr>`).join('')}</table>
${f.repro?.counterexample ? `<p class="muted">smallest failing input: <code>${esc(f.repro.counterexample)}</code>${f.repro.shrinks ? ` (shrunk ${esc(f.repro.shrinks)}×)` : ''}</p>` : ''}
${ex ? `<div class="exchange"><div><h4>request</h4><pre>${esc(visible(requestText(f)))}</pre></div><div><h4>response</h4><pre>${esc(visible(responseText(f)))}</pre></div></div>` : ''}
${copyable('replay', replayLine(report, f))}
${ex ? copyable('curl', ex.curl) : ''}
${replayFile ? copyable('replay file', replayFileLine(report, replayFile)) : ''}
</article>`;
}

const keyResults = (r: HtmlInput): KeyRateLimitResult[] =>
  (r.rateLimits ?? []).filter((x): x is KeyRateLimitResult => x.suite === 'rate-limit');

const PHASE_COLOUR = { paced: '#66bb6a', burst: '#2e7d32', limit: '#9e9e9e' } as const;

/** One small chart per measured key: what it sent paced, accepted in its burst, and its limit, as bars. */
async function keyChart(k: KeyRateLimitResult): Promise<string> {
  const values: { kind: keyof typeof PHASE_COLOUR; phase: string; requests: number }[] = [
    { kind: 'paced', phase: 'paced, no 429 allowed', requests: k.paced.sent },
    ...(k.burst
      ? [{ kind: 'burst' as const, phase: 'burst accepted before the 429', requests: k.burst.accepted }]
      : []),
    { kind: 'limit', phase: `limit per ${k.windowSeconds} s`, requests: k.limit },
  ];
  const spec: vl.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    width: 360,
    height: 70,
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'phase', type: 'nominal', sort: null, title: null, axis: { labelLimit: 0 } },
      x: { field: 'requests', type: 'quantitative', title: 'requests' },
      // Colours by phase, not by the alphabet: what was accepted in greens, the limit in grey.
      color: {
        field: 'phase',
        type: 'nominal',
        legend: null,
        scale: { domain: values.map((v) => v.phase), range: values.map((v) => PHASE_COLOUR[v.kind]) },
      },
    },
  };
  return renderSvg(spec);
}

async function rateLimitSection(report: HtmlInput): Promise<string> {
  const keys = keyResults(report);
  const quotas = (report.rateLimits ?? []).filter((x) => x.suite === 'quota');
  if (keys.length === 0 && quotas.length === 0) return '<p class="muted">The rate-limit suites did not run.</p>';
  const rows = keys.map((k) => [
    k.key,
    `${k.limit}/${k.windowSeconds} s`,
    keyMeasured(k) ? 'measured' : `not measured: ${whyNotMeasured(k)}`,
    `${k.paced.sent} in ${(k.paced.spanMs / 1000).toFixed(1)} s${k.paced.got429 ? ' (429!)' : ''}`,
    k.burst ? `${k.burst.accepted} (allowance ${k.burst.allowance})` : '–',
    k.burst?.first429AtRequest ?? '–',
    k.retryAfterSeconds === null ? '–' : `${k.retryAfterSeconds} s`,
    `${(k.waitedMs / 1000).toFixed(1)} s`,
    k.recovered === null ? '–' : k.recovered ? 'yes' : 'NO',
    k.requests,
  ]);
  const charts: string[] = [];
  for (const k of keys)
    if (keyMeasured(k))
      charts.push(
        `<figure class="chart" data-chart="key-${esc(k.key)}"><figcaption>${esc(k.key)} key</figcaption>${await keyChart(k)}</figure>`,
      );
  const proven = keys.map(
    (k) =>
      `<li><b>${esc(k.key)}</b><ul>${k.proven.map((p) => `<li>✓ ${esc(p)}</li>`).join('')}${k.unmeasured.map((p) => `<li class="muted">– ${esc(p)}</li>`).join('')}</ul></li>`,
  );
  return `${table(['key', 'limit', 'measured', 'paced', 'burst accepted', 'first 429 at', 'Retry-After', 'waited', 'recovered', 'requests'], rows)}
${
  quotas.length
    ? table(
        ['quota plan', 'per day', 'sent', 'accepted', 'daily Retry-After', 'stopped'],
        quotas.map((q) => [
          q.plan,
          q.requestsPerDay,
          q.sent,
          q.accepted,
          q.dailyRetryAfterSeconds ?? '–',
          q.stopped ? JSON.stringify(q.stopped) : '–',
        ]),
      )
    : ''
}
<div class="charts">${charts.join('\n')}</div>
<ul class="key-proof">${proven.join('')}</ul>`;
}

/** Observations grouped by operation and clause, two messages each at most (the JSON report keeps them all). */
function observationsSection(report: HtmlInput): string {
  const groups = new Map<string, { op: string; clause: string; messages: string[]; n: number }>();
  for (const f of report.findings) {
    if (f.level !== 'observation') continue;
    const k = `${f.operation ?? '-'} ${f.clause}`;
    const g = groups.get(k) ?? { op: f.operation ?? '-', clause: f.clause, messages: [], n: 0 };
    g.n++;
    const first = f.message.split('\n')[0]!;
    if (!g.messages.includes(first)) g.messages.push(first);
    groups.set(k, g);
  }
  if (groups.size === 0) return '<p class="muted">none</p>';
  return `<ul class="obs">${[...groups.values()]
    .map(
      (g) =>
        `<li><b>${esc(g.op)}</b> <span class="muted">${esc(g.clause)}</span>: ${esc(g.messages.slice(0, 2).join('; '))}${g.messages.length > 2 ? ` <span class="muted">… ${g.messages.length - 2} more</span>` : ''}</li>`,
    )
    .join('')}</ul>`;
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#1b1b1b}
h1{font-size:22px;margin:.2em 0}h2{font-size:17px;margin:1.4em 0 .4em;border-bottom:1px solid #ddd}h3{font-size:15px;margin:0 0 4px}h4{margin:0;font-size:12px;color:#555}
.verdict{padding:12px 16px;border-radius:6px;margin:8px 0 16px}.verdict strong{font-size:20px}
.v-conformant,.v-known-defects{background:#e8f5e9;border:1px solid #2e7d32}.v-violations{background:#ffebee;border:1px solid #c62828}
.v-incomplete,.v-blocked{background:#fff8e1;border:1px solid #f57f17}.banner{background:#fff3e0;border:2px solid #e65100;padding:8px 12px;border-radius:6px}
table{border-collapse:collapse;margin:6px 0;font-size:13px}td,th{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}th{background:#f5f5f5}
.muted{color:#777}.map td.c{white-space:nowrap;font-size:12px}.map a{color:inherit}
.violated{background:#ffcdd2}.warned{background:#ffe0b2}.observed{background:#e3f2fd}.proven{background:#e8f5e9}.not-exercised{color:#999}.left-out{background:#eee;color:#666}.elsewhere{color:#555}.not-applicable{background:#fafafa}
.card{border:1px solid #ccc;border-left:5px solid #c62828;border-radius:4px;padding:10px 12px;margin:10px 0}.card.warning{border-left-color:#ef6c00}
.meta{color:#555;margin:0 0 6px}blockquote{margin:4px 0;padding:4px 10px;border-left:3px solid #999;color:#333;font-style:italic}
.exchange{display:grid;grid-template-columns:1fr 1fr;gap:8px}pre{background:#f7f7f7;padding:6px;overflow:auto;max-height:320px;font-size:12px;margin:2px 0;white-space:pre-wrap;word-break:break-all}
.cmd{display:flex;gap:6px;align-items:baseline;margin:3px 0}.cmd code{flex:1;font-size:12px;word-break:break-all;background:#f7f7f7;padding:2px 4px}
.known{color:#2e7d32}.new{color:#c62828;font-weight:600}.charts{display:flex;flex-wrap:wrap;gap:12px}figure{margin:6px 0}figcaption{font-weight:600}`;

/** Copy buttons: the only script, inline, reaching nothing outside the page. */
const SCRIPT = `document.addEventListener('click',function(e){var b=e.target;if(!b||!b.dataset||b.dataset.copy===undefined)return;if(navigator.clipboard){navigator.clipboard.writeText(b.dataset.copy).then(function(){b.textContent='copied'},function(){b.textContent='select and copy'})}});`;

/** How far the run went, in words: "complete" only when nothing at all was left out. */
function runState(report: HtmlInput): string {
  const run = report.run;
  return run?.stop
    ? `stopped by a limit: ${run.stop.message} [${run.stop.code}]`
    : report.verdict === 'blocked'
      ? 'could not go on (blocked)'
      : report.notMeasured.length > 0
        ? 'incomplete: parts were left out'
        : // "complete" only when nothing was left out: random cases the budget cut are left out too (listed below).
          run?.budget.leftOut.length
          ? 'not complete: the request budget left parts out (listed below)'
          : 'complete';
}

/** The run's facts: target, seed, version, time, requests, keys and how far it went. */
function runSection(report: HtmlInput): string {
  const run = report.run;
  const target = report.target.embedded ? `embedded reference server (${report.target.url})` : report.target.url;
  const keys = (run?.keys ?? []).map((k) => `${k.plan} ${k.sent}`).join(' · ');
  const complete = runState(report);
  const head = [
    ['target', target],
    ['seed', `${report.seed} (runs ${report.runs}${report.strict ? ', strict' : ''})`],
    ['version', `${report.tool.name} ${report.tool.version}`],
    ['started', report.startedAt],
    ['duration', `${(report.durationMs / 1000).toFixed(1)} s`],
    ['exchanges', report.totals.exchanges],
    [
      'requests',
      run
        ? `${run.budget.sent}${run.budget.limit === null ? '' : ` of a budget of ${run.budget.limit}`}`
        : 'not recorded',
    ],
    ['keys (plan, requests)', keys || 'not recorded'],
    ['run', complete],
  ];
  return `<section id="run"><table class="facts">${head.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
${report.notMeasured.length ? `<h4>Not measured</h4><ul>${report.notMeasured.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${report.notMeasuredByDesign?.length ? `<h4>Not measured, by design (the verdict stands)</h4><ul>${report.notMeasuredByDesign.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${run?.budget.leftOut.length ? `<h4>Left out by the budget</h4><ul>${run.budget.leftOut.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${report.errors.length ? `<h4>Errors</h4><ul>${report.errors.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
${report.notes.length ? `<h4>Notes</h4><ul>${report.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}
</section>`;
}

/** The clause map's rows: a section header where the section changes, one row per clause, one cell per operation. */
function mapRowsHtml(map: ReturnType<typeof clauseMap>): string {
  return map.rows
    .map(
      (r, i) =>
        `${i === 0 || map.rows[i - 1]!.clause.section !== r.clause.section ? `<tr class="section"><th colspan="${map.columns.length + 2}">section ${esc(r.clause.section)}</th></tr>` : ''}<tr data-clause="${esc(r.clause.id)}"><td><b>${esc(r.clause.id)}</b> <span class="muted">${esc(r.clause.level)}</span></td><td class="words">${esc(r.clause.text)}</td>${r.cells
          .map(
            (c) =>
              `<td class="c ${c.state}" title="${esc(c.title)}">${c.href ? `<a href="${c.href}">${cellWord(c)}</a>` : cellWord(c)}</td>`,
          )
          .join('')}</tr>`,
    )
    .join('\n');
}

/**
 * The page of a conformance report (pure: the same JSON report gives the same bytes). `harHref`: the link to the run's
 * HAR from where the page is written (by default its path in the report, for a page beside its JSON).
 */
export async function renderConformanceHtml(
  report: HtmlInput,
  { harHref = report.harFile?.split('/').map(encodeURIComponent).join('/') }: { harHref?: string } = {},
): Promise<string> {
  const word = VERDICT_WORD[report.verdict];
  const cards = defectBlocks(report);
  const map = clauseMap(report, cards);
  const banner = meansLittle(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report: ${esc(word)} — ${esc(report.target.url)}</title>
<style>${CSS}</style></head><body>
<h1>Pet Store conformance report</h1>
<div class="verdict v-${report.verdict}" id="verdict"><strong>${esc(word)}</strong> · ${esc(cards.filter((d) => d.level === 'violation').length)} defect(s), ${esc(cards.filter((d) => d.level === 'warning').length)} warning defect(s), ${esc(report.totals.observations)} observation(s)</div>
${report.failure ? `<div class="banner" id="failure"><strong>Exit ${esc(report.failure.exitCode)} [${esc(report.failure.code)}]</strong>: ${esc(report.failure.message)}<br><strong>What to do:</strong> ${esc(report.failure.remedy)}</div>` : ''}
${banner.length ? `<div class="banner" id="means-little"><strong>This pass means little.</strong><ul>${banner.map((b) => `<li>${esc(b)}</li>`).join('')}</ul></div>` : ''}
${runSection(report)}
<h2>The spec as a map</h2>
<p class="muted">One row per clause of the spec, one column per operation, drawn from the report's table of evidence. ✓ a check of the clause applied to that many pieces of evidence here (an answer, a burst) and passed, and none failed; ✗ and ! link to the defect; · a gap's behaviour was observed, or a check applied but could only observe; – nothing here met what the clause's checks apply to (no 429, no 401…); ○ a limit or a policy left it out (hover for why); ≡ covered by the contract or the configuration (hover for how); blank: no check of the clause applies to the operation.</p>
<table class="map"><thead><tr><th>clause</th><th>the spec says</th>${map.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>
${mapRowsHtml(map)}
</tbody></table>
<h2>Defects</h2>
${cards.length ? cards.map((d, i) => defectCard(report, d, i)).join('\n') : '<p>No defect.</p>'}
<h2>Rate limits per plan</h2>
${await rateLimitSection(report)}
<h2 id="traffic">Traffic per key</h2>
<p class="muted">Every answer of the run by key and status class over time, and every wait: where the 429s came and what the run waited out.</p>
${await trafficSection(report.traffic)}
<h2 id="observations">Observations</h2>
<p class="muted">Where the spec says "not shown": what this target chose. Any reasonable behaviour passes; recorded, never failed.</p>
${observationsSection(report)}
<p class="muted" id="har">JSON report schemaVersion ${esc(report.schemaVersion)}: every finding and exchange reference is in the JSON report; ${
    report.harFile
      ? `every exchange, headers and bodies whole, in the HAR: <a href="${esc(harHref ?? '')}">${esc(report.harFile)}</a>`
      : 'every exchange in a HAR when the run is given --har'
  }.</p>
<script>${SCRIPT}</script>
</body></html>
`;
}
