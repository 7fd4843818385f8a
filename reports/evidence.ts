/**
 * The one table of evidence of a run: per clause of the spec and operation, what the run can say of it, derived once
 * (when the report is built) from the findings and from what each check applied to and passed (runner/findings.ts
 * EvidenceCount). Every output reads it: the terminal and Markdown show it, JUnit passes a check only on evidence it
 * judged, the HTML page draws it as the map.
 *
 * A clause is proven on an operation only when a check of it applied to at least one piece of evidence there and
 * passed (a check declares what it applies to, checks/check.ts `appliesTo`: a 429 check proves nothing where no 429
 * came); a clause that a failing check cites or covers on an operation is never proven there.
 */
import type { AnyCheck, Finding } from '../checks/check.js';
import { allChecks, checkById } from '../checks/registry.js';
import type { EvidenceCount } from '../runner/findings.js';
import { contract, type OperationId } from '../spec/contract.js';
import { clauses } from '../spec/clauses.js';
import { isRateSuite, type SuiteName } from '../config/config.js';
import { suiteDefinition } from '../runner/suites.js';

/**
 * proven: a check of the clause applied here and passed, and none failed; violated / warned: a check citing or
 * covering it failed here (a violation, a warning); observed: a gap's behaviour was recorded, or a check applied but
 * could only observe (it judged nothing); not-exercised: nothing here met a condition its checks apply to; left-out: a
 * limit or a policy kept the suites that would have judged it from running (why is said).
 */
export type EvidenceState = 'proven' | 'violated' | 'warned' | 'observed' | 'not-exercised' | 'left-out';

export interface EvidenceCell {
  readonly clause: string;
  readonly operation: OperationId;
  readonly state: EvidenceState;
  /** Pieces of evidence a check of the clause applied to here, and those it passed (proven's count). */
  readonly applied: number;
  readonly passed: number;
  /** Why, in words: what a left-out cell's suites lacked, what a not-exercised cell's checks apply to. */
  readonly why?: string;
}

/** One check across the run: what it applied to and passed, and whether it failed. */
export interface CheckEvidence {
  readonly checkId: string;
  /** passed: applied and never failed; failed: a violation or warning; observed: applied, but only observed. */
  readonly state: 'passed' | 'failed' | 'observed' | 'not-exercised' | 'left-out';
  readonly applied: number;
  readonly passed: number;
  readonly why?: string;
}

export interface EvidenceTable {
  /** One cell per clause and operation a check of the clause can judge, in the order of the clauses. */
  readonly cells: readonly EvidenceCell[];
  /** One entry per check of the registry, in its order. */
  readonly checks: readonly CheckEvidence[];
}

/** A suite the run asked for that a limit or a policy left out (in whole or in part), and why. */
export interface SuiteLeftOut {
  readonly suite: string;
  /** What was left out and why, as the report's notMeasured says it. */
  readonly line: string;
}

export interface EvidenceInput {
  /** The report's findings, observations included. */
  readonly findings: readonly Finding[];
  /** What each check applied to and passed, per clause and operation, over every suite (summed here). */
  readonly counts: readonly EvidenceCount[];
  /** The suites left out, with why (reports/completeness.ts): a cell only they could judge is left out, not unexercised. */
  readonly leftOut?: readonly SuiteLeftOut[];
}

export const OPERATIONS: readonly OperationId[] = [...contract.operations.keys()];

/**
 * Whether a suite judges a check's evidence on an operation: a response check judges every answer of any suite that
 * exercises the operation; a limit check, the rate-limit suites'; the others, their own suite's, and a create check
 * the suites that create pets too.
 */
function judgedIn(c: AnyCheck, suite: string, op: OperationId): boolean {
  if (c.area === 'run') return false;
  if (c.area === 'rate-limit') return isRateSuite(suite);
  if (!operationsOfSuite(suite).includes(op)) return c.area === 'createPet' && !isRateSuite(suite);
  return c.area === 'response' || c.area === suite || c.area === 'createPet';
}

function operationsOfSuite(suite: string): readonly OperationId[] {
  try {
    return suiteDefinition(suite as SuiteName).operations;
  } catch {
    return [];
  }
}

/** The clauses a check speaks for: those it cites, and those it covers. */
const clausesOf = (c: AnyCheck): readonly string[] => [...c.clauses, ...c.covers];

/** Every operation a check can judge, over the clauses it speaks for (its declaration's, else its area's). */
const operationsOf = (c: AnyCheck): readonly OperationId[] => [
  ...new Set(clausesOf(c).flatMap((id) => c.operationsFor(id))),
];

const cellKey = (clause: string, op: string) => `${clause} ${op}`;

type Tally = { applied: number; passed: number };

/** What the checks applied to and passed, summed per cell (clause and operation) and per check. */
function tallies(counts: EvidenceInput['counts']) {
  // Summed per check, clause (null: every clause of the check) and operation.
  const counted = new Map<string, Tally>();
  const byCheck = new Map<string, Tally>();
  const ops = new Map<string, Set<string>>();
  const add = (m: Map<string, Tally>, k: string, c: EvidenceCount) => {
    const x = m.get(k) ?? { applied: 0, passed: 0 };
    x.applied += c.applied;
    x.passed += c.passed;
    m.set(k, x);
  };
  for (const c of counts) {
    if (c.operation === null) continue;
    add(byCheck, c.checkId, c);
    let check: AnyCheck;
    try {
      check = checkById(c.checkId);
    } catch {
      continue;
    }
    for (const id of c.clause === null ? clausesOf(check) : [c.clause]) {
      add(counted, cellKey(id, c.operation), c);
      ops.set(id, (ops.get(id) ?? new Set()).add(c.operation));
    }
  }
  return { counted, byCheck, ops };
}

/**
 * Findings per cell: a finding bears on its clause, and on every clause its check covers (auth-rejected failing says
 * the operation does not require authentication, whatever clause its message cites).
 */
function findingsByCell(findings: readonly Finding[], ops: Map<string, Set<string>>) {
  const failing = new Map<string, Finding>();
  const warning = new Map<string, Finding>();
  const observed = new Map<string, Finding>();
  const failedChecks = new Set<string>();
  const observedChecks = new Set<string>();
  for (const f of findings) {
    if (f.operation === null) continue;
    let covers: readonly string[] = [];
    try {
      covers = checkById(f.checkId).covers;
    } catch {}
    const bears = f.level === 'observation' ? [f.clause] : [f.clause, ...covers];
    const into = f.level === 'observation' ? observed : f.level === 'violation' ? failing : warning;
    if (f.level === 'observation') observedChecks.add(f.checkId);
    else failedChecks.add(f.checkId);
    for (const id of bears) {
      const k = cellKey(id, f.operation);
      if (!into.has(k)) into.set(k, f);
      ops.set(id, (ops.get(id) ?? new Set()).add(f.operation));
    }
  }
  return { failing, warning, observed, failedChecks, observedChecks };
}

/** Why the suites that would judge these checks on these operations did not, when a limit or a policy left them out. */
function leftOutWhy(leftOut: EvidenceInput['leftOut'], checks: readonly AnyCheck[], ops: readonly OperationId[]) {
  const l = (leftOut ?? []).find((x) => checks.some((c) => ops.some((op) => judgedIn(c, x.suite, op))));
  return l ? l.line : null;
}

/** The table of evidence (see the module's comment). */
export function evidenceTable(input: EvidenceInput): EvidenceTable {
  const { counted, byCheck, ops } = tallies(input.counts);
  const { failing, warning, observed, failedChecks, observedChecks } = findingsByCell(input.findings, ops);
  const cells: EvidenceCell[] = [];
  for (const clause of clauses) {
    const checks = allChecks.filter((c) => clausesOf(c).includes(clause.id));
    // A cell wherever a check of the clause can judge, and wherever evidence or a finding arrived: only a cell no check
    // could ever judge is left out of the table.
    const where = new Set<string>([
      ...checks.flatMap((c) => c.operationsFor(clause.id)),
      ...(ops.get(clause.id) ?? []),
    ]);
    for (const op of OPERATIONS) {
      if (!where.has(op)) continue;
      // The checks that can judge the clause here (all of them, for a cell only what arrived put in the table).
      const able = checks.filter((c) => c.operationsFor(clause.id).includes(op));
      const judges = able.length > 0 ? able : checks;
      const k = cellKey(clause.id, op);
      const n = counted.get(k) ?? { applied: 0, passed: 0 };
      const base = { clause: clause.id, operation: op, applied: n.applied, passed: n.passed };
      if (failing.has(k)) cells.push({ ...base, state: 'violated' });
      else if (warning.has(k)) cells.push({ ...base, state: 'warned' });
      else if (n.passed > 0 && clause.level !== 'gap') cells.push({ ...base, state: 'proven' });
      else if (observed.has(k) || n.applied > 0) cells.push({ ...base, state: 'observed' });
      else {
        const why = leftOutWhy(input.leftOut, judges, [op]);
        cells.push(
          why
            ? { ...base, state: 'left-out', why }
            : {
                ...base,
                state: 'not-exercised',
                why: `nothing met what its checks apply to: ${judges.map((c) => `${c.id} (${c.appliesToWhat})`).join('; ')}`,
              },
        );
      }
    }
  }
  const checks: CheckEvidence[] = allChecks.map((c) => {
    const n = byCheck.get(c.id) ?? { applied: 0, passed: 0 };
    const base = { checkId: c.id, applied: n.applied, passed: n.passed };
    if (failedChecks.has(c.id)) return { ...base, state: 'failed' };
    if (n.passed > 0) return { ...base, state: 'passed' };
    if (observedChecks.has(c.id) || n.applied > 0)
      return { ...base, state: 'observed', why: 'it applied, but could only observe: nothing it judged passed' };
    const why = leftOutWhy(input.leftOut, [c], operationsOf(c));
    return why
      ? { ...base, state: 'left-out', why }
      : { ...base, state: 'not-exercised', why: `it applies to ${c.appliesToWhat}, and the run judged none` };
  });
  return { cells, checks };
}

/** A cell's words, as every text output says them. */
export const EVIDENCE_WORD: Readonly<Record<EvidenceState, string>> = {
  proven: '✓ proven',
  violated: '✗ violated',
  warned: '! warned',
  observed: '· observed',
  'not-exercised': '– not exercised',
  'left-out': '○ left out',
};
