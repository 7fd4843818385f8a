/**
 * The suites by name: which operations each exercises, its scenario (a suite reports every check it judges:
 * runner/outcome.ts), and what it sends (its estimate, for sharing a request budget). The run (runner/run.ts) runs
 * them, for the command and the project's own tests alike.
 */
import type { SuiteName } from '../config/config.js';
import type { OperationId } from '../spec/contract.js';
import type { RunContext } from './context.js';
import type { SuiteEstimate } from './limits.js';
import type { ScenarioReturn } from './rate-limit-results.js';
import { authCoverage, authExplore, authScenario } from './scenarios/auth.js';
import { createPetCoverage, createPetExplore, createPetScenario } from './scenarios/create-pet.js';
import { getPetCoverage, getPetExplore, getPetScenario } from './scenarios/get-pet.js';
import { listPetsCoverage, listPetsExplore, listPetsScenario } from './scenarios/list-pets.js';
import { statefulCoverage, statefulExplore, statefulScenario } from './scenarios/stateful.js';
import { robustnessCoverage, robustnessScenario } from './scenarios/robustness.js';
import { keyMinimum, rateLimitScenario, UNAUTHENTICATED_REQUESTS } from './scenarios/rate-limit.js';
import type { RateLimitMinimum } from './budget.js';
import { quotaScenario } from './scenarios/quota.js';

export interface SuiteDefinition {
  readonly name: SuiteName;
  readonly title: string;
  /** Operations the suite must execute cases for; zero cases for one of them fails the suite. */
  readonly operations: readonly OperationId[];
  /** The scenario: it records its findings as it goes and returns what else it measured (rate-limit suites). */
  readonly run: (ctx: RunContext) => Promise<ScenarioReturn> | Promise<void>;
  /**
   * What the suite sends for a --runs: its coverage phase and its random phase (runner/budget.ts shares a request
   * budget by it). None for the suites that measure a key's limits: they spend what the key's plan says.
   */
  readonly estimate: ((runs: number) => SuiteEstimate) | null;
}

const ALL_OPS: readonly OperationId[] = ['listPets', 'createPet', 'getPet'];

const definitions: SuiteDefinition[] = [
  {
    name: 'auth',
    title: 'Authentication on every operation',
    operations: ALL_OPS,
    run: authScenario,
    estimate: (r) => ({ coverage: authCoverage(), explore: authExplore(r) }),
  },
  {
    name: 'listPets',
    title: 'GET /pets',
    operations: ['listPets'],
    run: listPetsScenario,
    estimate: (r) => ({ coverage: listPetsCoverage(), explore: listPetsExplore(r) }),
  },
  {
    name: 'createPet',
    title: 'POST /pets',
    operations: ['createPet'],
    run: createPetScenario,
    estimate: (r) => ({ coverage: createPetCoverage(), explore: createPetExplore(r) }),
  },
  {
    name: 'getPet',
    title: 'GET /pets/{petId} (deprecated)',
    operations: ['getPet'],
    run: getPetScenario,
    estimate: (r) => ({ coverage: getPetCoverage(), explore: getPetExplore(r) }),
  },
  {
    name: 'stateful',
    title: 'Model-based sequences',
    operations: ['createPet'],
    run: statefulScenario,
    estimate: (r) => ({ coverage: statefulCoverage(), explore: statefulExplore(r) }),
  },
  {
    name: 'robustness',
    title: 'The inputs real services break on (robustness catalogue)',
    operations: ALL_OPS,
    run: robustnessScenario,
    // The robustness catalogue: each case once, whatever the seed and --runs; no random phase.
    estimate: () => ({ coverage: robustnessCoverage(), explore: 0 }),
  },
  {
    name: 'rate-limit',
    title: 'Rate limits per plan key (section 8)',
    operations: ['listPets'],
    run: rateLimitScenario,
    estimate: null,
  },
  {
    name: 'quota',
    title: 'Daily quota of the smallest plan key (section 8, opt-in)',
    operations: ['listPets'],
    run: quotaScenario,
    estimate: null,
  },
];

/** What the rate-limit suite needs at the least (the budget plan keeps it before any random phase). */
export const RATE_LIMIT_MINIMUM: RateLimitMinimum = { perKey: keyMinimum, unauthenticated: UNAUTHENTICATED_REQUESTS };

export function suiteDefinition(name: SuiteName): SuiteDefinition {
  const def = definitions.find((d) => d.name === name);
  if (!def) throw new Error(`no suite named ${name}`);
  return def;
}

/** What a suite sends for a --runs (null for a suite with no estimate: the rate-limit suites). */
export function suiteEstimate(name: SuiteName, runs: number): SuiteEstimate | null {
  return suiteDefinition(name).estimate?.(runs) ?? null;
}
