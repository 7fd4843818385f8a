/**
 * The result of a conformance run as plain data: what the JSON report holds and what the terminal summary, the
 * Markdown summary and replay files are rendered from. Built from what the suites handed over in task.meta.
 */
import type { Finding, Level } from '../checks/check.js';
import { allChecks, signatureKey, signatureOf } from '../checks/registry.js';
import { ExitCode, exitCodeFor } from '../config/errors.js';
import { occurrenceKey } from '../runner/findings.js';
import type { SuiteMeta, SuiteOutcome } from '../runner/outcome.js';
import type { RateLimitResult } from '../runner/rate-limit-results.js';
import type { BaselineState } from './baseline.js';
import { type ConformanceVerdict, decideVerdict } from './verdict.js';

export type { ConformanceVerdict } from './verdict.js';

export const CONFORMANCE_SCHEMA_VERSION = 1;

export interface OperationTotals {
  exchanges: number;
  checksApplied: number;
  cases: number;
  violations: number;
  warnings: number;
  observations: number;
}

/**
 * One distinct defect: the findings of one signature (check, operation, case class) at one level. The report prints
 * one block per defect, most severe first.
 */
export interface Defect {
  /** The signature in words: `no-5xx · createPet · invalid body: categoryId of type null`. */
  readonly signature: string;
  readonly checkId: string;
  readonly operation: string | null;
  readonly caseClass: string | null;
  readonly level: Level;
  readonly clause: string;
  /** How many times it was seen (one per exchange judged, for the checks of one response). */
  readonly occurrences: number;
  /** Indexes into the report's findings, the example first (the shrunk counterexample when there is one). */
  readonly findings: readonly number[];
  /** When every exchange showing it also shows a defect of a check that judges the cause: that defect's signature. */
  readonly echoOf?: string;
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
  /**
   * What a limit or a policy left out of the run (whole suites, a key's rate limits, every random phase), and why:
   * when not empty, the run is not called conformant (verdict `incomplete`, unless it failed or was blocked).
   */
  readonly notMeasured: readonly string[];
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
  /** The violations and warnings grouped by signature, most severe first (observations stay in `findings`). */
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

export function buildConformanceReport(input: {
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
  /** A limit stopped the run in a way that blocks it (the deadline, a slowing target). */
  stoppedBlocking?: boolean;
}): ConformanceReport {
  const rateLimits = input.outcomes.flatMap((o) => o.meta.rateLimits ?? []);
  const operations: Record<string, OperationTotals> = {};
  const totals = zero();
  const findings: Finding[] = [];
  for (const o of input.outcomes) {
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
  // A banned key blocks the run (exit 3); a target that stalls is itself the finding (its transport-ok violations).
  const aborted = input.outcomes.some((o) => o.meta.aborted && exitCodeFor(o.meta.aborted.code) === ExitCode.blocked);
  const failedTests = input.outcomes.reduce((n, o) => n + o.failedTests, 0);
  const defects = defectsOf(findings, input.outcomes);
  const notMeasured = input.notMeasured ?? [];
  const verdict = decideVerdict({
    defects,
    strict: input.strict,
    blocked: aborted || input.errors.length > 0 || input.stoppedBlocking === true,
    failedTests,
    leftOut: notMeasured,
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
    notMeasured,
    totals,
    operations,
    suites: input.outcomes.map((o) => ({
      name: o.meta.suite,
      exchanges: o.meta.exchanges,
      durationMs: Math.round(o.meta.durationMs),
      failedTests: o.failedTests,
      aborted: o.meta.aborted,
    })),
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
  };
}

const SEVERITY: Record<Level, number> = { violation: 0, warning: 1, observation: 2 };

/**
 * Checks whose finding names the cause when several judge the same exchanges: no answer or a 5xx explains whatever
 * else is wrong with it; an undocumented status explains what the response checks say of its headers and body.
 */
const ROOT_RANK: Readonly<Record<string, number>> = { 'transport-ok': 0, 'no-5xx': 1, 'status-documented': 2 };
const rank = (checkId: string): number => ROOT_RANK[checkId] ?? 3;
function explains(root: string, echo: string): boolean {
  if (rank(root) >= rank(echo)) return false;
  return rank(root) < 2 || allChecks.find((c) => c.id === echo)?.area === 'response';
}

/** The exchanges a finding is about, as keys unique within the run (sequence numbers restart in each suite). */
const exchangeKeys = (f: Finding): string[] => f.exchanges.map((e) => `${f.suite ?? ''}#${e.seq}`);

/** Groups the violations and warnings by signature, most severe and most frequent first, and names echoes. */
export function defectsOf(findings: readonly Finding[], outcomes: readonly SuiteOutcome[] = []): Defect[] {
  const counts = new Map<string, number>();
  for (const o of outcomes)
    for (const [k, n] of Object.entries(o.meta.occurrences ?? {})) counts.set(k, (counts.get(k) ?? 0) + n);
  const groups = new Map<string, number[]>();
  findings.forEach((f, i) => {
    if (f.level === 'observation') return;
    const key = occurrenceKey(f);
    const list = groups.get(key) ?? [];
    list.push(i);
    groups.set(key, list);
  });
  const defects = [...groups.entries()].map(([key, indexes]): Defect => {
    const first = findings[indexes[0]!]!;
    const sig = signatureOf(first);
    const example = indexes.find((i) => findings[i]!.repro?.counterexample) ?? indexes[0]!;
    return {
      signature: signatureKey(first),
      checkId: sig.checkId,
      operation: sig.operation,
      caseClass: sig.caseClass,
      level: first.level,
      clause: first.clause,
      occurrences: Math.max(counts.get(key) ?? 0, indexes.length),
      findings: [example, ...indexes.filter((i) => i !== example)],
    };
  });
  // An echo: every exchange of a defect also shows a defect of the same level whose check names the cause.
  const exchangesOf = new Map(defects.map((d) => [d, new Set(d.findings.flatMap((i) => exchangeKeys(findings[i]!)))]));
  const withEchoes = defects.map((d): Defect => {
    const mine = exchangesOf.get(d)!;
    if (mine.size === 0) return d;
    const root = defects.find(
      (r) =>
        r !== d &&
        explains(r.checkId, d.checkId) &&
        SEVERITY[r.level] <= SEVERITY[d.level] &&
        [...mine].every((k) => exchangesOf.get(r)!.has(k)),
    );
    return root ? { ...d, echoOf: root.signature } : d;
  });
  return withEchoes.sort(
    (a, b) =>
      SEVERITY[a.level] - SEVERITY[b.level] ||
      Number(a.echoOf !== undefined) - Number(b.echoOf !== undefined) ||
      b.occurrences - a.occurrences ||
      a.signature.localeCompare(b.signature),
  );
}

/** The distinct exchanges that showed a finding of the given level (as far as the report keeps them). */
export function exchangesWith(report: Pick<ConformanceReport, 'findings'>, level: Level): number {
  return new Set(report.findings.filter((f) => f.level === level).flatMap(exchangeKeys)).size;
}
