/**
 * How a request budget is shared among the functional suites. Each suite declares what its coverage phase sends (each
 * case class once, derived from its generators) and what its random phase sends for a --runs (its `estimate`,
 * runner/suites.ts); the limits reserve every suite's coverage first and share what is left among the random phases.
 * --runs is scaled down so that the random phases fit, and when even the coverage does not fit, the plan says so.
 */
import type { PlanLimits } from '../spec/contract.js';
import type { SuiteEstimate } from './limits.js';

/** A suite as the plan sees it: its name and what it sends for a --runs (null: no estimate, not planned). */
export interface Estimated {
  readonly name: string;
  readonly estimate: ((runs: number) => SuiteEstimate) | null;
}

/** A budget that covers this many times the suites' estimate cannot be spent by the first of them: no shares. */
const BUDGET_SLACK = 2;

/** Rough requests of the given suites for a --runs, coverage and random phases together. */
export function estimateRequests(suites: readonly Estimated[], runs: number): number {
  return suites.reduce((n, s) => {
    const e = s.estimate?.(runs);
    return n + (e ? e.coverage + e.explore : 0);
  }, 0);
}

export interface BudgetPlan {
  /** --runs, scaled down when the random phases would not fit what the coverage leaves. */
  readonly runs: number;
  /** Per suite, what it needs. */
  readonly suiteEstimates: Readonly<Record<string, SuiteEstimate>>;
  /**
   * The estimates the limits share the budget by (LimitSettings.suiteEstimates), when the budget is tight enough to
   * need shares; else null (no budget, or one the suites' estimate cannot come near). Suites with shares run one at a
   * time.
   */
  readonly shares: Readonly<Record<string, SuiteEstimate>> | null;
  /** What the user should know: runs scaled, coverage that does not fit. */
  readonly notes: readonly string[];
}

/** Plans the suites within `room` requests (null: no budget, nothing changes). */
export function planBudget(
  suites: readonly Estimated[],
  runs: number,
  room: number | null,
  label = 'the request budget',
): BudgetPlan {
  const at = (r: number) =>
    Object.fromEntries(
      suites.flatMap((s) => {
        const e = s.estimate?.(r);
        return e ? [[s.name, e]] : [];
      }),
    );
  if (room === null) return { runs, suiteEstimates: at(runs), shares: null, notes: [] };
  const notes: string[] = [];
  const coverage = suites.reduce((n, s) => n + (s.estimate?.(runs).coverage ?? 0), 0);
  // What each suite's coverage costs, the robustness catalogue's included: what the budget must hold first.
  const costs = suites.flatMap((s) => {
    const e = s.estimate?.(runs);
    return e ? [`${s.name === 'robustness' ? 'robustness catalogue' : s.name} ${e.coverage}`] : [];
  });
  if (costs.length > 0)
    notes.push(
      `coverage first, within ${label}: ${costs.join(', ')} = ${coverage} of the ${room} requests left for the suites; the random phases share ${Math.max(0, room - coverage)}`,
    );
  const explore = (r: number) => suites.reduce((n, s) => n + (s.estimate?.(r).explore ?? 0), 0);
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

/**
 * Requests the budget a run is told to give holds beyond the preflight, the coverage phases and the rate-limit
 * suite's minimum: a random case at least, since a run whose random phases sent nothing is INCOMPLETE
 * (reports/completeness.ts). What is left goes to the last suite with a random phase still to run (RunLimits.beginSuite).
 */
const RANDOM_MINIMUM = 1;

/** The rate-limit suite's minimum, per key and in all: what it cannot measure its keys with less of. */
export interface RateLimitNeed {
  readonly total: number;
  readonly perKey: readonly { readonly label: string; readonly requests: number }[];
}

/** What the rate-limit suite declares it needs (runner/suites.ts): per key from its per-minute limit, and without one. */
export interface RateLimitMinimum {
  readonly perKey: (requestsPerMinute: number) => number;
  readonly unauthenticated: number;
}

export function rateLimitNeed(
  keys: readonly { readonly plan: string; readonly limits: PlanLimits | null }[],
  minimum: RateLimitMinimum,
): RateLimitNeed {
  const perKey = keys
    .filter((k) => k.limits !== null)
    .map((k) => ({ label: k.plan, requests: minimum.perKey(k.limits!.requestsPerMinute) }));
  const total = perKey.reduce((n, k) => n + k.requests, 0);
  return { total: total > 0 ? total + minimum.unauthenticated : 0, perKey };
}

/**
 * Whether the rate-limit suite's minimum fits a budget of `room` requests once every functional suite's coverage is
 * reserved (the order of a tight budget: coverage, then each key's rate limits, then the random phases). Returns the
 * requests to reserve for it, or why it cannot be measured.
 */
export function fitRateLimit(
  functional: readonly Estimated[],
  runs: number,
  room: number | null,
  need: RateLimitNeed,
  label = 'the request budget',
): { readonly reserve: number } | { readonly leftOut: string } {
  if (room === null || need.total === 0) return { reserve: 0 };
  const coverage = functional.reduce((n, s) => n + (s.estimate?.(runs).coverage ?? 0), 0);
  if (coverage + need.total <= room) return { reserve: need.total };
  const keys = need.perKey.map((k) => `${k.label} ≈ ${k.requests}`).join(', ');
  const unauthenticated = need.total - need.perKey.reduce((n, k) => n + k.requests, 0);
  return {
    leftOut:
      `rate-limit: not run: its keys need about ${need.total} requests (${keys}, and ${unauthenticated} without a key), ` +
      `but ${label} leaves ${Math.max(0, room - coverage)} after the functional suites' coverage phases (${coverage}); ` +
      `give --budget ${coverage + need.total + 1 + RANDOM_MINIMUM} or more, or --suite without rate-limit to leave it out on purpose`,
  };
}

/** A run's plan: the functional suites' (planBudget) within what the rate-limit suite's reserve leaves. */
export interface RunPlan extends BudgetPlan {
  /** Requests kept for the rate-limit suite (0: none). */
  readonly reserved: number;
  /** Why the rate-limit suite cannot be measured within the budget, when it cannot (it is then left out); else null. */
  readonly leftOut: string | null;
}

/**
 * Plans a run within `room` requests in the order of a tight budget: every functional suite's coverage, then the
 * rate-limit suite's minimum (`need`; kept out of the room when it fits, else the suite is left out: fitRateLimit),
 * then the random phases in what is left (planBudget). `budget`, when given, is the request budget the notes name.
 */
export function planRun(
  functional: readonly Estimated[],
  runs: number,
  room: number | null,
  need: RateLimitNeed,
  budget?: number | null,
): RunPlan {
  const label = budget === undefined ? 'the request budget' : `the request budget (${budget})`;
  const rateLimit = fitRateLimit(functional, runs, room, need, label);
  const reserved = 'reserve' in rateLimit ? rateLimit.reserve : 0;
  const plan = planBudget(
    functional,
    runs,
    room === null ? null : room - reserved,
    reserved > 0
      ? `the request budget (${budget === undefined ? '' : `${budget}, `}${reserved} of it kept for the rate-limit suite)`
      : label,
  );
  return { ...plan, reserved, leftOut: 'leftOut' in rateLimit ? rateLimit.leftOut : null };
}
