/**
 * Every output of a conformance run, chosen by the run's result and the configuration: the report (built from the
 * outcome, judged against a baseline when one is given, blocked when a limit that blocks stopped the run, with what
 * the run's limits did), the terminal summary, the JSON and JUnit files, the step summary, the HAR's closing line and
 * the replay files; and the exit code. The command loads this one module, once the suites are under way.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config/config.js';
import { ExitCode, exitCodeFor as exitCodeOfStop } from '../config/errors.js';
import { scrub } from '../http/redact.js';
import { blocksRun, isInterruption, type Stop } from '../runner/limits.js';
import type { RunOutcome } from '../runner/outcome.js';
import { applyBaseline } from './baseline.js';
import { buildConformanceReport, type ConformanceReport, type ConnectionFacts } from './conformance-report.js';
import { renderMarkdown, renderTerminalSummary } from './conformance-text.js';
import type { HarWriter } from './har.js';
import { renderJunit } from './junit.js';
import { writeReplays } from './replay-file.js';
import {
  type RunBudget,
  type RunLimitsReport,
  renderRunLimits,
  renderRunLimitsMarkdown,
  runLimitsLine,
  runLimitsOf,
} from './run-limits.js';
import { guardSecrets } from './secret-gate.js';

/** The conformance report with what the run's limits did. */
export type RunReport = ConformanceReport & { readonly run: RunLimitsReport };

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
  /**
   * Set when a signal stopped the run (cli/interrupt.ts): the stop the reports name, whatever limit the run met before
   * it. A signal that came once the suites had ended stopped nothing and is not set here.
   */
  readonly interrupted: Stop | null;
}

export function exitCodeFor(report: RunReport): number {
  // A signal's stop exits with its own code (130, 143), once every report is written; any other that blocks, 3.
  const stop = report.run.stop;
  if (stop && isInterruption(stop.code)) return exitCodeOfStop(stop.code);
  if (report.verdict === 'blocked') return ExitCode.blocked;
  return report.verdict === 'violations' ? ExitCode.violations : ExitCode.conformant;
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
  const built = buildConformanceReport({
    tool: { name: 'petstore-conformance', version: r.toolVersion },
    target: { url: config.target!, embedded: r.embedded },
    seed: config.seed,
    runs: r.runs,
    strict: config.strict,
    startedAt: r.startedAt,
    durationMs: r.durationMs,
    outcomes: r.outcome?.outcomes ?? [],
    errors: r.errors,
    notes: r.notes,
    connection: r.connection,
  });
  const withBaseline = config.baseline ? applyBaseline(built, config.baseline, config.updateBaseline) : built;
  // A deadline reached, a target slowing down or a signal blocks the run (exit 3, or the signal's code): what ran is
  // reported, not judged complete.
  const blocked = limits.stop !== null && blocksRun(limits.stop.code);
  return { ...withBaseline, ...(blocked ? { verdict: 'blocked' as const } : {}), run: limits };
}

/** Writes every output the configuration asks for and returns the run's exit code. */
export function writeRunOutputs(r: ConductedRun, har: HarWriter | null, out: Outlet): number {
  const report = runReportOf(r);
  const { config } = r;
  // The last gate: nothing leaves the process with a key in it.
  const summary = guardSecrets(renderTerminalSummary(report) + renderRunLimits(report.run), 'terminal summary');
  out.result(summary);
  const files: [string, string][] = [];
  if (config.jsonReport) files.push([config.jsonReport, `${JSON.stringify(report, null, 2)}\n`]);
  // One test case per distinct defect; messages quote the target, so the text is scrubbed like the curl lines.
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
  const violations = report.findings.filter((f) => f.level !== 'observation');
  if (config.replayDir && violations.length) {
    const written = writeReplays(config.replayDir, report, violations);
    out.progress(`replay files: ${written.length} in ${config.replayDir}`);
  }
  return exitCodeFor(report);
}
