/**
 * Every output of a conformance run, chosen by the run's result and the configuration: the report (built from the
 * outcome, judged against a baseline when one is given, blocked when a limit that blocks stopped the run, with what
 * the run's limits did), the terminal summary, the JSON and JUnit files, the HTML page, the step summary, the HAR's
 * closing line and the replay files; and the exit code. The command loads this one module, once the suites are under
 * way.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Config, PlanKey, ReportPaths } from '../config/config.js';
import { codeOf, exitCodeOf, remedyFor } from '../errors/catalogue.js';
import { scrub } from '../http/redact.js';
import { blocksRun, isInterruption, type Stop } from '../runner/limits.js';
import type { Exchange } from '../http/exchange.js';
import type { RunOutcome } from '../runner/outcome.js';
import { preflightOutcome } from '../runner/preflight-outcome.js';
import { notMeasuredByDesign, suitesLeftOut, notMeasured as whatWasNotMeasured } from './completeness.js';
import { verdictExitCode } from './verdict.js';
import { applyBaseline } from './baseline.js';
import {
  buildConformanceReport,
  type ConformanceReport,
  type ConnectionFacts,
  type RunFailure,
} from './conformance-report.js';
import { renderMarkdown, renderTerminalSummary } from './conformance-text.js';
import type { HarWriter } from './har.js';
import { renderJunit } from './junit.js';
import { replayPlan, writeReplays } from './replay-file.js';
import {
  type RunBudget,
  type RunLimitsReport,
  renderRunLimits,
  renderRunLimitsMarkdown,
  runLimitsLine,
  runLimitsOf,
} from './run-limits.js';
import type { HtmlInput } from './conformance-html.js';
import { writeConformanceHtml } from './conformance-html-file.js';
import { guardSecrets } from './secret-gate.js';

/**
 * The conformance report with what the run's limits did, and the exit code its verdict gives (with
 * --require-complete, an incomplete run exits 3).
 */
export type RunReport = ConformanceReport & {
  readonly run: RunLimitsReport;
  readonly exitCode: number;
  readonly requireComplete: boolean;
};

/** Where an output goes: the summary on stdout, progress on stderr. */
export interface Outlet {
  result(text: string): void;
  progress(text: string): void;
}

/** A conformance run as the command conducted it (cli/run-engine.ts). */
export interface ConductedRun {
  /** The configuration as the run used it: the embedded target's URL and keys, the suites that ran. */
  readonly config: Config;
  readonly outcome: RunOutcome | null;
  readonly errors: readonly string[];
  readonly notes: readonly string[];
  readonly runs: number;
  readonly budget: RunBudget;
  readonly functionalPlan: string;
  /** Requests sent before the suites (the preflight's): they count against the budget and the functional key. */
  readonly preflightRequests: number;
  readonly embedded: boolean;
  readonly connection: ConnectionFacts;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly toolVersion: string;
  /** The suites the run was asked for (before a policy or the budget took one out). */
  readonly requested: readonly string[];
  /** Suites left out before the run began, each with why (e.g. `rate-limit: not run: ...`). */
  readonly leftOutUpFront: readonly string[];
  /** The preflight's exchange, judged by the response checks like every other (runner/preflight-outcome.ts). */
  readonly preflight: { readonly exchange: Exchange; readonly key: PlanKey } | null;
  /**
   * Set when a signal stopped the run (cli/interrupt.ts): the stop the reports name, whatever limit the run met before
   * it. A signal that came once the suites had ended stopped nothing and is not set here.
   */
  readonly interrupted: Stop | null;
}

/** The conformance report of what the run did, with what it left out; before the baseline and the exit code. */
function builtReport(r: ConductedRun, limits: RunLimitsReport): ConformanceReport {
  const { config } = r;
  const outcomes = r.outcome?.outcomes ?? [];
  const snapshot = r.outcome?.snapshot ?? null;
  // A deadline reached, a target slowing down or a signal blocks the run (exit 3, or the signal's code): what ran is
  // reported, not judged complete.
  const blocked = limits.stop !== null && blocksRun(limits.stop.code);
  const completeness = {
    requested: r.requested,
    leftOutUpFront: r.leftOutUpFront,
    outcomes,
    coverage: snapshot?.coverage ?? {},
    randomCut: limits.stop !== null || outcomes.some((o) => o.meta.stopped) || (snapshot?.leftOut.length ?? 0) > 0,
  };
  const notMeasured = whatWasNotMeasured(completeness);
  return buildConformanceReport({
    tool: { name: 'petstore-conformance', version: r.toolVersion, invocation: config.invocation },
    target: { url: config.target!, embedded: r.embedded },
    seed: config.seed,
    runs: r.runs,
    strict: config.strict,
    startedAt: r.startedAt,
    durationMs: r.durationMs,
    // The preflight's answer is judged like every other (its GET /pets is the run's first exchange).
    outcomes: r.preflight
      ? [preflightOutcome(r.preflight.exchange, r.preflight.key, config.seed), ...outcomes]
      : outcomes,
    errors: r.errors,
    notes: r.notes,
    connection: r.connection,
    notMeasured,
    leftOutSuites: suitesLeftOut(completeness),
    notMeasuredByDesign: notMeasuredByDesign(outcomes),
    stoppedBlocking: blocked,
    ...(snapshot ? { traffic: snapshot.traffic } : {}),
  });
}

/** The report of a run: built, judged against the baseline, blocked by a limit that blocks, with the run's limits. */
export function runReportOf(r: ConductedRun): RunReport {
  const { config } = r;
  const limits = runLimitsOf({
    maxDurationMs: config.maxDurationMs,
    maxCreates: config.maxCreates,
    suites: config.suites,
    budget: r.budget,
    outcome: r.outcome,
    functionalPlan: r.functionalPlan,
    preflightRequests: r.preflightRequests,
    interrupted: r.interrupted,
  });
  const built = builtReport(r, limits);
  // The verdict is decided in reports/verdict.ts (with the baseline, by applyBaseline); every writer reads it.
  const withBaseline = config.baseline ? applyBaseline(built, config.baseline, config.updateBaseline) : built;
  return {
    ...withBaseline,
    // The one exit code of the run, from its verdict (reports/verdict.ts); an interrupted run's (blocked) is its
    // signal's, 130 or 143, once every report is written.
    exitCode: verdictExitCode(
      withBaseline.verdict,
      config.requireComplete,
      limits.stop !== null && isInterruption(limits.stop.code) ? limits.stop.code : null,
    ),
    requireComplete: config.requireComplete,
    // Each block the report shows names its replay file (--replay-dir), written by writeRunOutputs.
    ...(config.replayDir ? { replayFiles: replayPlan(config.replayDir, withBaseline) } : {}),
    // The page links every exchange's record: the HAR, from the folder the report (and its page) is written to.
    ...(config.harFile ? { harFile: harFromReport(config.harFile, config.jsonReport ?? config.htmlReport) } : {}),
    run: limits,
  };
}

/**
 * The HAR's path from the report's folder (the JSON's, or the page's when no JSON is written), with `/` between its
 * folders: relative, so a page that links it still finds it when the folder is a CI artifact.
 */
function harFromReport(har: string, report: string | null): string {
  if (!report) return har;
  const path = relative(dirname(resolve(report)), resolve(har));
  return isAbsolute(path) ? path : path.split(sep).join('/');
}

/**
 * Writes every output the configuration asks for and returns the run's exit code, once every file is on disk (the HTML
 * page renders its charts asynchronously: it is awaited too).
 */
export async function writeRunOutputs(r: ConductedRun, har: HarWriter | null, out: Outlet): Promise<number> {
  const report = runReportOf(r);
  const { config } = r;
  // The last gate: nothing leaves the process with a key in it.
  const summary = guardSecrets(renderTerminalSummary(report) + renderRunLimits(report.run), 'terminal summary');
  out.result(summary);
  const files: [string, string][] = [];
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (config.jsonReport) files.push([config.jsonReport, json]);
  // The page is rendered from the JSON text, as `report html` rebuilds it; its charts render asynchronously.
  const html = config.htmlReport
    ? writeConformanceHtml(
        JSON.parse(json) as HtmlInput,
        config.htmlReport,
        dirname(resolve(config.jsonReport ?? config.htmlReport)),
      )
    : Promise.resolve();
  // Awaited below; a write that fails before then ends the run's outputs, and the page's rejection must not go unheard.
  html.catch(() => {});
  // One test case per defect; messages quote the target, so the text is scrubbed like the curl lines.
  if (config.junitReport) files.push([config.junitReport, scrub(renderJunit(report))]);
  if (config.stepSummaryFile)
    appendFileSync(
      config.stepSummaryFile,
      guardSecrets(renderMarkdown(report) + renderRunLimitsMarkdown(report.run), 'step summary'),
    );
  for (const [path, text] of files) {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, guardSecrets(text, path));
  }
  if (har) {
    const n = har.close(runLimitsLine(report.run));
    out.progress(`HAR: ${n} exchanges in ${har.path}`);
  }
  const replayFiles = report.replayFiles;
  if (config.replayDir && replayFiles && Object.keys(replayFiles).length > 0) {
    const written = writeReplays(config.replayDir, { ...report, replayFiles });
    out.progress(`replay files: ${written.length} in ${config.replayDir}, one per block of the report`);
  }
  await html;
  if (config.htmlReport) out.progress(`HTML report: ${config.htmlReport}`);
  return report.exitCode;
}

/** What is known of a run that could not start or go on, for its reports. */
export interface FailedRun {
  readonly error: unknown;
  readonly paths: ReportPaths;
  readonly target: { readonly url: string; readonly embedded: boolean };
  readonly seed: number;
  readonly strict: boolean;
  readonly maxDurationMs: number;
  readonly invocation: string;
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly toolVersion: string;
}

/** The failure as the reports state it: the catalogue's code, exit code and remedy (an unforeseen error is PSC_HARNESS). */
export function failureOf(error: unknown): RunFailure {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  return { code, exitCode: exitCodeOf(error), message: scrub(message), remedy: remedyFor(code) };
}

/** The report of a run that could not start or go on: no suite ran, the verdict error (exit 2) or blocked (exit 3). */
export function failureReportOf(f: FailedRun): RunReport {
  const failure = failureOf(f.error);
  const built = buildConformanceReport({
    tool: { name: 'petstore-conformance', version: f.toolVersion, invocation: f.invocation },
    target: f.target,
    seed: f.seed,
    runs: 0,
    strict: f.strict,
    startedAt: f.startedAt,
    durationMs: f.durationMs,
    outcomes: [],
    errors: [],
    notes: [],
    failure,
  });
  return {
    ...built,
    exitCode: failure.exitCode,
    requireComplete: false,
    run: {
      maxDurationSeconds: Math.round(f.maxDurationMs / 1000),
      budget: { limit: null, source: 'none', sent: 0, leftOut: [] },
      maxCreates: null,
      created: { count: 0, ids: [] },
      keys: [],
      stop: null,
    },
  };
}

/**
 * Writes every report the run was asked for when it could not start or go on (exit 2 or 3: a refused configuration,
 * an unreachable target, TLS, a refused or banned key, a harness failure), as a signal's stop does: the JSON (verdict
 * error or blocked, with the code and the remedy), the JUnit (one error case), the job summary and the HTML page. A
 * report that cannot be written is said on stderr and does not hide the run's own error.
 */
export async function writeFailureOutputs(f: FailedRun, out: Outlet): Promise<void> {
  const report = failureReportOf(f);
  const { paths } = f;
  const attempt = (what: string, write: () => void) => {
    try {
      write();
    } catch (e) {
      out.progress(`could not write ${what}: ${scrub((e as Error)?.message ?? String(e))}`);
    }
  };
  const json = `${JSON.stringify(report, null, 2)}\n`;
  const file = (path: string, text: string) => () => {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, guardSecrets(text, path));
  };
  if (paths.jsonReport) attempt(paths.jsonReport, file(paths.jsonReport, json));
  if (paths.junitReport) attempt(paths.junitReport, file(paths.junitReport, scrub(renderJunit(report))));
  if (paths.stepSummaryFile) {
    const summary = paths.stepSummaryFile;
    attempt('the step summary', () => appendFileSync(summary, guardSecrets(renderMarkdown(report), 'step summary')));
  }
  if (paths.htmlReport) {
    const html = paths.htmlReport;
    try {
      mkdirSync(dirname(resolve(html)), { recursive: true });
      await writeConformanceHtml(JSON.parse(json) as HtmlInput, html, dirname(resolve(paths.jsonReport ?? html)));
    } catch (e) {
      out.progress(`could not write ${html}: ${scrub((e as Error)?.message ?? String(e))}`);
    }
  }
}
