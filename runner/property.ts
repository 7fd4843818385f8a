/**
 * Runs a property over generated cases against the target, the way fast-check is meant to be used: a failing case is
 * shrunk to the smallest request that still fails, with the seed and path to replay it. Shrinking resends requests,
 * so it is bounded (a budget of steps); past the budget the smallest failure found so far is reported.
 * One property can show several defects: after a failure is shrunk, the run goes on (same seed) ignoring the signatures
 * already reported (check, operation, case class), for a few rounds, so each defect gets its own smallest
 * counterexample and is shrunk once.
 * Each property runs as a part of its suite (RunContext.part): a context of its own, so that independent properties can
 * run side by side (checkProperties) and still record the same findings whatever the interleaving.
 */
import fc from 'fast-check';
import type { Finding } from '../checks/check.js';
import { signatureKey } from '../checks/registry.js';
import type { RunContext } from './context.js';
import { isRunStopped } from './limits.js';

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

/** A property of a suite: cases from `arb`, each sent and judged by `body` in the property's own context. */
export interface Property<T> {
  readonly name: string;
  readonly arb: fc.Arbitrary<T>;
  readonly body: (value: T, ctx: RunContext) => Promise<void>;
  readonly options: PropertyOptions;
}

export function property<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  body: (value: T, ctx: RunContext) => Promise<void>,
  options: PropertyOptions = {},
): Property<T> {
  return { name, arb, body, options };
}

function partOf<T>(ctx: RunContext, p: Property<T>) {
  return ctx.part(`random phase "${p.name}"`, p.options.share ?? 1, (own) => explore(own, p));
}

/** Runs one property as a part of the suite's exploration, and keeps what it found. */
export async function checkProperty<T>(ctx: RunContext, p: Property<T>): Promise<void> {
  ctx.absorb(await partOf(ctx, p));
}

/**
 * Runs properties that do not depend on one another: side by side when the run has more than one lane
 * (--concurrency) and the suite has no share of a request budget to split (shares go to parts one after another, each
 * a fraction of what is left), one after another otherwise. Their findings join the suite's log in the order given,
 * whatever the interleaving of their requests; then the first stop or error, in that order, ends the suite.
 */
export async function checkProperties<T extends unknown[]>(
  ctx: RunContext,
  properties: { readonly [K in keyof T]: Property<T[K]> },
): Promise<void> {
  const sideBySide = ctx.laneCount > 1 && ctx.guard.scope?.suite?.cap === null;
  if (!sideBySide) {
    for (const p of properties) await checkProperty(ctx, p);
    return;
  }
  // A part ends with its value or what stopped it (RunContext.part): none rejects.
  const parts = await Promise.all(properties.map((p: Property<unknown>) => partOf(ctx, p)));
  const errors: unknown[] = [];
  for (const part of parts) {
    try {
      ctx.absorb(part);
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0) throw errors[0];
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

async function explore<T>(ctx: RunContext, { name, arb, body, options }: Property<T>): Promise<void> {
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
        found = await ctx.capture(() => body(value, ctx));
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
