/**
 * Runs a property over generated cases against the target, the way fast-check is meant to be used: a failing case is
 * shrunk to the smallest request that still fails, with the seed and path to replay it. Shrinking resends requests,
 * so it is bounded (a budget of steps); past the budget the smallest failure found so far is reported.
 * One property can show several defects: after a failure is shrunk, the run goes on (same seed) ignoring the signatures
 * already reported (check, operation, case class), for a few rounds, so each defect gets its own smallest
 * counterexample and is shrunk once.
 */
import fc from 'fast-check';
import type { Finding } from '../checks/check.js';
import { signatureKey } from '../checks/registry.js';
import type { RunContext } from './context.js';
import { isRunStopped } from './guard.js';

export interface PropertyOptions {
  readonly numRuns?: number;
  /** Rounds of "shrink one defect, continue past it". */
  readonly rounds?: number;
  /**
   * The share of what the suite has left of the request budget this property may spend (default: all of it). A
   * suite's properties come after its coverage phase and split what is left: the first of two takes 1/2, the last 1.
   */
  readonly share?: number;
}

/** A stable per-property seed derived from the run seed, so that properties differ yet replay exactly. */
export function propertySeed(runSeed: number, name: string): number {
  let h = runSeed | 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x9e3779b1) | 0;
  return h >>> 0;
}

export async function checkProperty<T>(
  ctx: RunContext,
  name: string,
  arb: fc.Arbitrary<T>,
  body: (value: T) => Promise<void>,
  options: PropertyOptions = {},
): Promise<void> {
  await ctx.guard.part(`random phase "${name}"`, options.share ?? 1, () => explore(ctx, name, arb, body, options));
}

/**
 * A catch handler for code that runs inside a part of the exploration outside a property: the part's own stop (its
 * share spent) ends it quietly; a stop of the suite or the run, and any other error, go on.
 */
export function endOfPart(ctx: RunContext): (e: unknown) => void {
  return (e) => {
    if (!isRunStopped(e)) throw e;
    ctx.guard.throwIfStopped();
  };
}

async function explore<T>(
  ctx: RunContext,
  name: string,
  arb: fc.Arbitrary<T>,
  body: (value: T) => Promise<void>,
  options: PropertyOptions,
): Promise<void> {
  const numRuns = options.numRuns ?? ctx.runs;
  const rounds = options.rounds ?? 5;
  const shrinkBudget = ctx.settings.shrinkBudget ?? 40;
  const seed = propertySeed(ctx.seed, name);
  const reported = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    let failingFindings: Finding[] = [];
    let executionsAfterFailure = -1;
    const prop = fc.asyncProperty(arb, async (value) => {
      if (executionsAfterFailure >= shrinkBudget) return true; // budget spent: keep the smallest failure found
      // A stopped run (time or request budget) sends nothing more: the remaining cases are not failures.
      if (ctx.guard.stopped) return true;
      if (executionsAfterFailure >= 0) executionsAfterFailure++;
      let found: Finding[];
      try {
        found = await ctx.capture(() => body(value));
      } catch (e) {
        if (isRunStopped(e)) return true;
        throw e;
      }
      const fresh = found.filter((f) => ctx.fails(f) && !reported.has(signatureKey(f)));
      if (fresh.length === 0) {
        // A passing case: keep its observations and the failures of defects already reported.
        if (executionsAfterFailure < 0) ctx.log.add(found);
        return true;
      }
      if (executionsAfterFailure < 0) executionsAfterFailure = 0;
      failingFindings = found;
      return false;
    });
    const result = await fc.check(prop, { seed, numRuns, endOnFailure: false });
    if (!result.failed || result.counterexample === null) {
      ctx.guard.throwIfStopped();
      return;
    }
    const repro = {
      seed: result.seed,
      path: result.counterexamplePath ?? '',
      counterexample: fc.stringify(result.counterexample[0]),
      shrinks: result.numShrinks,
    };
    const fresh = new Set(
      failingFindings.filter((f) => ctx.fails(f) && !reported.has(signatureKey(f))).map(signatureKey),
    );
    for (const f of failingFindings) if (fresh.has(signatureKey(f))) f.repro = repro;
    for (const key of fresh) reported.add(key);
    // The shrunk case's findings: its defects with their counterexample, and its observations and other findings.
    ctx.log.add(failingFindings);
    // A failure found before the run stopped is kept (above); then the stop ends the scenario.
    ctx.guard.throwIfStopped();
  }
}
