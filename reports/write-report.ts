/**
 * Writes a report directory: report.json, report.html, summary.md. Two gates before any byte is written: the report
 * must match its schema, and no known secret may appear in any file (keys live only in memory; a leak is a harness
 * bug and stops the write).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { exitCodeFor, HarnessError } from '../errors/catalogue.js';
import type { LoadRun } from '../load/model.js';
import { buildReport } from './build-report.js';
import { renderCharts } from './charts.js';
import { appendHistory, readHistory } from './history.js';
import { renderHtml } from './html.js';
import { historyTarget, type LoadReport } from './model.js';
import { reportSchemaErrors } from './report-schema.js';
import { guardSecrets } from './secret-gate.js';
import { renderSummary } from './summary.js';
import type { Thresholds } from './thresholds.js';

export interface WrittenReport {
  readonly dir: string;
  readonly report: LoadReport;
  readonly summary: string;
}

/**
 * The exit code of a night (`load`, `report merge`) once its reports are written: a signal's (130, 143) when one
 * stopped it (`interruptedExitCode`, else null), 3 when the target was unavailable, 0 when it passed, else 1.
 */
export function nightExitCode(written: WrittenReport, interruptedExitCode: number | null): number {
  if (interruptedExitCode !== null) return interruptedExitCode;
  if (written.report.verdict.unavailable) return exitCodeFor('PSC_UNREACHABLE');
  return written.report.verdict.pass ? 0 : 1;
}

/** UTC timestamp usable as a directory name everywhere (no colons): 2025-01-31T02-00-00Z. */
export function utcStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
}

/** A fresh directory under `out` named for the time; a suffix keeps two runs in the same second apart. */
export function freshDir(out: string, date: Date, suffix = ''): string {
  const base = join(out, `${utcStamp(date)}${suffix}`);
  let dir = base;
  for (let i = 2; existsSync(dir) && i < 1000; i++) dir = `${base}-${i}`;
  if (existsSync(dir)) throw new HarnessError('PSC_USAGE', `report: cannot find a fresh directory under ${out}`);
  return dir;
}

/** Checks every file before any is written (reports/secret-gate.ts), so a leak leaves no partial report behind. */
export function assertNoSecrets(files: Readonly<Record<string, string>>): void {
  for (const [name, text] of Object.entries(files)) guardSecrets(text, `report ${name}`);
}

export async function writeReportFiles(report: LoadReport, dir: string): Promise<string> {
  const problems = reportSchemaErrors(report);
  if (problems.length > 0)
    throw new Error(`report: report.json does not match report.schema.json: ${problems.slice(0, 5).join('; ')}`);
  const summary = renderSummary(report);
  const files = {
    'report.json': `${JSON.stringify(report, null, 2)}\n`,
    'report.html': renderHtml(report, await renderCharts(report)),
    'summary.md': summary,
  };
  assertNoSecrets(files);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return summary;
}

/**
 * Builds the report of a run against the thresholds and the history in `out`, writes it, and appends the history.
 * `load --out DIR` and `report merge --out DIR` share this one layout: DIR/<UTC timestamp>[-merged]/{report.json,
 * report.html,summary.md} and DIR/history.json. A night without its target is written but not added to the history:
 * it measured nothing to compare.
 */
export async function writeRunReport(
  run: LoadRun,
  out: string,
  thresholds: Thresholds,
  now = new Date(),
  extra: { suffix?: string; merge?: LoadReport['merge'] } = {},
): Promise<WrittenReport> {
  mkdirSync(out, { recursive: true });
  const built = buildReport(run, thresholds, readHistory(out), now);
  const report: LoadReport = extra.merge ? { ...built, merge: extra.merge } : built;
  const dir = freshDir(out, now, extra.suffix ?? '');
  const summary = await writeReportFiles(report, dir);
  // An interrupted night is not a night to compare with, nor one without its target: the history is left as it was
  // (the report says why).
  if (report.interrupted || report.verdict.unavailable) return { dir, report, summary };
  appendHistory(out, {
    createdAt: report.createdAt,
    dir: relative(out, dir),
    profile: report.profile,
    target: historyTarget(report),
    pass: report.verdict.pass,
    figures: report.figures,
  });
  return { dir, report, summary };
}
