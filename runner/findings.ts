/**
 * Collects the findings of a run: every violation and warning with its exchanges (up to a cap per signature, the rest
 * counted; responses only on the one that best shows its signature), observations deduplicated (a gap's behaviour is
 * recorded once per signature and message, a bounded sample of messages per signature), and the counts the summary
 * reports: what is kept does not grow with the run's length.
 */
import type { OperationId } from '../spec/contract.js';
import { type Applies, type Finding, type Level, withoutResponse } from '../checks/check.js';
import type { CheckId } from '../checks/check-id.js';
import { signatureKey } from '../checks/registry.js';

export interface OperationStats {
  exchanges: number;
  checksApplied: number;
  cases: number;
}

/**
 * What a check judged on one operation: the pieces of evidence it applied to (its `appliesTo`), and those it passed
 * (no finding at all). `clause` is a clause the evidence bore on, or null for all the check's clauses. The table
 * of evidence (reports/evidence.ts) proves a clause only from these counts: counters, never exchange lists.
 */
export interface EvidenceCount {
  readonly checkId: CheckId;
  readonly clause: string | null;
  readonly operation: OperationId | null;
  applied: number;
  passed: number;
}

/** Distinct messages kept per observation signature; the rest are counted in `occurrences`. */
export const OBSERVATION_SAMPLES = 20;

/**
 * How well a finding shows its defect, lower first: a shrunk counterexample ranks first, the shortest of them; then the
 * rest, the shortest request first. The reports show each defect by its best-ranked finding (reports/defects.ts).
 */
export function exampleRank(f: Finding): number {
  const cx = f.repro?.counterexample;
  const ex = f.exchanges[0];
  return cx !== undefined ? cx.length : 1e9 + (ex?.request.bodyBase64?.length ?? 0) + (ex?.path.length ?? 0);
}

/** The key under which a finding is counted: its signature's words and its level. */
export const occurrenceKey = (f: Finding): string => `${signatureKey(f)} [${f.level}]`;

export class FindingLog {
  private readonly items: Finding[] = [];
  private readonly seen = new Map<string, number>();
  /** Distinct observation messages kept per signature. */
  private readonly observed = new Map<string, number>();
  /**
   * Per signature, the kept finding that best shows it (exampleRank): the one whose exchanges keep their responses,
   * for the reports to show beside its request; the others drop theirs (memory and the JSON report stay small).
   */
  private readonly best = new Map<string, { readonly at: number; readonly rank: number }>();
  /** Occurrences per signature and level (see occurrenceKey), including findings that were not kept. */
  readonly occurrences = new Map<string, number>();
  readonly stats = new Map<OperationId | 'none', OperationStats>();
  /** Per check, clause and operation, what the checks applied to and passed (see EvidenceCount). */
  private readonly judgedCounts = new Map<string, EvidenceCount>();

  /** Keeps at most this many findings of one signature; the rest are counted. */
  constructor(private readonly perSignatureLimit = 100) {}

  add(findings: readonly Finding[]): void {
    for (const f of findings) {
      const occ = occurrenceKey(f);
      this.occurrences.set(occ, (this.occurrences.get(occ) ?? 0) + 1);
      this.keep(f, occ);
    }
  }

  /**
   * Takes in what another log collected (a part of the suite that ran beside others, in a context of its own): its
   * counts whole, its findings within this log's caps. Parts absorbed in a fixed order make the same log whatever the
   * interleaving of their requests.
   */
  absorb(other: FindingLog): void {
    for (const [k, n] of other.occurrences) this.occurrences.set(k, (this.occurrences.get(k) ?? 0) + n);
    for (const [op, s] of other.stats) {
      this.count(op, 'exchanges', s.exchanges);
      this.count(op, 'checksApplied', s.checksApplied);
      this.count(op, 'cases', s.cases);
    }
    for (const f of other.items) this.keep(f, occurrenceKey(f));
    for (const c of other.judgedCounts.values()) this.tally(c.checkId, c.clause, c.operation, c.applied, c.passed);
  }

  /**
   * A check judged a piece of evidence: `applies` is what its declaration said (false: it judged nothing there; true:
   * all its clauses; a list: those clauses), `passed` whether it found nothing.
   */
  judged(checkId: CheckId, applies: Applies, operation: OperationId | null, passed: boolean): void {
    if (applies === false) return;
    for (const clause of applies === true ? [null] : applies) this.tally(checkId, clause, operation, 1, passed ? 1 : 0);
  }

  private tally(
    checkId: CheckId,
    clause: string | null,
    operation: OperationId | null,
    applied: number,
    passed: number,
  ) {
    const k = `${checkId} ${clause ?? '*'} ${operation ?? '-'}`;
    const c = this.judgedCounts.get(k);
    if (c) {
      c.applied += applied;
      c.passed += passed;
    } else this.judgedCounts.set(k, { checkId, clause, operation, applied, passed });
  }

  /** What the checks applied to and passed, per check, clause and operation (copies). */
  evidence(): EvidenceCount[] {
    return [...this.judgedCounts.values()].map((c) => ({ ...c }));
  }

  private keep(f: Finding, occ: string): void {
    const key = f.level === 'observation' ? `${occ} ${f.message}` : occ;
    const n = this.seen.get(key) ?? 0;
    if (n >= (f.level === 'observation' ? 1 : this.perSignatureLimit)) return;
    if (f.level === 'observation') {
      // Messages quote the case (a petId, a query): a sample of them shows the behaviour, however long the run.
      const samples = this.observed.get(occ) ?? 0;
      if (samples >= OBSERVATION_SAMPLES) return;
      this.observed.set(occ, samples + 1);
    }
    this.seen.set(key, n + 1);
    if (f.exchanges.every((e) => e.response === undefined)) {
      this.items.push(f);
      return;
    }
    const rank = exampleRank(f);
    const best = this.best.get(key);
    if (best && best.rank <= rank) {
      this.items.push(stripped(f));
      return;
    }
    if (best) this.items[best.at] = stripped(this.items[best.at]!);
    this.best.set(key, { at: this.items.length, rank });
    this.items.push(f);
  }

  count(operation: OperationId | 'none' | null, field: keyof OperationStats, n = 1): void {
    const k = operation ?? 'none';
    let s = this.stats.get(k);
    if (!s) {
      s = { exchanges: 0, checksApplied: 0, cases: 0 };
      this.stats.set(k, s);
    }
    s[field] += n;
  }

  all(): readonly Finding[] {
    return this.items;
  }

  at(level: Level): Finding[] {
    return this.items.filter((f) => f.level === level);
  }
}

const stripped = (f: Finding): Finding => ({ ...f, exchanges: f.exchanges.map(withoutResponse) });
