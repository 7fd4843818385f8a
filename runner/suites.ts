/**
 * The suites by name: which operations each exercises, which checks it can report, and its scenario. The vitest
 * files in suites/ and the project's own tests both run suites through here, so they run the same logic.
 */
import type { SuiteName } from '../config/config.js';
import { type HarnessErrorCode, KeyBlockedError, TargetStalledError } from '../config/errors.js';
import type { OperationId } from '../spec/contract.js';
import { allChecks } from '../checks/registry.js';
import type { Check } from '../checks/check.js';
import { RunContext, type RunSettings } from './context.js';
import { authScenario } from './scenarios/auth.js';
import { createPetScenario } from './scenarios/create-pet.js';
import { getPetScenario } from './scenarios/get-pet.js';
import { listPetsScenario } from './scenarios/list-pets.js';
import { statefulScenario } from './scenarios/stateful.js';
import { robustnessScenario } from './scenarios/robustness.js';
import { rateLimitScenario } from './scenarios/rate-limit.js';
import { quotaScenario } from './scenarios/quota.js';
import type { Finding } from '../checks/check.js';
import type { OperationStats } from './findings.js';
import { type GuardLimits, type GuardSnapshot, isRunStopped, RunGuard, UNLIMITED } from './guard.js';
import { planBudget } from './budget.js';
import type { RateLimitResult } from './rate-limit-results.js';

export interface SuiteDefinition {
  readonly name: SuiteName;
  readonly title: string;
  /** Operations the suite must execute cases for; zero cases for one of them fails the suite. */
  readonly operations: readonly OperationId[];
  /** Check areas the suite reports besides the response checks applied to every exchange. */
  readonly areas: readonly Check<unknown>['area'][];
  readonly run: (ctx: RunContext) => Promise<void>;
}

const ALL_OPS: readonly OperationId[] = ['listPets', 'createPet', 'getPet'];

const definitions: SuiteDefinition[] = [
  { name: 'auth', title: 'Authentication on every operation', operations: ALL_OPS, areas: ['auth'], run: authScenario },
  { name: 'listPets', title: 'GET /pets', operations: ['listPets'], areas: ['listPets'], run: listPetsScenario },
  { name: 'createPet', title: 'POST /pets', operations: ['createPet'], areas: ['createPet'], run: createPetScenario },
  {
    name: 'getPet',
    title: 'GET /pets/{petId} (deprecated)',
    operations: ['getPet'],
    areas: ['getPet', 'createPet'],
    run: getPetScenario,
  },
  {
    name: 'stateful',
    title: 'Model-based sequences',
    operations: ['createPet'],
    areas: ['stateful', 'createPet', 'listPets'],
    run: statefulScenario,
  },
  {
    name: 'robustness',
    title: 'The inputs real services break on (robustness catalogue)',
    operations: ALL_OPS,
    areas: ['robustness', 'auth', 'createPet', 'getPet'],
    run: robustnessScenario,
  },
  {
    name: 'rate-limit',
    title: 'Rate limits per plan key (section 8)',
    operations: ['listPets'],
    areas: ['rate-limit'],
    run: rateLimitScenario,
  },
  {
    name: 'quota',
    title: 'Daily quota of the smallest plan key (section 8, opt-in)',
    operations: ['listPets'],
    areas: ['rate-limit'],
    run: quotaScenario,
  },
];

export function suiteDefinition(name: SuiteName): SuiteDefinition {
  const def = definitions.find((d) => d.name === name);
  if (!def) throw new Error(`no suite named ${name}`);
  return def;
}

/** The checks a suite can report, response checks first. */
export function suiteChecks(def: SuiteDefinition): Check<unknown>[] {
  return allChecks.filter((c) => c.area === 'response' || def.areas.includes(c.area)) as Check<unknown>[];
}

export interface SuiteResult {
  readonly suite: SuiteName;
  readonly findings: readonly Finding[];
  readonly stats: Readonly<Record<string, OperationStats>>;
  readonly occurrences: Readonly<Record<string, number>>;
  readonly exchanges: number;
  readonly rateLimits: readonly RateLimitResult[];
  readonly durationMs: number;
  /** Set when the suite could not finish (e.g. the key was blocked); the findings so far are kept. */
  readonly aborted: { readonly code: HarnessErrorCode; readonly message: string } | null;
  /** Set when the run's limits (time, requests, creations, a slowing target) stopped the suite; findings are kept. */
  readonly stopped: { readonly code: string; readonly message: string } | null;
  /** The run's guard as this suite ended (cumulative over the suites run before it in the same worker). */
  readonly guard: GuardSnapshot;
}

export async function runSuite(name: SuiteName, settings: RunSettings): Promise<SuiteResult & { ctx: RunContext }> {
  const def = suiteDefinition(name);
  const guard = settings.guard ?? new RunGuard();
  const own = guard.beginSuite(name);
  // In the suite's own scope: suites side by side share the guard, each counted and stopped as itself.
  const ctx = new RunContext({ ...settings, guard }, name, { suite: own, part: null });
  // The run's latency trend is reported by the suite it stopped (the CLI's reporter reads it from the guard instead).
  const trendBefore = guard.trend;
  const t0 = performance.now();
  let aborted: SuiteResult['aborted'] = null;
  let stopped: SuiteResult['stopped'] = null;
  try {
    await def.run(ctx);
  } catch (e) {
    // A blocked key or a stalled target stops the suite; what it found so far still counts. So does a run limit.
    if (isRunStopped(e)) stopped = { code: e.code, message: e.message };
    else if (e instanceof KeyBlockedError || e instanceof TargetStalledError)
      aborted = { code: e.code, message: e.message };
    else throw e;
  } finally {
    await ctx.close();
  }
  const snapshot = guard.snapshot();
  return {
    suite: name,
    findings: trendBefore === null && guard.trend ? [...ctx.log.all(), guard.trend] : ctx.log.all(),
    stats: Object.fromEntries(ctx.log.stats),
    occurrences: Object.fromEntries(ctx.log.occurrences),
    exchanges: ctx.exchangeCount,
    rateLimits: ctx.rateLimitResults,
    durationMs: performance.now() - t0,
    aborted,
    // A scenario may have swallowed the stop (a property's remaining cases pass): the guard knows.
    stopped: stopped ?? own.stop ?? snapshot.stop,
    guard: snapshot,
    ctx,
  };
}

export interface InOrderResult {
  readonly results: readonly Omit<SuiteResult, 'guard'>[];
  /** The run's guard at the end: requests, creations, the stop, what the budget left out. */
  readonly guard: GuardSnapshot;
  readonly runs: number;
  readonly notes: readonly string[];
}

/**
 * Runs suites one after another in this process, sharing one guard, the way `petstore-conformance run` runs them in
 * its worker: with a request budget, every case class of every suite first (runner/budget.ts). For the project's
 * tests and the bench; the CLI goes through vitest.
 */
export async function runSuitesInOrder(
  names: readonly SuiteName[],
  settings: Omit<RunSettings, 'guard'>,
  limits: Omit<GuardLimits, 'suiteEstimates'> = UNLIMITED,
): Promise<InOrderResult> {
  const plan = planBudget(names, settings.runs, limits.maxRequests);
  const guard = new RunGuard({
    ...limits,
    ...(plan.shares && { suiteEstimates: plan.shares }),
  });
  const results: Omit<SuiteResult, 'guard'>[] = [];
  for (const name of names) {
    const { ctx: _ctx, guard: _g, ...r } = await runSuite(name, { ...settings, runs: plan.runs, guard });
    results.push(r);
  }
  return { results, guard: guard.snapshot(), runs: plan.runs, notes: plan.notes };
}
