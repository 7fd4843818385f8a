/**
 * Renders a conformance report for people: the terminal summary (plain text, no colour when not a TTY) and the
 * Markdown summary for $GITHUB_STEP_SUMMARY. Every violation names its check and clause, the spec's words, the
 * shrunk counterexample, the seed and path to replay it, and a curl line with keys as placeholders.
 */
import { clause } from '../spec/clauses.js';
import { INSECURE_LINE } from '../http/transport.js';
import type { Finding } from '../checks/check.js';
import { baselineLines } from './baseline.js';
import { exchangesWith, type ConformanceReport, type Defect, type RunFailure } from './conformance-report.js';
import { VERDICT_HEADING, VERDICT_WORD } from './verdict.js';
import { EVIDENCE_WORD, type EvidenceState } from './evidence.js';
import { keyMeasured, quotaMeasured, whyNotMeasured } from '../runner/rate-limit-results.js';

function pad(s: string | number, n: number, right = false): string {
  const t = String(s);
  return right ? t.padStart(n) : t.padEnd(n);
}

/** The spec's words of a clause ('' for an id the spec does not know). */
export function specWords(id: string): string {
  try {
    return clause(id).text;
  } catch {
    return '';
  }
}

/** How this run was started (`npx petstore-conformance`, `petstore-conformance` on PATH, `node <script>`). */
function invocationOf(report: ConformanceReport): string {
  return report.tool.invocation ?? 'npx petstore-conformance';
}

/** The command line that replays a saved replay file, started the way this run was. */
export function replayFileLine(report: ConformanceReport, file: string): string {
  return `${invocationOf(report)} replay ${file}`;
}

/**
 * The command line that reruns the suite that recorded `f` (the whole run when the finding names no suite), started
 * the way this run was (`npx petstore-conformance`, `petstore-conformance` on PATH, `node <script>`).
 */
export function replayLine(report: ConformanceReport, f: Finding): string {
  const target = report.target.embedded ? '' : ` --target ${report.target.url}`;
  const suite = f.suite ? ` --suite ${f.suite}` : '';
  return `${invocationOf(report)} run${target}${connectionFlags(report)} --seed ${report.seed} --runs ${report.runs}${suite}`;
}

/** The flags a replay needs to reach the target the same way. */
function connectionFlags(report: ConformanceReport): string {
  const c = report.connection;
  if (!c) return '';
  return `${c.caFiles[0] ? ` --ca ${c.caFiles[0]}` : ''}${c.insecure ? ' --insecure' : ''}`;
}

/**
 * How the run reached the target, said on every report: an --insecure run's verdict says nothing about the target's
 * TLS, and a proxy or an extra CA is part of what was tested.
 */
function connectionLines(report: ConformanceReport): string[] {
  const c = report.connection;
  if (!c) return [];
  const out: string[] = [];
  if (c.insecure) out.push(`WARNING: ${INSECURE_LINE}`);
  const parts = [
    ...(c.proxy ? [`via proxy ${c.proxy}`] : []),
    ...(c.caFiles.length ? [`extra CA ${c.caFiles.join(', ')}`] : []),
  ];
  if (parts.length) out.push(`connection: ${parts.join(' · ')}`);
  return out;
}

function findingDetail(report: ConformanceReport, f: Finding): string[] {
  const lines: string[] = [];
  const words = specWords(f.clause);
  if (words) lines.push(`    spec: ${words}`);
  for (const l of f.message.split('\n')) lines.push(`    ${l}`);
  if (f.repro?.counterexample) {
    lines.push(
      `    smallest failing input: ${f.repro.counterexample}${f.repro.shrinks ? ` (shrunk ${f.repro.shrinks}×)` : ''}`,
    );
  }
  lines.push(
    `    replay: ${replayLine(report, f)}${f.repro?.path ? `   (fast-check seed ${f.repro.seed}, path "${f.repro.path}")` : ''}`,
  );
  const ex = f.exchanges[0];
  // The embedded server and its keys ended with the run: its curl line shows the request, the replay line reruns it.
  if (ex)
    lines.push(
      report.target.embedded
        ? `    request: ${shortCurl(ex.curl)}   (the embedded server stopped with this run: the replay line reruns it)`
        : `    reproduce: ${shortCurl(ex.curl)}`,
    );
  return lines;
}

/** Longest curl line the terminal shows; the JSON report and --replay-dir keep the whole request. */
const CURL_SHOWN = 400;
const shortCurl = (curl: string): string =>
  curl.length <= CURL_SHOWN
    ? curl
    : `${curl.slice(0, CURL_SHOWN)}… (${curl.length} chars: the whole line is in the JSON report, or use --replay-dir)`;

const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

/**
 * The defects the terminal shows a block for, in the order it shows them: violations (those a baseline does not know
 * first: they are what this run is about), then warnings. Consequences are folded inside their cause's block.
 */
export function defectBlocks(report: ConformanceReport): Defect[] {
  const known = new Set(report.baseline?.known ?? []);
  const roots = (level: 'violation' | 'warning') =>
    report.defects
      .filter((d) => d.level === level)
      .sort((a, b) => Number(known.has(a.signature)) - Number(known.has(b.signature)));
  return [...roots('violation'), ...roots('warning')];
}

/** At most this many names in a list of a block's header or "also seen as" line; the JSON report has them all. */
const LISTED = 4;
const list = (items: readonly string[], max = LISTED): string =>
  items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')}, … ${items.length - max} more`;

/** Where a defect was seen, in words: one operation, several, or every one the run exercised. */
export function whereSeen(d: Defect): string {
  if (d.operations.length === 0) return '-';
  return d.serverWide ? `every operation (${d.operations.join(', ')})` : d.operations.join(', ');
}

/**
 * One block per defect: where it was seen and with which variants and statuses, its smallest failing exchange with
 * the replay and curl lines, and what it was also seen as (its consequences, folded under it, still listed).
 */
export function defectBlock(report: ConformanceReport, d: Defect, mark: string): string[] {
  const f = report.findings[d.findings[0]!]!;
  const sigs = d.signatures.length + d.alsoSeenAs.length;
  const lines = [
    `${mark} ${whereSeen(d)} › ${d.checkId} [clause ${f.clause}]${d.caseClass ? ` · case: ${d.caseClass}` : ''}${d.statuses.length ? ` · status ${d.statuses.join(', ')}` : ''} · seen ${times(d.occurrences)}${sigs > 1 ? ` as ${sigs} signatures` : ''}`,
  ];
  if (d.variants.length > 1 || (d.variants.length === 1 && d.variants[0] !== d.caseClass))
    lines.push(`    variants: ${list(d.variants)}`);
  lines.push(...findingDetail(report, f));
  const replay = report.replayFiles?.[d.signature];
  if (replay) lines.push(`    replay file: ${replay}   (${replayFileLine(report, replay)})`);
  const byRule = new Map<string, Defect['alsoSeenAs'][number][]>();
  for (const e of d.alsoSeenAs) byRule.set(e.reason, [...(byRule.get(e.reason) ?? []), e]);
  for (const [reason, folded] of byRule) {
    const names = [...new Set(folded.map((e) => e.seenAs))];
    lines.push(`    also seen as: ${list(names, 3)} — ${reason}`);
  }
  return lines;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Distinct signatures under the defects of one level (their own and what was folded under them). */
function signatureCount(defects: readonly Defect[]): number {
  return new Set(defects.flatMap((d) => [...d.signatures, ...d.alsoSeenAs].map((s) => `${s.signature} [${s.level}]`)))
    .size;
}

/** "5 defects (18 signatures) in 102 exchanges": the causes, the signatures they were seen as, the exchanges. */
export function defectCount(report: ConformanceReport, level: 'violation' | 'warning'): string {
  const defects = report.defects.filter((d) => d.level === level);
  if (defects.length === 0) return `no ${level}s`;
  const word = level === 'violation' ? 'defect' : 'warning defect';
  return `${plural(defects.length, word)} (${plural(signatureCount(defects), 'signature')}) in ${plural(exchangesWith(report, level), 'exchange')}`;
}

/** The observations, one line per operation and clause with its first two answers: what the target chose. */
function observationLines(report: ConformanceReport): string[] {
  const observations = report.findings.filter((f) => f.level === 'observation');
  if (observations.length === 0) return [];
  const out = [
    `Observations — where the spec says "not shown" (any reasonable behaviour passes; recorded, never failed)`,
  ];
  const groups = new Map<string, string[]>();
  for (const f of observations) {
    const key = `${f.operation ?? '-'} ${f.clause}`;
    const list = groups.get(key) ?? [];
    const first = f.message.split('\n')[0]!;
    if (!list.includes(first)) list.push(first);
    groups.set(key, list);
  }
  for (const [key, messages] of groups) {
    out.push(
      `  · ${key}: ${messages.slice(0, 2).join('; ')}${messages.length > 2 ? `; … ${messages.length - 2} more` : ''}`,
    );
  }
  out.push('');
  return out;
}

/** The table of exchanges, checks and findings per operation, and in all. */
function totalsTable(report: ConformanceReport): string[] {
  const row = (name: string, t: ConformanceReport['totals']) =>
    `${pad(name, 12)}${pad(t.exchanges, 11, true)}${pad(t.checksApplied, 10, true)}${pad(t.violations, 12, true)}${pad(t.warnings, 10, true)}${pad(t.observations, 14, true)}`;
  return [
    `${pad('operation', 12)}${pad('exchanges', 11, true)}${pad('checks', 10, true)}${pad('violations', 12, true)}${pad('warnings', 10, true)}${pad('observations', 14, true)}`,
    ...Object.entries(report.operations).map(([op, t]) => row(op, t)),
    row('total', report.totals),
  ];
}

export function renderTerminalSummary(report: ConformanceReport): string {
  const out: string[] = [];
  out.push(
    `petstore-conformance ${report.tool.version} · ${report.target.url}${report.target.embedded ? ' (embedded reference server)' : ''} · seed ${report.seed} · runs ${report.runs}${report.strict ? ' · strict' : ''}`,
    ...connectionLines(report),
    '',
  );
  const known = new Set(report.baseline?.known ?? []);
  const evidence = new Set((report.baseline?.newEvidence ?? []).map((e) => e.defect));
  const blocks = defectBlocks(report);
  const roots = (level: 'violation' | 'warning') => blocks.filter((d) => d.level === level);
  const knownMark = (d: Defect) =>
    known.has(d.signature) ? (evidence.has(d.signature) ? '✗ (known, new evidence)' : '✗ (known)') : '✗';
  if (roots('violation').length) {
    out.push(`Violations: ${defectCount(report, 'violation')}`);
    for (const d of roots('violation')) out.push(...defectBlock(report, d, knownMark(d)), '');
  }
  if (roots('warning').length) {
    out.push(
      `Warnings: ${defectCount(report, 'warning')}${report.strict ? ' — failing: --strict' : ' — should-level; --strict makes them fail'}`,
    );
    for (const d of roots('warning')) out.push(...defectBlock(report, d, '!'), '');
  }
  out.push(...observationLines(report));
  out.push(...rateLimitLines(report));
  for (const n of report.notes) out.push(`note: ${n}`);
  for (const e of report.errors) out.push(`error: ${e}`);
  if (report.notes.length || report.errors.length) out.push('');
  out.push(...totalsTable(report), '');
  if (report.baseline) out.push(...baselineLines(report.baseline), '');
  out.push(...evidenceLines(report));
  out.push(...notMeasuredLines(report, '  - '));
  const word = VERDICT_WORD[report.verdict];
  out.push(
    `Result: ${word}${report.verdict === 'incomplete' ? ` (${report.notMeasured.length} left out, listed above)` : ''} — ${defectCount(report, 'violation')}, ${defectCount(report, 'warning')}, ${report.totals.observations} observations; ${report.totals.exchanges} exchanges in ${(report.durationMs / 1000).toFixed(1)} s; seed ${report.seed}`,
  );
  return `${out.join('\n')}\n`;
}

/**
 * What the run left out, said wherever the verdict is: a run that left something out is not called conformant. Empty
 * when nothing was left out.
 */
function notMeasuredLines(report: ConformanceReport, bullet: string): string[] {
  const byDesign = report.notMeasuredByDesign ?? [];
  const design = byDesign.length
    ? ['Not measured, by design (the verdict stands):', ...byDesign.map((l) => `${bullet}${l}`), '']
    : [];
  if (report.notMeasured.length === 0) return design;
  const why =
    report.verdict === 'incomplete'
      ? 'the verdict is INCOMPLETE: nothing vouches for these'
      : 'nothing vouches for these either';
  return [`Not measured (${why}):`, ...report.notMeasured.map((l) => `${bullet}${l}`), '', ...design];
}

/** The states of the table of evidence, in the order the summaries count them. */
const STATES: readonly EvidenceState[] = ['proven', 'violated', 'warned', 'observed', 'not-exercised', 'left-out'];

/**
 * The table of evidence in words: how many clause cells (a clause on an operation) are in each state, then each clause
 * that nothing exercised or a limit left out, with its operations and why (a proven cell needs no words; a failing one
 * is a defect). The JSON report holds every cell; the HTML page draws them all.
 */
function evidenceSummary(report: ConformanceReport): { head: string; gaps: string[] } | null {
  const cells = report.evidence?.cells ?? [];
  if (cells.length === 0) return null;
  const count = (s: EvidenceState) => cells.filter((c) => c.state === s).length;
  const head = `Evidence per clause and operation: ${STATES.map((s) => `${count(s)} ${EVIDENCE_WORD[s].slice(2)}`).join(', ')}`;
  const gaps: string[] = [];
  for (const state of ['not-exercised', 'left-out'] as const) {
    const byClause = new Map<string, { ops: string[]; why: string }>();
    for (const c of cells) {
      if (c.state !== state) continue;
      const g = byClause.get(c.clause) ?? { ops: [], why: c.why ?? '' };
      g.ops.push(c.operation);
      byClause.set(c.clause, g);
    }
    for (const [clause, g] of byClause)
      gaps.push(`${EVIDENCE_WORD[state]}: ${clause} on ${g.ops.join(', ')}${g.why ? ` — ${g.why}` : ''}`);
  }
  return { head, gaps };
}

function evidenceLines(report: ConformanceReport): string[] {
  const e = evidenceSummary(report);
  return e ? [e.head, ...e.gaps.map((g) => `  ${g}`), ''] : [];
}

/** Clauses not exercised or left out the Markdown summary lists at most (it fits a screen). */
const MARKDOWN_GAPS = 8;

function evidenceMarkdown(report: ConformanceReport): string[] {
  const e = evidenceSummary(report);
  if (!e) return [];
  const shown = e.gaps.slice(0, MARKDOWN_GAPS).map((g) => `- ${cell(g, 200)}`);
  const more =
    e.gaps.length > MARKDOWN_GAPS
      ? [`- … and ${e.gaps.length - MARKDOWN_GAPS} more in the JSON report's evidence`]
      : [];
  return [`${e.head}.`, ...(shown.length ? ['', ...shown, ...more] : []), ''];
}

/** Rows of the Markdown table at most: the summary fits a screen; the JSON report has every defect. */
const MARKDOWN_ROWS = 15;

const cell = (text: string, max = 90) => {
  const one = text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/** The $GITHUB_STEP_SUMMARY: the defects as a table, the baseline's state and the totals, in a screen. */
export function renderMarkdown(report: ConformanceReport): string {
  const word = VERDICT_HEADING[report.verdict];
  // A run that could not start or go on: why, and what to do, first; a table of nothing would hide it.
  if (report.failure) return failureMarkdown(report, report.failure, word);
  const out = [
    `## Pet Store conformance: ${word}`,
    '',
    `Target \`${report.target.url}\`${report.target.embedded ? ' (embedded reference server)' : ''} · seed \`${report.seed}\` · runs ${report.runs} · ${(report.durationMs / 1000).toFixed(1)} s`,
    '',
    ...(report.connection?.insecure ? [`> **Warning:** ${INSECURE_LINE}.`, ''] : []),
    `**${defectCount(report, 'violation')}**, ${defectCount(report, 'warning')}, ${report.totals.observations} observations; ${report.totals.exchanges} exchanges in all.`,
    '',
    ...notMeasuredLines(report, '- '),
    ...evidenceMarkdown(report),
  ];
  const b = report.baseline;
  if (b) {
    out.push(
      `Baseline \`${b.file}\`: ${b.known.length} known defects remain, ${b.new.length} new, ${b.fixed.length} fixed.`,
    );
    for (const s of b.new) out.push(`- ❌ new: \`${s}\``);
    for (const e of b.newEvidence ?? [])
      out.push(`- ⚠️ new evidence of known \`${e.defect}\`: ${e.signatures.map((x) => `\`${x}\``).join(', ')}`);
    for (const s of b.fixed) out.push(`- ✅ fixed: \`${s}\``);
    out.push('');
  }
  const shown = report.defects;
  if (shown.length) {
    const known = new Set(b?.known ?? []);
    out.push('| | check | where | case or variants | signatures | seen | example |', '|---|---|---|---|---:|---:|---|');
    for (const d of shown.slice(0, MARKDOWN_ROWS)) {
      const f = report.findings[d.findings[0]!]!;
      const mark = d.level === 'violation' ? (known.has(d.signature) ? '✗ known' : '✗') : '!';
      const variants = d.variants.length > 1 ? `${d.caseClass ?? '-'}: ${d.variants.join(', ')}` : (d.caseClass ?? '-');
      out.push(
        `| ${mark} | \`${d.checkId}\` | ${cell(whereSeen(d), 50)} | ${cell(variants, 60)} | ${d.signatures.length + d.alsoSeenAs.length} | ${d.occurrences} | ${cell(f.message.split('\n')[0]!)} |`,
      );
    }
    if (shown.length > MARKDOWN_ROWS)
      out.push('', `… and ${shown.length - MARKDOWN_ROWS} more defects in the JSON report.`);
    out.push('');
  }
  for (const e of report.errors.slice(0, 5)) out.push(`> error: ${cell(e, 200)}`);
  return `${out.join('\n')}\n`;
}

/** The numbers behind each plan's rate-limit verdict (issue 3): paced, burst, 429 at, Retry-After, recovery. */
export function rateLimitLines(report: ConformanceReport): string[] {
  const rows = report.rateLimits ?? [];
  if (rows.length === 0) return [];
  const out = ['Rate limits, per plan key'];
  for (const r of rows) {
    const failed = report.findings.some((f) => f.level === 'violation' && f.suite === r.suite && f.keyPlan === r.plan);
    if (r.suite === 'quota') {
      // ✓ only for a daily quota seen to its end: a run stopped before (or refused up front) measured nothing.
      const mark = failed ? '✗' : quotaMeasured(r) ? '✓' : '–';
      out.push(
        `  ${mark} ${r.plan} daily quota ${r.requestsPerDay}: ${quotaMeasured(r) || failed ? '' : `not measured (stopped: ${r.stopped ?? 'nothing sent'}); `}accepted ${r.accepted} of ${r.sent} sent; ${r.dailyRetryAfterSeconds === null ? 'no Retry-After on the daily 429' : `daily Retry-After ${r.dailyRetryAfterSeconds} s`}`,
      );
      continue;
    }
    const head = `${r.key} limit ${r.limit}/${r.windowSeconds} s`;
    if (!failed && !keyMeasured(r)) {
      // Nothing judged the key's limit: no ✓, no numbers that read as a result.
      out.push(`  – ${head}: not measured — ${whyNotMeasured(r)}; ${r.requests} requests`);
      for (const p of r.proven) out.push(`      proven: ${p}`);
      for (const u of r.unmeasured) out.push(`      not measured: ${u}`);
      continue;
    }
    const burst = r.burst
      ? `burst from Remaining ${r.burst.fromRemaining ?? '?'} accepted ${r.burst.accepted} (allowance ${r.burst.allowance}), first 429 at request ${r.burst.first429AtRequest ?? '-'}`
      : 'no burst';
    const paced = `paced ${r.paced.sent} in ${(r.paced.spanMs / 1000).toFixed(1)} s${r.paced.got429 ? ' (got a 429)' : ' with no 429'}`;
    out.push(
      `  ${failed ? '✗' : '✓'} ${head}: ${paced}; ${burst}; ${r.retryAfterSeconds === null ? 'no Retry-After' : `Retry-After ${r.retryAfterSeconds} s`}, waited ${(r.waitedMs / 1000).toFixed(1)} s, recovered ${r.recovered ?? '-'}; ${r.requests} requests${r.note ? ` — ${r.note}` : ''}`,
    );
    // What the key proved, and what could not be measured and why.
    for (const p of r.proven) out.push(`      proven: ${p}`);
    for (const u of r.unmeasured) out.push(`      not measured: ${u}`);
  }
  out.push('');
  return out;
}

/** The job summary of a run that could not start or go on: the verdict in words, the error, and its remedy. */
function failureMarkdown(report: ConformanceReport, f: RunFailure, word: string): string {
  const target = report.target.url
    ? `Target \`${report.target.url}\`${report.target.embedded ? ' (embedded reference server)' : ''}`
    : 'No target';
  return `${[
    `## Pet Store conformance: ${word}`,
    '',
    `**Exit ${f.exitCode}** \`${f.code}\`: ${cell(f.message, 400)}`,
    '',
    `**What to do:** ${cell(f.remedy, 400)}`,
    '',
    `${target} · seed \`${report.seed}\` · ${(report.durationMs / 1000).toFixed(1)} s`,
  ].join('\n')}\n`;
}
