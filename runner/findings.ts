/**
 * Collects the findings of a run: every violation and warning with its exchanges, observations deduplicated (a gap's
 * behaviour is recorded once per check, operation and message), and the counts the summary reports.
 */
import type { OperationId } from '../spec/contract.js';
import type { Finding, Level } from '../checks/check.js';

export interface OperationStats {
  exchanges: number;
  checksApplied: number;
  cases: number;
}

export class FindingLog {
  private readonly items: Finding[] = [];
  private readonly seen = new Map<string, number>();
  /** Occurrences per check id and level, including duplicates that were not kept. */
  readonly occurrences = new Map<string, number>();
  readonly stats = new Map<OperationId | 'none', OperationStats>();

  /** Keeps at most this many findings of one check and operation; the rest are counted. */
  constructor(private readonly perCheckLimit = 5) {}

  add(findings: readonly Finding[]): void {
    for (const f of findings) {
      const occ = `${f.checkId} ${f.operation ?? '-'} ${f.level}`;
      this.occurrences.set(occ, (this.occurrences.get(occ) ?? 0) + 1);
      const key = f.level === 'observation' ? `${occ} ${f.message}` : occ;
      const n = this.seen.get(key) ?? 0;
      if (n >= (f.level === 'observation' ? 1 : this.perCheckLimit)) continue;
      this.seen.set(key, n + 1);
      this.items.push(f);
    }
  }

  /** Replaces what is kept of a check's violations by the shrunk counterexample's findings. */
  replace(checkId: string, findings: readonly Finding[]): void {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const f = this.items[i]!;
      if (f.checkId === checkId && f.level !== 'observation') this.items.splice(i, 1);
    }
    for (const key of [...this.seen.keys()])
      if (key.startsWith(`${checkId} `) && !key.endsWith('observation')) this.seen.delete(key);
    this.add(findings.filter((f) => f.checkId === checkId));
  }

  count(operation: OperationId | null, field: keyof OperationStats, n = 1): void {
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
