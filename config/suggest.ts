/** "Did you mean": the valid word nearest to a mistyped one (a flag, a command, a suite, a fault id). */

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The candidate nearest to what was typed: a close misspelling, or the one word it abbreviates; else null. */
export function nearest(typed: string, candidates: readonly string[]): string | null {
  const prefixed = candidates.filter((c) => typed.length >= 2 && c.startsWith(typed));
  if (prefixed.length === 1) return prefixed[0]!;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(typed.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(typed.length / 3)) ? best : null;
}

/** ` (did you mean X?)`, or nothing when no candidate is close. */
export function suggestion(typed: string, candidates: readonly string[]): string {
  const n = nearest(typed, candidates);
  return n === null ? '' : `; did you mean ${n}?`;
}
