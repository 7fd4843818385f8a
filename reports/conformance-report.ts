/**
 * The result of a conformance run as plain data: what the JSON report holds and what the terminal summary, the
 * Markdown summary, the JUnit file, the HTML page and replay files are rendered from. Built from what the suites
 * handed over in task.meta.
 */
import type { Finding, Level } from '../checks/check.js';
import { ExitCode, exitCodeFor } from '../errors/catalogue.js';
import type { SuiteMeta, SuiteOutcome } from '../runner/outcome.js';
import type { RateLimitResult } from '../runner/rate-limit-results.js';
import type { TrafficSnapshot } from '../runner/traffic.js';
import { type Defect, exchangeKeys, groupDefects } from './defects.js';
import type { BaselineState } from './baseline.js';
import { type ConformanceVerdict, decideVerdict } from './verdict.js';
import { type EvidenceTable, evidenceTable, type SuiteLeftOut } from './evidence.js';

/** 2: `defects` are causes, each with its signatures and what it was also seen as (1: one entry per signature). */
export const CONFORMANCE_SCHEMA_VERSION = 2;

export interface OperationTotals {
  exchanges: number;
  checksApplied: number;
  cases: number;
  violations: number;
  warnings: number;
  observations: number;
}

export type { Defect } from './defects.js';

/**
 * Why a run could not start or go on, when it could not (exit 2 or 3): the error's catalogue code, its message, and
 * what to do about it. Every report of such a run says it (reports/conformance-outputs.ts `writeFailureOutputs`).
 */
export interface RunFailure {
  readonly code: string;
  readonly exitCode: number;
  readonly message: string;
  readonly remedy: string;
}

/** How the run reached the target: what a reader needs to weigh the verdict (an unverified TLS above all). */
export interface ConnectionFacts {
  /** --insecure: the target's certificate was not verified. */
  readonly insecure: boolean;
  /** Extra CA certificate files trusted (--ca, and NODE_EXTRA_CA_CERTS alongside it). */
  readonly caFiles: readonly string[];
  /** The proxy the requests went through (credentials masked), or null when direct. */
  readonly proxy: string | null;
  /** Accept-Encoding sent with every request, or null when none was. */
  readonly acceptEncoding: string | null;
  readonly userAgent: string;
}

export interface ConformanceReport {
  readonly schemaVersion: number;
  /** `invocation`: the command as the user started it (`npx petstore-conformance`), for the lines the reports print. */
  readonly tool: { readonly name: string; readonly version: string; readonly invocation?: string };
  /** --har: the HAR of every exchange, relative to the JSON report's folder (or the page's, without --json). */
  readonly harFile?: string;
  /** --replay-dir: the replay file of each defect block, by signature (reports/replay-file.ts replayPlan). */
  readonly replayFiles?: Readonly<Record<string, string>>;
  readonly target: { readonly url: string; readonly embedded: boolean };
  readonly seed: number;
  readonly runs: number;
  readonly strict: boolean;
  readonly startedAt: string;
  readonly durationMs: number;
  /** Decided once (reports/verdict.ts); every writer and the exit code read it. */
  readonly verdict: ConformanceVerdict;
  /** Set when the run could not start or go on (verdict error or blocked): why, and what to do. */
  readonly failure?: RunFailure;
  /**
   * What a limit or a policy left out of the run (whole suites, a key's rate limits, every random phase), and why:
   * when not empty, the run is not called conformant (verdict `incomplete`, unless it failed or was blocked).
   */
  readonly notMeasured: readonly string[];
  /**
   * What the tool never measures by design (a limit beyond a bounded burst), and why: named in every output, it leaves
   * the verdict as it is.
   */
  readonly notMeasuredByDesign?: readonly string[];
  /**
   * The table of evidence, per clause and operation (reports/evidence.ts): proven (with its count), violated, warned,
   * observed, not exercised or left out (with why); and per check. Every output reads it.
   */
  readonly evidence: EvidenceTable;
  /** The exit code the verdict gives (set by the command, with --require-complete in mind). */
  readonly exitCode?: number;
  readonly totals: OperationTotals;
  readonly operations: Readonly<Record<string, OperationTotals>>;
  readonly suites: readonly {
    readonly name: string;
    readonly exchanges: number;
    readonly durationMs: number;
    readonly failedTests: number;
    readonly aborted: SuiteMeta['aborted'];
  }[];
  readonly findings: readonly Finding[];
  /**
   * The violations and warnings grouped into defects (causes), most severe first, each with every signature it was
   * seen as, its counts and findings (observations stay in `findings`).
   */
  readonly defects: readonly Defect[];
  /** Failures of the harness or of vitest itself, outside any check. */
  readonly errors: readonly string[];
  /** Notes the run made for the reader (quota scaling, waits). */
  readonly notes: readonly string[];
  /** Per-plan numbers of the rate-limit and quota suites, when they ran. */
  readonly rateLimits?: readonly RateLimitResult[];
  /** The run judged against a baseline of known defects (--baseline), when one was given. */
  readonly baseline?: BaselineState;
  readonly connection?: ConnectionFacts;
  /** Answers per key over time by status class, and the waits (runner/traffic.ts): the page's timelines. */
  readonly traffic?: TrafficSnapshot;
}

const zero = (): OperationTotals => ({
  exchanges: 0,
  checksApplied: 0,
  cases: 0,
  violations: 0,
  warnings: 0,
  observations: 0,
});

export type { SuiteOutcome } from '../runner/outcome.js';

/** What the run hands the report. */
export interface ConformanceInput {
  tool: ConformanceReport['tool'];
  target: ConformanceReport['target'];
  seed: number;
  runs: number;
  strict: boolean;
  startedAt: Date;
  durationMs: number;
  outcomes: readonly SuiteOutcome[];
  errors: readonly string[];
  notes: readonly string[];
  connection?: ConnectionFacts;
  /** What the run's limits or policies left out (see ConformanceReport.notMeasured). */
  notMeasured?: readonly string[];
  /** The suites among those that were left out, in whole or in part (the table of evidence says where). */
  leftOutSuites?: readonly SuiteLeftOut[];
  /** What the tool never measures by design (see ConformanceReport.notMeasuredByDesign). */
  notMeasuredByDesign?: readonly string[];
  /** A limit stopped the run in a way that blocks it (the deadline, a slowing target). */
  stoppedBlocking?: boolean;
  traffic?: TrafficSnapshot;
  failure?: RunFailure;
}

/** The run's findings (violations, warnings and observations) and its counts per operation and in all. */
function tallyOutcomes(outcomes: readonly SuiteOutcome[]) {
  const operations: Record<string, OperationTotals> = {};
  const totals = zero();
  const findings: Finding[] = [];
  for (const o of outcomes) {
    for (const [op, s] of Object.entries(o.meta.stats)) {
      if (op === 'none') continue;
      operations[op] ??= zero();
      const t = operations[op];
      t.exchanges += s.exchanges;
      t.checksApplied += s.checksApplied;
      t.cases += s.cases;
    }
    for (const f of [...o.findings, ...o.meta.observations]) findings.push(f);
  }
  for (const f of findings) {
    const k = f.operation ?? 'none';
    operations[k] ??= zero();
    const t = operations[k];
    if (f.level === 'violation') t.violations++;
    else if (f.level === 'warning') t.warnings++;
    else t.observations++;
  }
  for (const t of Object.values(operations)) {
    for (const k of Object.keys(totals) as (keyof OperationTotals)[]) totals[k] += t[k];
  }
  return { operations, totals, findings };
}

/** The suites as the report lists them. */
const suitesOf = (outcomes: readonly SuiteOutcome[]): ConformanceReport['suites'] =>
  outcomes.map((o) => ({
    name: o.meta.suite,
    exchanges: o.meta.exchanges,
    durationMs: Math.round(o.meta.durationMs),
    failedTests: o.failedTests,
    aborted: o.meta.aborted,
  }));

export function buildConformanceReport(input: ConformanceInput): ConformanceReport {
  const rateLimits = input.outcomes.flatMap((o) => o.meta.rateLimits ?? []);
  const { operations, totals, findings } = tallyOutcomes(input.outcomes);
  // A banned key blocks the run (exit 3); a target that stalls is itself the finding (its transport-ok violations).
  const aborted = input.outcomes.some((o) => o.meta.aborted && exitCodeFor(o.meta.aborted.code) === ExitCode.blocked);
  const failedTests = input.outcomes.reduce((n, o) => n + o.failedTests, 0);
  const defects = defectsOf(
    findings,
    input.outcomes,
    Object.entries(operations)
      .filter(([op, t]) => op !== 'none' && t.exchanges > 0)
      .map(([op]) => op),
  );
  const notMeasured = input.notMeasured ?? [];
  const evidence = evidenceTable({
    findings,
    counts: input.outcomes.flatMap((o) => o.meta.evidence ?? []),
    leftOut: input.leftOutSuites ?? [],
  });
  const verdict = decideVerdict({
    defects,
    strict: input.strict,
    blocked: aborted || input.errors.length > 0 || input.stoppedBlocking === true,
    failedTests,
    leftOut: notMeasured,
    failure: input.failure,
  });
  return {
    schemaVersion: CONFORMANCE_SCHEMA_VERSION,
    tool: input.tool,
    target: input.target,
    seed: input.seed,
    runs: input.runs,
    strict: input.strict,
    startedAt: input.startedAt.toISOString(),
    durationMs: Math.round(input.durationMs),
    verdict,
    ...(input.failure ? { failure: input.failure } : {}),
    notMeasured,
    ...(input.notMeasuredByDesign?.length ? { notMeasuredByDesign: input.notMeasuredByDesign } : {}),
    evidence,
    totals,
    operations,
    suites: suitesOf(input.outcomes),
    findings,
    defects,
    errors: input.errors,
    notes: [
      ...input.notes,
      ...input.outcomes
        .filter((o) => o.meta.aborted)
        .map((o) => `${o.meta.suite} stopped early: ${o.meta.aborted!.message}`),
    ],
    ...(rateLimits.length > 0 ? { rateLimits } : {}),
    ...(input.connection ? { connection: input.connection } : {}),
    ...(input.traffic ? { traffic: input.traffic } : {}),
  };
}

/** Groups the violations and warnings into defects (causes): see reports/defects.ts and reports/defect-rules.ts. */
export function defectsOf(
  findings: readonly Finding[],
  outcomes: readonly SuiteOutcome[] = [],
  operations?: readonly string[],
): Defect[] {
  const counts = new Map<string, number>();
  for (const o of outcomes)
    for (const [k, n] of Object.entries(o.meta.occurrences ?? {})) counts.set(k, (counts.get(k) ?? 0) + n);
  return groupDefects({ findings, counts, ...(operations ? { operations } : {}) });
}

/** The distinct exchanges that showed a finding of the given level (as far as the report keeps them). */
export function exchangesWith(report: Pick<ConformanceReport, 'findings'>, level: Level): number {
  return new Set(report.findings.filter((f) => f.level === level).flatMap(exchangeKeys)).size;
}
