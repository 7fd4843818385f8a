/**
 * The notes a run prints before it starts, each said once. --runs can be scaled twice before a run starts (by the
 * preflight, for the key's daily quota, then by the budget planner, for the request budget); the user asked one
 * --runs and gets one: a single note from the first value to the last, with both reasons.
 */
const SCALED = /,? (?:so |then )?--runs (?:was )?scaled from (\d+) to (\d+)/;

export function runNotes(notes: readonly string[]): string[] {
  const scaled = notes.flatMap((n, i) => {
    const m = SCALED.exec(n);
    return m ? [{ i, from: m[1]!, to: m[2]!, why: n.replace(SCALED, '') }] : [];
  });
  if (scaled.length < 2) return [...new Set(notes)];
  const one = `--runs was scaled from ${scaled[0]!.from} to ${scaled.at(-1)!.to}: ${scaled.map((s) => s.why).join('; and ')}`;
  const out = notes
    .map((n, i) => (i === scaled[0]!.i ? one : n))
    .filter((_n, i) => !scaled.slice(1).some((s) => s.i === i));
  return [...new Set(out)];
}
