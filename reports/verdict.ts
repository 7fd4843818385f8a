/**
 * The verdict of a conformance run, decided by one function (`decideVerdict`: when the report is built, and again when
 * a baseline is applied to it) from what the run found and what it measured; every writer (terminal, JSON, JUnit,
 * Markdown, the HTML page, the exit code) reads it and none works it out again, so they cannot disagree.
 *
 * - error: the run could not start for a mistake of its configuration (a flag, a variable, a key the target calls
 *   invalid): exit 2, the reports saying which and what to do.
 * - blocked: the run could not start or go on (the target unreachable, TLS, a key banned, the time budget, a slowing
 *   target, a harness failure): exit 3; stopped by a signal (SIGINT, SIGTERM), the signal's code (130, 143), once
 *   every report is written.
 * - violations: a defect that fails the run (with --baseline: one the baseline does not list): exit 1.
 * - incomplete: nothing failed, but a limit (request budget, time, keys) or a policy left out a whole suite, a key's
 *   rate limits or every random phase: nothing vouches for what was left out, so the run is not called conformant.
 *   Exit 0, or 3 with --require-complete.
 * - known-defects: the only failing defects are those the baseline lists: exit 0.
 * - conformant: nothing failed and nothing was left out: exit 0.
 */
import { failsRun } from '../checks/check.js';
import { ExitCode, exitCodeFor, type SIGNAL_CODES, type StopSignal } from '../errors/catalogue.js';
import type { BaselineState } from './baseline.js';

export type ConformanceVerdict = 'conformant' | 'known-defects' | 'incomplete' | 'violations' | 'blocked' | 'error';

export interface VerdictInput {
  readonly defects: readonly { readonly level: 'violation' | 'warning' | 'observation'; readonly signature: string }[];
  readonly strict: boolean;
  /** A suite aborted in a way that blocks the run, a harness error, or a limit that blocks it (the deadline). */
  readonly blocked: boolean;
  /** Tests vitest failed outside any finding (counted as violations when no baseline is given). */
  readonly failedTests: number;
  readonly baseline?: BaselineState | undefined;
  /** What a limit or a policy left out of the run (whole suites, keys' rate limits, every random phase), and why. */
  readonly leftOut: readonly string[];
  /** The run could not start or go on (its exit code, 2 or 3): nothing else it found is a verdict. */
  readonly failure?: { readonly exitCode: number } | undefined;
}

export function decideVerdict(v: VerdictInput): ConformanceVerdict {
  if (v.failure) return v.failure.exitCode === ExitCode.usage ? 'error' : 'blocked';
  if (v.blocked) return 'blocked';
  const failing = v.baseline
    ? v.baseline.new.length > 0
    : v.failedTests > 0 || v.defects.some((d) => failsRun(d.level, v.strict));
  if (failing) return 'violations';
  if (v.leftOut.length > 0) return 'incomplete';
  if ((v.baseline?.known.length ?? 0) > 0) return 'known-defects';
  return 'conformant';
}

/**
 * The exit code of a verdict: --require-complete makes an incomplete run fail as one that could not finish (3); a run
 * a signal stopped (`interruptedBy`, its stop code: its verdict is blocked) exits as signals do, 130 or 143.
 */
export function verdictExitCode(
  verdict: ConformanceVerdict,
  requireComplete = false,
  interruptedBy: (typeof SIGNAL_CODES)[StopSignal] | null = null,
): number {
  switch (verdict) {
    case 'blocked':
      return interruptedBy ? exitCodeFor(interruptedBy) : ExitCode.blocked;
    case 'error':
      return ExitCode.usage;
    case 'violations':
      return ExitCode.violations;
    case 'incomplete':
      return requireComplete ? ExitCode.blocked : ExitCode.conformant;
    default:
      return ExitCode.conformant;
  }
}

/** The verdict's word in the terminal summary and the HTML page. */
export const VERDICT_WORD: Readonly<Record<ConformanceVerdict, string>> = {
  conformant: 'CONFORMANT',
  'known-defects': 'ONLY KNOWN DEFECTS',
  incomplete: 'INCOMPLETE',
  violations: 'NOT CONFORMANT',
  blocked: 'BLOCKED',
  error: 'NOT RUN (configuration error)',
};

/** The verdict's heading in the Markdown summary. */
export const VERDICT_HEADING: Readonly<Record<ConformanceVerdict, string>> = {
  conformant: '✅ Conformant',
  'known-defects': '⚠️ Only known defects',
  incomplete: '⚠️ Incomplete',
  violations: '❌ Not conformant',
  blocked: '⛔ Blocked',
  error: '⛔ Not run: configuration error',
};
