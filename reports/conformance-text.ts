/**
 * Renders a conformance report for people: the terminal summary (plain text, no colour when not a TTY) and the
 * Markdown summary for $GITHUB_STEP_SUMMARY. Every violation names its check and clause, the spec's words, the
 * shrunk counterexample, the seed and path to replay it, and a curl line with keys as placeholders.
 */
import { clause } from '../spec/clauses.js';
import type { Finding } from '../checks/check.js';
import type { ConformanceReport } from './conformance-report.js';

function pad(s: string | number, n: number, right = false): string {
  const t = String(s);
  return right ? t.padStart(n) : t.padEnd(n);
}

function specWords(id: string): string {
  try {
    return clause(id).text;
  } catch {
    return '';
  }
}

/** The command line that reruns the suite that recorded `f` (the whole run when the finding names no suite). */
export function replayLine(report: ConformanceReport, f: Finding): string {
  const target = report.target.embedded ? '' : ` --target ${report.target.url}`;
  const suite = f.suite ? ` --suite ${f.suite}` : '';
  return `petstore-conformance run${target}${connectionFlags(report)} --seed ${report.seed} --runs ${report.runs}${suite}`;
}

/** The flags a replay needs to reach the target the same way. */
function connectionFlags(report: ConformanceReport): string {
  const c = report.connection;
  if (!c) return '';
  return `${c.caFiles[0] ? ` --ca ${c.caFiles[0]}` : ''}${c.insecure ? ' --insecure' : ''}`;
}

/** Said on every report of an --insecure run: its verdict says nothing about the target's TLS. */
export const INSECURE_LINE =
  'TLS certificates were NOT verified (--insecure): the target was not authenticated, and a man in the middle would have gone unnoticed';

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

export function findingBlock(report: ConformanceReport, f: Finding, mark: string): string[] {
  const lines = [`${mark} ${f.operation ?? '-'} › ${f.checkId} [clause ${f.clause}]`];
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
  if (ex) lines.push(`    reproduce: ${ex.curl}`);
  return lines;
}

export function renderTerminalSummary(report: ConformanceReport): string {
  const out: string[] = [];
  out.push(
    `petstore-conformance ${report.tool.version} · ${report.target.url}${report.target.embedded ? ' (embedded reference server)' : ''} · seed ${report.seed} · runs ${report.runs}${report.strict ? ' · strict' : ''}`,
    ...connectionLines(report),
    '',
  );
  const violations = report.findings.filter((f) => f.level === 'violation');
  const warnings = report.findings.filter((f) => f.level === 'warning');
  const observations = report.findings.filter((f) => f.level === 'observation');
  if (violations.length) {
    out.push(`Violations (${violations.length})`);
    for (const f of violations) out.push(...findingBlock(report, f, '✗'), '');
  }
  if (warnings.length) {
    out.push(
      `Warnings (${warnings.length})${report.strict ? ' — failing: --strict' : ' — should-level; --strict makes them fail'}`,
    );
    for (const f of warnings) out.push(...findingBlock(report, f, '!'), '');
  }
  if (observations.length) {
    out.push(
      `Observations — where the spec says "not shown" (any reasonable behaviour passes; recorded, never failed)`,
    );
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
  }
  out.push(...rateLimitLines(report));
  for (const n of report.notes) out.push(`note: ${n}`);
  for (const e of report.errors) out.push(`error: ${e}`);
  if (report.notes.length || report.errors.length) out.push('');
  out.push(
    `${pad('operation', 12)}${pad('exchanges', 11, true)}${pad('checks', 10, true)}${pad('violations', 12, true)}${pad('warnings', 10, true)}${pad('observations', 14, true)}`,
  );
  const row = (name: string, t: ConformanceReport['totals']) =>
    `${pad(name, 12)}${pad(t.exchanges, 11, true)}${pad(t.checksApplied, 10, true)}${pad(t.violations, 12, true)}${pad(t.warnings, 10, true)}${pad(t.observations, 14, true)}`;
  for (const [op, t] of Object.entries(report.operations)) out.push(row(op, t));
  out.push(row('total', report.totals));
  out.push('');
  const word =
    report.verdict === 'conformant' ? 'CONFORMANT' : report.verdict === 'violations' ? 'NOT CONFORMANT' : 'BLOCKED';
  out.push(
    `Result: ${word} — ${report.totals.violations} violations, ${report.totals.warnings} warnings, ${report.totals.observations} observations; ${report.totals.exchanges} exchanges in ${(report.durationMs / 1000).toFixed(1)} s; seed ${report.seed}`,
  );
  return `${out.join('\n')}\n`;
}

export function renderMarkdown(report: ConformanceReport): string {
  const word =
    report.verdict === 'conformant'
      ? '✅ Conformant'
      : report.verdict === 'violations'
        ? '❌ Not conformant'
        : '⛔ Blocked';
  const out = [
    `## Pet Store conformance: ${word}`,
    '',
    `Target \`${report.target.url}\`${report.target.embedded ? ' (embedded reference server)' : ''} · seed \`${report.seed}\` · runs ${report.runs} · ${(report.durationMs / 1000).toFixed(1)} s`,
    '',
    ...(report.connection?.insecure ? [`> **Warning:** ${INSECURE_LINE}.`, ''] : []),
    '| operation | exchanges | checks | violations | warnings | observations |',
    '|---|---:|---:|---:|---:|---:|',
    ...Object.entries(report.operations).map(
      ([op, t]) =>
        `| ${op} | ${t.exchanges} | ${t.checksApplied} | ${t.violations} | ${t.warnings} | ${t.observations} |`,
    ),
    `| **total** | ${report.totals.exchanges} | ${report.totals.checksApplied} | ${report.totals.violations} | ${report.totals.warnings} | ${report.totals.observations} |`,
    '',
  ];
  const failing = report.findings.filter((f) => f.level !== 'observation');
  if (failing.length) {
    out.push('### Findings', '');
    for (const f of failing.slice(0, 30)) {
      out.push(
        `- **${f.level}** \`${f.checkId}\` (clause ${f.clause}) on ${f.operation ?? '-'}: ${f.message.replace(/\n/g, ' — ')}`,
      );
      if (f.exchanges[0]) out.push(`  \`\`\`\n  ${f.exchanges[0].curl}\n  \`\`\``);
    }
    if (failing.length > 30) out.push(`- … and ${failing.length - 30} more (see the JSON report)`);
    out.push('');
  }
  for (const e of report.errors) out.push(`> error: ${e}`);
  return `${out.join('\n')}\n`;
}

interface PlanNumbers {
  suite?: string;
  plan?: string;
  key?: string;
  proven?: readonly string[];
  unmeasured?: readonly string[];
  limit?: number;
  windowSeconds?: number;
  paced?: { sent: number; spanMs: number; got429: boolean };
  burst?: {
    fromRemaining: number | null;
    accepted: number;
    allowance: number;
    first429AtRequest: number | null;
  } | null;
  retryAfterSeconds?: number | null;
  waitedMs?: number;
  recovered?: boolean | null;
  requests?: number;
  note?: string | null;
  requestsPerDay?: number;
  accepted?: number;
  sent?: number;
  dailyRetryAfterSeconds?: number | null;
}

/** The numbers behind each plan's rate-limit verdict (issue 3): paced, burst, 429 at, Retry-After, recovery. */
export function rateLimitLines(report: ConformanceReport): string[] {
  const rows = (report.rateLimits ?? []) as PlanNumbers[];
  if (rows.length === 0) return [];
  const out = ['Rate limits, per plan key'];
  for (const r of rows) {
    const failed = report.findings.some((f) => f.level === 'violation' && f.suite === r.suite && f.keyPlan === r.plan);
    if (r.suite === 'quota') {
      out.push(
        `  ${failed ? '✗' : '✓'} ${r.plan} daily quota ${r.requestsPerDay}: accepted ${r.accepted} of ${r.sent} sent; daily Retry-After ${r.dailyRetryAfterSeconds ?? '-'} s`,
      );
      continue;
    }
    const burst = r.burst
      ? `burst from Remaining ${r.burst.fromRemaining ?? '?'} accepted ${r.burst.accepted} (allowance ${r.burst.allowance}), first 429 at request ${r.burst.first429AtRequest ?? '-'}`
      : 'no burst';
    const paced = r.paced
      ? `paced ${r.paced.sent} in ${(r.paced.spanMs / 1000).toFixed(1)} s${r.paced.got429 ? ' (got a 429)' : ' with no 429'}`
      : 'not paced';
    out.push(
      `  ${failed ? '✗' : '✓'} ${r.key ?? r.plan} limit ${r.limit ?? '?'}/${r.windowSeconds ?? '?'} s: ${paced}; ${burst}; Retry-After ${r.retryAfterSeconds ?? '-'} s, waited ${((r.waitedMs ?? 0) / 1000).toFixed(1)} s, recovered ${r.recovered ?? '-'}; ${r.requests ?? '?'} requests${r.note ? ` — ${r.note}` : ''}`,
    );
    // What the key proved, and what could not be measured and why.
    for (const p of r.proven ?? []) out.push(`      proven: ${p}`);
    for (const u of r.unmeasured ?? []) out.push(`      not measured: ${u}`);
  }
  out.push('');
  return out;
}
