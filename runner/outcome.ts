/**
 * A run's results as the reports take them, plain data that survives the trip from the worker that ran the suites to
 * the command: per suite its counts and findings, typed end to end (findings, observations, the rate-limit suites'
 * per-key numbers), and the run's totals (requests and creations, per key, what was left out, the stop, the trend).
 */
import { type Finding, failsRun } from '../checks/check.js';
import type { HarnessErrorCode } from '../errors/catalogue.js';
import { allChecks } from '../checks/registry.js';
import { contract, type OperationId } from '../spec/contract.js';
import type { EvidenceCount, OperationStats } from './findings.js';
import type { Stop } from './limits.js';
import type { RateLimitResult } from './rate-limit-results.js';
import type { RunResult, RunSnapshot, SuiteResult } from './run.js';
import { suiteDefinition } from './suites.js';

export interface SuiteMeta {
  readonly suite: string;
  readonly stats: Readonly<Record<string, OperationStats>>;
  readonly occurrences: Readonly<Record<string, number>>;
  /**
   * What each check applied to and passed, per clause and operation (evidence about no operation counted for the
   * suite's first, as its findings are): what the table of evidence proves clauses from (reports/evidence.ts).
   */
  readonly evidence?: readonly EvidenceCount[];
  readonly exchanges: number;
  readonly durationMs: number;
  readonly aborted: { readonly code: HarnessErrorCode; readonly message: string } | null;
  readonly seed: number;
  readonly observations: readonly Finding[];
  /** Per-key numbers of the rate-limit and quota suites (runner/scenarios/rate-limit.ts, quota.ts). */
  readonly rateLimits: readonly RateLimitResult[];
  /** Set when the run's limits stopped the suite (budget, creations, deadline, a slowing target). */
  readonly stopped?: Stop | null;
}

export interface SuiteOutcome {
  readonly meta: SuiteMeta;
  /** The violations and warnings, by operation and then by check in the registry's order. */
  readonly findings: readonly Finding[];
  /** The (operation, check) pairs with a failing finding, and a suite that executed no case for an operation. */
  readonly failedTests: number;
}

/** What a run hands the reports. */
export interface RunOutcome {
  readonly outcomes: readonly SuiteOutcome[];
  /** Failures of the harness, outside any check (a suite that did not run). */
  readonly errors: readonly string[];
  readonly snapshot: RunSnapshot;
}

const ALL_OPERATIONS = [...contract.operations.keys()];
const RUN_CHECKS = new Set(allChecks.filter((c) => c.area === 'run').map((c) => c.id));
const RESPONSE_CHECKS = new Set(allChecks.filter((c) => c.area === 'response').map((c) => c.id));

/**
 * A suite's result as the reports take it: the violations and warnings in a fixed order (by operation, then by check
 * in the registry's order; a finding with no operation counts for the suite's first operation), the observations
 * apart, and how many (operation, check) pairs fail at this strictness. Every check the suite judged is reported,
 * whatever its area: the listPets suite judges the create checks on the pets it seeds, and a cause found there is
 * the suite's finding as much as the consequence it leads to.
 */
function outcomeOf(r: SuiteResult, seed: number, strict: boolean): SuiteOutcome {
  const def = suiteDefinition(r.suite);
  const findings: Finding[] = [];
  let failedTests = 0;
  for (const op of ALL_OPERATIONS) {
    for (const check of allChecks) {
      if (check.level === 'observation' || check.area === 'run') continue;
      const mine = r.findings.filter(
        (f) => f.level !== 'observation' && f.checkId === check.id && (f.operation ?? def.operations[0]) === op,
      );
      findings.push(...mine);
      if (mine.some((f) => failsRun(f.level, strict))) failedTests++;
    }
  }
  // Findings about the run as a whole (a target slowing down), in the suite whose request established them.
  findings.push(...r.findings.filter((f) => RUN_CHECKS.has(f.checkId) && f.level !== 'observation'));
  // A run that tests nothing must not pass: every operation of the suite executed cases, unless a limit stopped it.
  const idle = !r.stopped && def.operations.some((op) => (r.stats[op]?.cases ?? 0) === 0);
  if (r.aborted || idle) failedTests++;
  return {
    meta: {
      suite: r.suite,
      stats: r.stats,
      occurrences: r.occurrences,
      evidence: evidenceOf(r, def.operations[0] ?? null),
      exchanges: r.exchanges,
      durationMs: r.durationMs,
      aborted: r.aborted,
      seed,
      observations: r.findings.filter((f) => f.level === 'observation'),
      rateLimits: r.rateLimits,
      stopped: r.stopped,
    },
    findings,
    failedTests,
  };
}

/**
 * The suite's evidence counts with an operation for each: a behavioural check's evidence about no operation (a key's
 * limits) counts for the suite's first operation; a response check's (an exchange with no operation: a path variant)
 * for none, as no operation's answer.
 */
function evidenceOf(r: SuiteResult, first: OperationId | null): EvidenceCount[] {
  return (r.evidence ?? []).flatMap((c) =>
    c.operation !== null ? [c] : RESPONSE_CHECKS.has(c.checkId) || first === null ? [] : [{ ...c, operation: first }],
  );
}

/** The run's result as the reports take it; its suites in the order of their names (the order of their reports). */
export function runOutcome(r: RunResult, seed: number, strict: boolean): RunOutcome {
  return {
    outcomes: [...r.results]
      .sort((a, b) => (a.suite < b.suite ? -1 : a.suite > b.suite ? 1 : 0))
      .map((s) => outcomeOf(s, seed, strict)),
    errors: r.errors.map((e) => `${e.suite}: the suite did not run: ${e.message}`),
    snapshot: r.snapshot,
  };
}
