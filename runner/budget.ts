/**
 * How a request budget is shared among the functional suites. Each suite declares what its coverage phase sends (each
 * case class once, derived from its generators) and what its random phase sends for a --runs; the guard reserves
 * every suite's coverage first and shares what is left among the random phases. --runs is scaled down so that the
 * random phases fit, and when even the coverage does not fit, the plan says so.
 */
import { authCoverage, authExplore } from './scenarios/auth.js';
import { createPetCoverage, createPetExplore } from './scenarios/create-pet.js';
import { getPetCoverage, getPetExplore } from './scenarios/get-pet.js';
import { listPetsCoverage, listPetsExplore } from './scenarios/list-pets.js';
import { statefulCoverage, statefulExplore } from './scenarios/stateful.js';
import type { SuiteEstimate } from './guard.js';
import { keyMinimum, UNAUTHENTICATED_REQUESTS } from './scenarios/rate-limit.js';
import type { PlanLimits } from '../spec/contract.js';

const ESTIMATES: Readonly<Record<string, (runs: number) => SuiteEstimate>> = {
  auth: (r) => ({ coverage: authCoverage(), explore: authExplore(r) }),
  listPets: (r) => ({ coverage: listPetsCoverage(), explore: listPetsExplore(r) }),
  createPet: (r) => ({ coverage: createPetCoverage(), explore: createPetExplore(r) }),
  getPet: (r) => ({ coverage: getPetCoverage(), explore: getPetExplore(r) }),
  stateful: (r) => ({ coverage: statefulCoverage(), explore: statefulExplore(r) }),
};

/** What a functional suite sends for a --runs (null for a suite with no estimate: the rate-limit suites). */
export function suiteEstimate(suite: string, runs: number): SuiteEstimate | null {
  return ESTIMATES[suite]?.(runs) ?? null;
}

/** A budget that covers this many times the suites' estimate cannot be spent by the first of them: no shares. */
const BUDGET_SLACK = 2;

/** Rough requests of the given suites for a --runs, coverage and random phases together. */
export function estimateRequests(suites: readonly string[], runs: number): number {
  return suites.reduce((n, s) => {
    const e = suiteEstimate(s, runs);
    return n + (e ? e.coverage + e.explore : 0);
  }, 0);
}

export interface BudgetPlan {
  /** --runs, scaled down when the random phases would not fit what the coverage leaves. */
  readonly runs: number;
  /** Per suite, what it needs. */
  readonly suiteEstimates: Readonly<Record<string, SuiteEstimate>>;
  /**
   * The estimates the guard shares the budget by (GuardLimits.suiteEstimates), when the budget is tight enough to need
   * shares; else null (no budget, or one the suites' estimate cannot come near). Suites with shares run one at a
   * time.
   */
  readonly shares: Readonly<Record<string, SuiteEstimate>> | null;
  /** What the user should know: runs scaled, coverage that does not fit. */
  readonly notes: readonly string[];
}

/** Plans the functional suites within `room` requests (null: no budget, nothing changes). */
export function planBudget(
  suites: readonly string[],
  runs: number,
  room: number | null,
  label = 'the request budget',
): BudgetPlan {
  const at = (r: number) =>
    Object.fromEntries(
      suites.flatMap((s) => {
        const e = suiteEstimate(s, r);
        return e ? [[s, e]] : [];
      }),
    );
  if (room === null) return { runs, suiteEstimates: at(runs), shares: null, notes: [] };
  const notes: string[] = [];
  const coverage = suites.reduce((n, s) => n + (suiteEstimate(s, runs)?.coverage ?? 0), 0);
  const explore = (r: number) => suites.reduce((n, s) => n + (suiteEstimate(s, r)?.explore ?? 0), 0);
  let scaled = runs;
  if (coverage > room) {
    notes.push(
      `${label} (${room} requests for the suites) is less than the coverage phases need (${coverage}): some case classes will not be exercised (the report names them)`,
    );
    scaled = 1;
  } else if (coverage + explore(runs) > room) {
    // The largest --runs whose random phases fit what the coverage leaves (the estimates grow with runs).
    let lo = 1;
    let hi = runs;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (coverage + explore(mid) <= room) lo = mid;
      else hi = mid - 1;
    }
    scaled = lo;
  }
  if (scaled !== runs && coverage <= room)
    notes.push(
      `${label} covers about ${room} more requests: every case class first (${coverage} requests), then --runs scaled from ${runs} to ${scaled}`,
    );
  const suiteEstimates = at(scaled);
  // Shares keep the first suites from spending what the later ones need (every suite's coverage is reserved first):
  // only a budget that is tight needs them.
  const tight = estimateRequests(suites, scaled) * BUDGET_SLACK > room;
  return { runs: scaled, suiteEstimates, shares: tight ? suiteEstimates : null, notes };
}

/** The rate-limit suite's minimum, per key and in all: what it cannot measure its keys with less of. */
export interface RateLimitNeed {
  readonly total: number;
  readonly perKey: readonly { readonly label: string; readonly requests: number }[];
}

export function rateLimitNeed(
  keys: readonly { readonly plan: string; readonly limits: PlanLimits | null }[],
): RateLimitNeed {
  const perKey = keys
    .filter((k) => k.limits !== null)
    .map((k) => ({ label: k.plan, requests: keyMinimum(k.limits!.requestsPerMinute) }));
  const total = perKey.reduce((n, k) => n + k.requests, 0);
  return { total: total > 0 ? total + UNAUTHENTICATED_REQUESTS : 0, perKey };
}

/**
 * Whether the rate-limit suite's minimum fits a budget of `room` requests once every functional suite's coverage is
 * reserved (the order of a tight budget: coverage, then each key's rate limits, then the random phases). Returns the
 * requests to reserve for it, or why it cannot be measured.
 */
export function fitRateLimit(
  functional: readonly string[],
  runs: number,
  room: number | null,
  need: RateLimitNeed,
  label = 'the request budget',
): { readonly reserve: number } | { readonly leftOut: string } {
  if (room === null || need.total === 0) return { reserve: 0 };
  const coverage = functional.reduce((n, s) => n + (suiteEstimate(s, runs)?.coverage ?? 0), 0);
  if (coverage + need.total <= room) return { reserve: need.total };
  const keys = need.perKey.map((k) => `${k.label} ≈ ${k.requests}`).join(', ');
  return {
    leftOut:
      `rate-limit: not run: its keys need about ${need.total} requests (${keys}, and ${UNAUTHENTICATED_REQUESTS} without a key), ` +
      `but ${label} leaves ${Math.max(0, room - coverage)} after the functional suites' coverage phases (${coverage}); ` +
      `give --budget ${coverage + need.total + 1} or more, or --suite without rate-limit to leave it out on purpose`,
  };
}
