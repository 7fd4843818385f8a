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
      `give --budget ${wholeBudget(functional, runs, need)} or more, or --suite without rate-limit to leave it out on purpose`,
  };
}

/**
 * The fewest runs a default plan gives the random phases (or --runs, when smaller): a property run once or twice
 * tells little beyond the coverage phase, and a plan that scales them to 1 measures what it claims in name only.
 */
export const MIN_RUNS = 10;

/**
 * The budget that holds the whole run with the random phases at MIN_RUNS (or --runs, when smaller): the preflight, every
 * coverage phase, the rate-limit suite's minimum and the random phases. What an advice to raise --budget names.
 */
export function wholeBudget(functional: readonly Estimated[], runs: number, need: RateLimitNeed): number {
  return 1 + estimateRequests(functional, Math.min(runs, MIN_RUNS)) + need.total;
}

/** The suites a default budget keeps, and each suite it cannot hold, with why. */
export interface DefaultFit {
  /** The functional suites kept, in their order. */
  readonly functional: readonly string[];
  /** Whether the rate-limit suite's minimum is kept. */
  readonly rateLimit: boolean;
  /** Each suite left out, as `<suite>: not run: why` (the completeness list reads the suite before the colon). */
  readonly leftOut: readonly string[];
}

/**
 * A default budget (no --budget: a quarter of the key's day) that cannot hold every suite with the random phases at
 * MIN_RUNS keeps whole suites rather than scaling every random phase to nothing: first the rate-limit suite's minimum
 * (the key's limits are what a small plan's user most needs measured), then the functional suites in their order,
 * each with its coverage and its random phases at MIN_RUNS, while they fit. The rest is left out and named, so the
 * verdict says INCOMPLETE and the plan says so before anything is sent. `room`: the budget less the preflight.
 */
export function fitDefault(
  functional: readonly Estimated[],
  runs: number,
  room: number | null,
  need: RateLimitNeed,
  budget: string,
): DefaultFit {
  const floor = Math.min(runs, MIN_RUNS);
  const cost = (s: Estimated) => estimateRequests([s], floor);
  const all = { functional: functional.map((s) => s.name), rateLimit: need.total > 0, leftOut: [] };
  if (room === null || estimateRequests(functional, floor) + need.total <= room) return all;
  const whole = wholeBudget(functional, runs, need);
  const advice = `give --budget ${whole} for the whole run, or run the functional suites on a paid-plan key (README: "Free key: two jobs")`;
  let left = room;
  const leftOut: string[] = [];
  const rateLimit = need.total > 0 && need.total <= left;
  if (rateLimit) left -= need.total;
  else if (need.total > 0)
    leftOut.push(
      `rate-limit: not run: its keys need about ${need.total} requests, more than ${budget} holds; ${advice}`,
    );
  const kept: string[] = [];
  for (const s of functional) {
    const c = cost(s);
    if (c <= left) {
      kept.push(s.name);
      left -= c;
    } else
      leftOut.push(
        `${s.name}: not run: it needs about ${c} requests at runs ${floor}, and ${budget} has ${Math.max(0, left)} left${rateLimit ? " after the rate-limit suite's minimum" : ''} and the suites before it; ${advice}`,
      );
  }
  return { functional: kept, rateLimit, leftOut };
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

/** How long a plan should take, and how much of it is waiting for rate-limit windows (seconds, rough). */
export interface PlanTime {
  readonly seconds: number;
  readonly waitingSeconds: number;
}

/** A request's round trip as the estimate counts it (a remote target; loopback is quicker). */
const REQUEST_SECONDS = 0.02;

/**
 * A plan's time, window waits included: the functional suites pace the functional key at its per-window limit (each
 * window's worth beyond the first waits for the next window); the rate-limit suite paces every key through about one
 * window and then, one key at a time, waits for a fresh window for its burst and for the Retry-After that follows
 * (about two windows a key). Rough on purpose: said before the run, so that a Free key's minutes surprise no one.
 */
export function planTime(
  functionalRequests: number,
  rateLimitRequests: number,
  perWindow: number | null,
  windowSeconds: number,
  rateLimitKeys: number,
): PlanTime {
  const functionalWaits = perWindow ? Math.max(0, Math.ceil(functionalRequests / perWindow) - 1) : 0;
  const rateLimitWaits = rateLimitKeys > 0 ? 1 + 2 * rateLimitKeys : 0;
  const waitingSeconds = (functionalWaits + rateLimitWaits) * windowSeconds;
  const sending = (functionalRequests + rateLimitRequests) * REQUEST_SECONDS;
  return { seconds: Math.round(waitingSeconds + sending), waitingSeconds };
}

/** A duration in words: `45 s`, `3 min 20 s`. */
export function durationWords(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
}
