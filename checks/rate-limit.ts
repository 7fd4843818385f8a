/**
 * Rate-limit behaviour (section 8), judged on what the rate-limit and quota scenarios measured. The scenarios send
 * and time the requests; these checks only compare numbers, and stay sound whatever limiter the target uses (fixed
 * window, sliding window, token bucket): refill is allowed only as far as elapsed time explains it, and counting
 * against the plan is done only where the target's own headers showed no refill. A single response's headers,
 * Retry-After and body are the response checks' (checks/response.ts): these checks never judge them again.
 */
import type { PlanLimits, PlanName } from '../spec/contract.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitNumber, resetEpochMs, retryAfterMs } from '../http/rate-limit-headers.js';
import { defineCheck, finding, observation, type Check, type Finding, type AnyCheck } from './check.js';
import type { Cause, LimitProblem } from './cause.js';
import { statusOf } from './facts.js';
import { responseDate } from './headers.js';

/** Longest window of the spec ("per day"), seconds; a daily 429's Reset lies within it. */
const DAY_S = 86_400;
/** Clock difference allowed between the target and this machine, seconds. */
const SKEW_S = 5;
/** Slack beyond one window before a refusal's wait is read as the day's or a ban's (rounding, skew), ms. */
const WINDOW_SLACK_MS = 5000;
/**
 * Retry-After is whole seconds: a target may round its real wait down or to nearest. A request refused after waiting
 * Retry-After is evidence of a wait that is too short only when it waited this much more (a little under the 1000 ms
 * the scenarios add, for timer jitter).
 */
export const ROUNDING_MS = 950;

// ---------------------------------------------------------------------------------------------------------------
// Small readings of an exchange

/** A rate-limit header as a number (null when absent or not an integer). */
const rl = rateLimitNumber;

export const isAccepted = (ex: Exchange): boolean => {
  const s = statusOf(ex);
  return s !== null && s >= 200 && s < 300;
};

/** Refill that elapsed time can explain: `limit` requests per window, rounded down. */
export function refillAllowance(elapsedMs: number, limit: number, windowSeconds: number): number {
  return Math.max(0, Math.floor((Math.max(0, elapsedMs) * limit) / (windowSeconds * 1000)));
}

/**
 * How precisely a span between two of the run's requests is known, ms: the target's clock and this machine's each read
 * whole milliseconds at either end.
 */
export const SPAN_PRECISION_MS = 2;

/**
 * The most requests a correct limiter of any kind may accept beyond a reported Remaining R over a span of `elapsedMs`
 * (R + this is the bound), whether or not its headers show refill (a Reset that never moves shows none). A continuous
 * limiter (token bucket, sliding window) refills up to `limit` per window; its Remaining is the whole requests left,
 * so up to one token's fraction is unreported: with T in [R, R + 1) at the first request and x = refill over the span,
 * the n-th request is accepted only if T + x ≥ n, so n < R + 1 + x, i.e. n ≤ R + ⌈x⌉. The span is the client's
 * (from the first request's start to the last answer), which holds the target's, give or take each clock's precision.
 */
export function burstAllowance(elapsedMs: number, limit: number, windowSeconds: number): number {
  return Math.ceil(refillOver(elapsedMs, limit, windowSeconds) - 1e-9);
}

/** The refill of a span, clock precision included: what `burstAllowance` rounds up. */
const refillOver = (elapsedMs: number, limit: number, windowSeconds: number): number =>
  ((Math.max(0, elapsedMs) + SPAN_PRECISION_MS) * limit) / (windowSeconds * 1000);

/** The arithmetic of `burstAllowance`, for a finding's message. */
export function burstAllowanceWords(elapsedMs: number, limit: number, windowSeconds: number): string {
  const x = refillOver(elapsedMs, limit, windowSeconds);
  return `⌈(${Math.round(Math.max(0, elapsedMs))} + ${SPAN_PRECISION_MS}) ms × ${limit} / ${windowSeconds} s⌉ = ⌈${x.toFixed(3)}⌉ = ${burstAllowance(elapsedMs, limit, windowSeconds)}: the refill of the span, its clock precision and the fraction of a token Remaining does not report`;
}

/** The longest Retry-After the suites wait for: one window and its slack. Beyond it: the day's quota or a ban. */
export const maxRetryAfterWaitMs = (windowSeconds: number): number => windowSeconds * 1000 + WINDOW_SLACK_MS;

/**
 * Why a 429 is not the minute window's (the daily quota, or a ban), or null when nothing says so: its Retry-After or
 * its Reset lies beyond one window, or its Limit is the plan's requests per day. Such a refusal says nothing about
 * the minute limit, so the suites record it and stop measuring the key.
 */
export function notMinuteRefusal(
  ex: Exchange,
  windowSeconds: number,
  perMinute: number,
  perDay: number | null,
): string | null {
  if (statusOf(ex) !== 429) return null;
  const beyond = maxRetryAfterWaitMs(windowSeconds);
  const ra = retryAfterMs(ex);
  if (ra !== null && ra > beyond) return `Retry-After ${Math.round(ra / 1000)} s, beyond one ${windowSeconds} s window`;
  // Only a plausible epoch-seconds Reset: one in milliseconds is another check's violation, not a long wait.
  const resetAt = resetEpochMs(rl(ex, 'reset'));
  if (resetAt !== null) {
    const ref = responseDate(ex) ?? ex.startedAt + ex.durationMs;
    if (resetAt - ref > beyond)
      return `X-RateLimit-Reset ${Math.round((resetAt - ref) / 1000)} s ahead, beyond one ${windowSeconds} s window`;
  }
  const limit = rl(ex, 'limit');
  if (perDay !== null && perDay !== perMinute && limit === perDay)
    return `X-RateLimit-Limit ${limit}, the plan's requests per day`;
  return null;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** A limit cause: the key's plan (or label), the window, what went wrong, the numbers judged and the Limit received. */
const limitCause = (
  plan: string,
  problem: LimitProblem,
  limit: number | null,
  observed: number | null,
  reportedBy: Exchange | null,
  window: 'minute' | 'day' = 'minute',
): Cause => ({
  kind: 'limit',
  plan,
  window,
  problem,
  limit,
  observed,
  reported: reportedBy ? rl(reportedBy, 'limit') : null,
});

// ---------------------------------------------------------------------------------------------------------------
// Evidence

/**
 * Counting from a rested key until its first rejection, when the target's headers showed no refill meanwhile and
 * described the minute window (Limit = the plan's per minute) on every response counted.
 */
export interface WindowAccount {
  /** The response from which the key was rested. */
  readonly rested: Exchange;
  /**
   * How rest was shown: 'headers' (Limit = L, Remaining ≥ L − 1), or 'idle' (the same Remaining on two probes with
   * two idle windows between: the limiter's own level at rest, since any algorithm forgets a request after 2 windows).
   */
  readonly by: 'headers' | 'idle';
  /** Requests accepted from `rested` (included) until the rejection, in-flight ones included. */
  readonly accepted: number;
  readonly rejection: Exchange;
  readonly spanMs: number;
}

export type NotStricterEvidence =
  | {
      readonly kind: 'paced';
      readonly plan: PlanName;
      readonly limit: number;
      readonly windowSeconds: number;
      /** Paced requests sent (the rejected one included) and the time they spanned. */
      readonly sent: number;
      readonly spanMs: number;
      /** The first rejection (429/503) of the paced phase, or null. */
      readonly rejection: Exchange | null;
      readonly previous: Exchange | null;
      /** Pacing began from a key shown rested (see WindowAccount.by); otherwise a 429 proves nothing. */
      readonly rested: boolean;
      /** The plan's requests per day, to tell the daily quota's 429 from the minute's (null: unknown). */
      readonly requestsPerDay: number | null;
    }
  | { readonly kind: 'window'; readonly plan: PlanName; readonly limit: number; readonly account: WindowAccount };

export type BurstEvidence =
  | {
      readonly kind: 'skipped';
      readonly plan: PlanName;
      readonly limit: number;
      readonly reason: string;
      readonly exchanges: readonly Exchange[];
    }
  | {
      readonly kind: 'burst';
      readonly plan: PlanName;
      readonly limit: number;
      readonly windowSeconds: number;
      /** The plan's requests per day, to tell the daily quota's 429 from the minute's (null: unknown). */
      readonly requestsPerDay: number | null;
      /**
       * The response that reported the known state, and its Remaining (null when it carried none). The Remaining is
       * used only when that response's Limit is the plan's per minute: otherwise it may describe the day window.
       */
      readonly known: Exchange;
      readonly knownRemaining: number | null;
      /** Burst exchanges after `known`, in the order they were sent. */
      readonly exchanges: readonly Exchange[];
      readonly accepted: number;
      /** The first response that was not accepted (429, or what came instead), or null if none within the cap. */
      readonly rejection: Exchange | null;
      /** From the start of the `known` request to the end of the last burst response. */
      readonly elapsedMs: number;
      readonly cap: number;
      /** Plan counting from a rested state, when applicable (see WindowAccount). */
      readonly account: WindowAccount | null;
      /** The window boundary the burst crossed, or null: then only refill explains more than Remaining. */
      readonly boundary: BurstBoundary | null;
    };

/**
 * A window boundary within a burst: the Reset the burst's starting response announced lay within the burst and later
 * answers carried a later one ('announced'), or Remaining restarted with a later Reset ('restart'). A fixed window may
 * then grant a fresh Limit after it: the burst is judged per window, never by restarting its count mid-burst (requests
 * in flight then would be counted on neither side, or on both).
 */
export interface BurstBoundary {
  /** The Reset announced at the burst's start, epoch seconds. */
  readonly announcedReset: number;
  readonly by: 'announced' | 'restart';
  /** Accepted requests answered with that Reset (or none), and with a later one. */
  readonly acceptedBefore: number;
  readonly acceptedAfter: number;
}

export interface ShapeEvidence {
  /** The first response that refused a request over the limit. */
  readonly exchange: Exchange;
}

export interface RecoveryEvidence {
  readonly plan: PlanName;
  readonly limit: number;
  readonly first429: Exchange;
  /** Retry-After of the first 429 in ms, or null when it had none valid (a fallback wait was used). */
  readonly retryAfterMs: number | null;
  /** 429s received from the first one (included) until the first recovery attempt. */
  readonly rejected: number;
  /** Requests sent after waiting: the first after Retry-After, the second (if any) after the next Retry-After. */
  readonly attempts: readonly { readonly exchange: Exchange; readonly waitedMs: number }[];
  /** The history showed no refill within a window (a fixed window, as far as the headers tell). */
  readonly fixedLike: boolean;
}

export type PerKeyEvidence =
  | {
      readonly kind: 'limits';
      readonly keys: readonly {
        readonly plan: PlanName;
        readonly limits: PlanLimits;
        readonly reported: number | null;
        readonly exchange: Exchange | null;
      }[];
    }
  | IsolationEvidence;

export interface DailyQuotaEvidence {
  readonly plan: PlanName;
  readonly limits: PlanLimits;
  readonly sent: number;
  readonly accepted: number;
  /** The daily 429 (one that came while the minute window had room), or null. */
  readonly rejection: Exchange | null;
  /** The first response whose headers described the day window (Limit = requests per day), and accepted after it. */
  readonly known: Exchange | null;
  readonly acceptedAfterKnown: number;
  /** The minute window's last Reset seen (epoch s), to tell the day boundary from it. */
  readonly minuteReset: number | null;
  readonly elapsedMs: number;
  /** Why the run stopped without a daily 429 ('too-long': refused up front, nothing sent). */
  readonly stopped: QuotaStop | null;
  /** What to say about a stop (e.g. the projected duration of a run refused up front). */
  readonly note?: string;
  /** The part of the run sent over several connections at once (absent: not sent, and `parallelSkipped` says why). */
  readonly parallel?: QuotaParallel;
  readonly parallelSkipped?: string;
}

/**
 * The tail of a quota run sent over several connections at once, from a quiet key whose answer described the day
 * window (Limit = requests per day): a limiter that loses increments under concurrency accepts more than that Remaining.
 * Counted once every request of it has settled.
 */
export interface QuotaParallel {
  /** The reading it started from: sent with nothing of the key in flight, after the minute window rested. */
  readonly from: Exchange;
  readonly connections: number;
  readonly sent: number;
  readonly accepted: number;
  /** From `from`'s start to the last answer. */
  readonly spanMs: number;
  /** The last accepted answer, for the finding. */
  readonly lastAccepted: Exchange | null;
  /** Why its count cannot be judged (a request of it failed, the day window restarted during it), or null. */
  readonly unjudged: string | null;
}

/**
 * What a day limiter may accept beyond a Remaining R over `elapsedMs`: it may refill continuously too, so what
 * elapsed time explains, plus one for fractional state.
 */
export function dailyAllowance(elapsedMs: number, perDay: number): number {
  return Math.floor((Math.max(0, elapsedMs) * perDay) / (DAY_S * 1000)) + 1;
}

export type QuotaStop = 'requests' | 'time' | 'over-quota' | 'too-long';

export interface BanEvidence {
  readonly plan: PlanName;
  readonly reason: string;
  readonly exchanges: readonly Exchange[];
}

export interface UnauthenticatedEvidence {
  readonly exchanges: readonly Exchange[];
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

export const notStricterThanPlan: Check<NotStricterEvidence, 'rl-not-stricter-than-plan'> = defineCheck({
  id: 'rl-not-stricter-than-plan',
  clauses: ['8-plan-limits'],
  levels: ['violation', 'observation'],
  causes: ['limit'],
  area: 'rate-limit',
  title: "A key pacing itself under its plan's rate gets no 429, and a rested key gets its plan's whole limit.",
  appliesTo: {
    what: 'a key paced under its plan, or counted from rest to its refusal',
    test: (ev) => ev.kind === 'paced' || !!ev.account,
  },
  run: (ev) => {
    if (ev.kind === 'paced') {
      if (!ev.rejection) return [];
      const s = statusOf(ev.rejection);
      const prev = ev.previous ? rl(ev.previous, 'remaining') : null;
      const daily = notMinuteRefusal(ev.rejection, ev.windowSeconds, ev.limit, ev.requestsPerDay ?? null);
      if (daily !== null) {
        return [
          observation(
            notStricterThanPlan,
            [ev.rejection],
            `${ev.plan} key: daily quota exhausted (or the key banned) on paced request ${ev.sent}: ${daily}\nnot a minute-limit refusal: the key was not measured further`,
            { operation: 'listPets' },
          ),
        ];
      }
      if (ev.rested !== true) {
        return [
          observation(
            notStricterThanPlan,
            ev.previous ? [ev.previous, ev.rejection] : [ev.rejection],
            `${ev.plan} key: received ${s} on paced request ${ev.sent} at 0.9 × ${ev.limit} per ${ev.windowSeconds} s, but the key was not shown rested before pacing (its headers did not describe a rested minute window)\nearlier use of the key can explain it: not judged`,
            { operation: 'listPets' },
          ),
        ];
      }
      return [
        finding(
          notStricterThanPlan,
          ev.previous ? [ev.previous, ev.rejection] : [ev.rejection],
          {
            // The cause's count is the paced requests sent, the refused one included.
            on: `requests paced at 0.9 × ${ev.limit} per ${ev.windowSeconds} s over ${secs(ev.spanMs)}, the last answered ${s}${prev !== null ? ` (previous Remaining ${prev})` : ''}`,
            because: `the spec documents ${ev.limit} requests per minute for the ${ev.plan} plan`,
          },
          {
            expected: `no 429 below ${ev.limit} per ${ev.windowSeconds} s`,
            actual: `${s} at request ${ev.sent}`,
            causes: [limitCause(ev.plan, 'stricter', ev.limit, ev.sent, ev.rejection)],
          },
        ),
      ];
    }
    if (ev.kind !== 'window' || !ev.account) return [];
    const a = ev.account;
    // Counting against the plan needs the minute window's own headers (a Limit that is the day's says nothing here).
    if (a.accepted >= ev.limit || rl(a.rested, 'limit') !== ev.limit) return [];
    const how =
      a.by === 'idle'
        ? `, rested after two idle windows at Remaining ${rl(a.rested, 'remaining')}, unless another client used this key`
        : '';
    return [
      finding(
        notStricterThanPlan,
        [a.rested, a.rejection],
        {
          on: `requests accepted from rest within one window before ${statusOf(a.rejection)} (no refill shown, ${secs(a.spanMs)}${how})`,
          because: `the spec documents ${ev.limit} requests per minute for the ${ev.plan} plan`,
        },
        {
          expected: `${ev.limit} accepted`,
          actual: `${a.accepted} accepted`,
          causes: [limitCause(ev.plan, 'stricter', ev.limit, a.accepted, a.rested)],
        },
      ),
    ];
  },
});

export const burstEnforced: Check<BurstEvidence, 'rl-burst-enforced'> = defineCheck({
  id: 'rl-burst-enforced',
  clauses: ['8-rule-1-429'],
  levels: ['violation', 'observation'],
  causes: ['limit'],
  area: 'rate-limit',
  title: 'From a known Remaining R, a prompt burst is accepted R times (plus what refill explains), then gets 429.',
  // A burst that never got its refusal did not exceed the limit within a window: it proves no enforcement.
  appliesTo: {
    what: 'a key whose limit was exceeded within a window (a burst refused)',
    test: (ev) => ev.kind === 'burst' && ev.rejection !== null,
  },
  run: (ev) => {
    if (ev.kind === 'skipped') {
      return [
        observation(burstEnforced, ev.exchanges, `${ev.plan} key (${ev.limit} per minute) not measured: ${ev.reason}`, {
          operation: 'listPets',
          keyPlan: ev.plan,
        }),
      ];
    }
    if (ev.kind !== 'burst' || !ev.known || !Array.isArray(ev.exchanges)) return [];
    const L = ev.limit;
    const daily = ev.rejection ? notMinuteRefusal(ev.rejection, ev.windowSeconds, L, ev.requestsPerDay ?? null) : null;
    if (daily !== null) {
      return [
        observation(
          burstEnforced,
          [ev.known, ev.rejection!],
          `${ev.plan} key: daily quota exhausted (or the key banned) after ${ev.accepted} accepted in its burst: ${daily}\nnot a minute-limit refusal: the key was not measured further`,
          { operation: 'listPets' },
        ),
      ];
    }
    const out: Finding[] = [];
    // Whatever the headers showed (a Reset that never moves shows no refill): what any correct limiter may grant.
    const allowance = burstAllowance(ev.elapsedMs, L, ev.windowSeconds);
    // "The limit in force" may be the day's: Remaining counts the minute window only when Limit is the plan's minute.
    const knownLimit = rl(ev.known, 'limit');
    const R = knownLimit === L ? ev.knownRemaining : null;
    const all = [ev.known, ...ev.exchanges];
    if (R === null) {
      out.push(...againstPlanOnly(ev, allowance, knownLimit, all));
    } else {
      const b = ev.boundary ?? null;
      // Across a window boundary: the old window's Remaining, then a fresh Limit (or, were the burst longer than a
      // window, what refill explains, if more).
      const upper = b ? R + Math.max(L, allowance) : R + allowance;
      const crossing = b
        ? `${b.acceptedBefore} accepted with the Reset ${b.announcedReset} announced at its start, ${b.acceptedAfter} with a later one: ${b.by === 'announced' ? 'a window boundary it announced' : 'Remaining restarted at a window boundary'}`
        : '';
      // What follows the count the causes say (`observed`: the requests accepted).
      const since = b
        ? `accepted in ${secs(ev.elapsedMs)} from Remaining ${R} (${crossing})`
        : `accepted in ${secs(ev.elapsedMs)} from Remaining ${R} (refill allowance ${allowance})`;
      const detail = `${ev.accepted} ${since}`;
      const arithmetic = b
        ? L >= allowance
          ? `at most Remaining ${R} until the boundary + a fresh Limit ${L} after it = ${upper}`
          : `at most Remaining ${R} + allowance ${burstAllowanceWords(ev.elapsedMs, L, ev.windowSeconds)} (more than a fresh Limit ${L}) = ${upper}`
        : `at most Remaining ${R} + allowance ${burstAllowanceWords(ev.elapsedMs, L, ev.windowSeconds)} = ${upper}`;
      if (!ev.rejection) {
        if (ev.accepted > upper) {
          out.push(
            finding(
              burstEnforced,
              all.slice(0, 1).concat(all.slice(-1)),
              {
                lead: 'received no 429:',
                on: `${since}, cap ${ev.cap}`,
                because: `${arithmetic}\nthe spec documents 429 for a request over the limit (${L} per minute)`,
              },
              {
                expected: `429 after at most ${upper}`,
                actual: `${ev.accepted} accepted, no 429`,
                causes: [limitCause(ev.plan, 'not-enforced', L, ev.accepted, ev.known)],
              },
            ),
          );
        } else {
          out.push(
            observation(
              burstEnforced,
              [ev.known],
              `${ev.plan} key: no 429 within the cap of ${ev.cap} requests, but refill can explain the ${ev.accepted} accepted (${detail}): not measured\nthe burst was too slow for this limit and window`,
            ),
          );
        }
      } else if (ev.accepted < R) {
        out.push(
          finding(
            burstEnforced,
            [ev.known, ev.rejection],
            {
              on: `accepted from its reported Remaining ${R} (read with none of its requests in flight), then ${statusOf(ev.rejection)}`,
              because: `${ev.accepted} < ${R}: stricter than it reported\nthe spec documents Remaining as the requests remaining in the window`,
            },
            {
              expected: `at least ${R} accepted`,
              actual: `${ev.accepted} accepted`,
              causes: [limitCause(ev.plan, 'stricter', L, ev.accepted, ev.known)],
            },
          ),
        );
      } else if (ev.accepted > upper) {
        out.push(
          finding(
            burstEnforced,
            [ev.known, ev.rejection],
            {
              on: `${since} before the first ${statusOf(ev.rejection)}`,
              because: `${arithmetic}\nthe spec documents 429 for a request over the limit (${L} per minute)`,
            },
            {
              expected: `at most ${upper} accepted`,
              actual: `${ev.accepted} accepted`,
              causes: [limitCause(ev.plan, 'not-enforced', L, ev.accepted, ev.known)],
            },
          ),
        );
      }
    }
    const a = ev.account;
    if (a && a.accepted > L && rl(a.rested, 'limit') === L) {
      out.push(
        finding(
          burstEnforced,
          [a.rested, a.rejection],
          {
            on: `requests accepted from rest within one window before the first ${statusOf(a.rejection)} (no refill shown, ${secs(a.spanMs)})`,
            because: `the spec documents ${L} requests per minute for the ${ev.plan} plan`,
          },
          {
            expected: `at most ${L} accepted`,
            actual: `${a.accepted} accepted`,
            causes: [limitCause(ev.plan, 'not-enforced', L, a.accepted, a.rested)],
          },
        ),
      );
    }
    return out;
  },
});

/**
 * A burst whose starting headers do not describe the minute window (Limit is not the plan's per minute, or no
 * Remaining): only the plan bounds it. From an unknown state, a fixed window crossed during the burst may admit up
 * to 2 × L (the rest of the old window, then a new one), and nothing in these headers shows the crossing; so only
 * more than 2 × L plus refill is a violation, and more than L plus refill an observation.
 */
function againstPlanOnly(
  ev: Extract<BurstEvidence, { kind: 'burst' }>,
  allowance: number,
  knownLimit: number | null,
  all: readonly Exchange[],
): Finding[] {
  const L = ev.limit;
  const hard = 2 * L + allowance;
  const soft = L + allowance;
  const why =
    knownLimit !== null && knownLimit !== L
      ? `its headers describe another window (Limit ${knownLimit}, not the plan's ${L})`
      : 'its headers gave no Remaining';
  const judged = `${why}, so it is judged against the plan only (refill allowance ${allowance}, a window boundary possibly crossed)`;
  const detail = `${ev.accepted} accepted in ${secs(ev.elapsedMs)}; ${judged}`;
  if (ev.accepted > hard) {
    const exs = ev.rejection ? [ev.known, ev.rejection] : all.slice(0, 1).concat(all.slice(-1));
    return [
      finding(
        burstEnforced,
        exs,
        {
          lead: ev.rejection ? '' : 'received no 429:',
          on: `accepted in ${secs(ev.elapsedMs)}${ev.rejection ? ` before the first ${statusOf(ev.rejection)}` : ''}; ${judged}`,
          because: `the spec documents 429 for a request over the limit (${L} per minute): even across a window boundary at most ${hard}`,
        },
        {
          expected: `429 after at most ${hard}`,
          actual: `${ev.accepted} accepted${ev.rejection ? '' : ', no 429'}`,
          causes: [limitCause(ev.plan, 'not-enforced', L, ev.accepted, ev.known)],
        },
      ),
    ];
  }
  if (!ev.rejection)
    return [
      observation(
        burstEnforced,
        [ev.known],
        `${ev.plan} key: no 429 within the cap of ${ev.cap} requests (${detail}): not measured`,
      ),
    ];
  if (ev.accepted > soft)
    return [
      observation(
        burstEnforced,
        [ev.known, ev.rejection],
        `${ev.plan} key: 429 after ${detail}: more than the plan's ${L} unless a window boundary was crossed, which these headers cannot show`,
      ),
    ];
  return [];
}

export const shape429: Check<ShapeEvidence, 'rl-429-shape'> = defineCheck({
  id: 'rl-429-shape',
  clauses: ['8-rule-1-429'],
  levels: ['violation'],
  causes: ['status'],
  area: 'rate-limit',
  title: 'A request over the limit gets 429 (its Retry-After, headers and body are judged by the response checks).',
  appliesTo: {
    what: 'answers to a key over its limit: the refusal ending a burst or a daily quota, a probe after a 429',
    test: ({ exchange: ex }) => statusOf(ex) !== null,
  },
  run: ({ exchange: ex }) => {
    const status = statusOf(ex);
    if (status === null || status === 429) return [];
    return [
      finding(
        shape429,
        ex,
        {
          on: 'where the key was over its limit',
          because: 'the spec documents 429 Too Many Requests (section 8 rule 1)',
        },
        { expected: '429', actual: String(status), causes: [{ kind: 'status', status, expected: [429] }] },
      ),
    ];
  },
});

function resetMovedLater(later: Exchange, earlier: Exchange): boolean | null {
  const a = rl(later, 'reset');
  const b = rl(earlier, 'reset');
  return a === null || b === null ? null : a > b;
}

export const retryAfterHonoured: Check<RecoveryEvidence, 'rl-retry-after-honoured'> = defineCheck({
  id: 'rl-retry-after-honoured',
  clauses: ['8-rule-2-retry-after'],
  levels: ['violation', 'observation'],
  causes: ['limit'],
  area: 'rate-limit',
  title: 'After waiting what Retry-After says, a request is accepted.',
  appliesTo: {
    what: "a key's first request after waiting a 429's Retry-After, or its reset",
    test: (ev) => Array.isArray(ev.attempts) && !!ev.first429 && !!ev.attempts[0],
  },
  run: (ev) => {
    if (!Array.isArray(ev.attempts) || !ev.first429) return [];
    const [a0, a1] = ev.attempts;
    if (!a0 || isAccepted(a0.exchange) || statusOf(a0.exchange) !== 429) return [];
    const ra =
      ev.retryAfterMs === null
        ? 'no valid Retry-After (waited for the reset instead)'
        : `Retry-After ${ev.retryAfterMs / 1000} s`;
    // How long it waited and for what, after the cause's "refused after waiting Retry-After".
    const waited =
      ev.retryAfterMs === null
        ? `(none valid: waited ${secs(a0.waitedMs)} for the reset)`
        : `(${ev.retryAfterMs / 1000} s: waited ${secs(a0.waitedMs)})`;
    // Whole-second Retry-After may understate the real wait by up to a second: only a wait beyond that is evidence.
    const beyond0 = ev.retryAfterMs === null || a0.waitedMs >= ev.retryAfterMs + ROUNDING_MS;
    const ra1 = retryAfterMs(a0.exchange);
    const beyond1 = !!a1 && (ra1 === null || a1.waitedMs >= ra1 + ROUNDING_MS);
    if (!beyond0 || (a1 && statusOf(a1.exchange) === 429 && !beyond1)) {
      return [
        observation(
          retryAfterHonoured,
          [ev.first429, a0.exchange],
          `${ev.plan} key: 429 after waiting ${ra} (${secs(a0.waitedMs)}), within Retry-After's one-second rounding\nnot judged: a wait rounded to whole seconds may be up to a second short`,
        ),
      ];
    }
    if (a1 && statusOf(a1.exchange) === 429) {
      return [
        finding(
          retryAfterHonoured,
          [ev.first429, a0.exchange, a1.exchange],
          {
            on: `${waited}, and again after the next one (waited ${secs(a1.waitedMs)})`,
            because:
              'the spec documents waiting Retry-After before retrying: the window never reset or Retry-After is too short',
          },
          {
            expected: 'a request accepted after Retry-After',
            actual: '429 twice',
            causes: [limitCause(ev.plan, 'retry-after-short', ev.limit, null, ev.first429)],
          },
        ),
      ];
    }
    // Still limited, but the target's own Reset did not move: it was not extended, Retry-After was simply too short.
    if (
      a1 &&
      isAccepted(a1.exchange) &&
      ev.retryAfterMs !== null &&
      resetMovedLater(a0.exchange, ev.first429) === false
    ) {
      return [
        finding(
          retryAfterHonoured,
          [ev.first429, a0.exchange],
          {
            on: `${waited}, its X-RateLimit-Reset still ${rl(a0.exchange, 'reset')}`,
            because: `the Reset had not moved: the window was not extended\nthe spec documents waiting Retry-After before retrying: Retry-After is shorter than the real wait`,
          },
          {
            expected: 'accepted after Retry-After',
            actual: `429 after ${secs(a0.waitedMs)}`,
            causes: [limitCause(ev.plan, 'retry-after-short', ev.limit, null, ev.first429)],
          },
        ),
      ];
    }
    return [];
  },
});

export const rejectedNotCounted: Check<RecoveryEvidence, 'rl-rejected-not-counted'> = defineCheck({
  id: 'rl-rejected-not-counted',
  clauses: ['8-header-remaining'],
  levels: ['violation', 'observation'],
  causes: ['limit'],
  area: 'rate-limit',
  title: 'Rejected requests do not consume quota: the window does not extend under 429s.',
  appliesTo: {
    what: "a key's requests after waiting Retry-After, when several of its requests were refused before",
    test: (ev) => Array.isArray(ev.attempts) && !!ev.first429 && !!ev.attempts[0],
  },
  run: (ev) => {
    if (!Array.isArray(ev.attempts) || !ev.first429) return [];
    const [a0, a1] = ev.attempts;
    if (!a0) return [];
    const s0 = statusOf(a0.exchange);
    if (s0 === 429 && a1 && isAccepted(a1.exchange) && resetMovedLater(a0.exchange, ev.first429) === true) {
      const ra2 = retryAfterMs(a0.exchange);
      const message = `received 429 for the ${ev.plan} key after waiting its Retry-After, with X-RateLimit-Reset moved from ${rl(ev.first429, 'reset')} to ${rl(a0.exchange, 'reset')} after ${ev.rejected} rejected requests`;
      const withinRounding = ev.retryAfterMs !== null && a0.waitedMs < ev.retryAfterMs + ROUNDING_MS;
      if ((ra2 !== null && ra2 <= 1000) || withinRounding) {
        // One second is the granularity of Retry-After: a continuous limiter may round this way.
        const why = withinRounding
          ? `waited ${secs(a0.waitedMs)} for Retry-After ${ev.retryAfterMs! / 1000} s`
          : 'the next Retry-After was ≤ 1 s';
        return [
          observation(
            rejectedNotCounted,
            [ev.first429, a0.exchange],
            `${message}; ${why}\nwithin Retry-After's one-second granularity: not judged`,
          ),
        ];
      }
      return [
        finding(
          rejectedNotCounted,
          [ev.first429, a0.exchange, a1.exchange],
          {
            // The cause's count is the rejected requests.
            on: `rejected, then X-RateLimit-Reset moved from ${rl(ev.first429, 'reset')} to ${rl(a0.exchange, 'reset')} and 429 after waiting its Retry-After`,
            because: 'the spec documents Remaining as the requests remaining: rejected requests extended the window',
          },
          {
            expected: 'the window unchanged by rejected requests',
            actual: `Reset ${rl(ev.first429, 'reset')} → ${rl(a0.exchange, 'reset')}`,
            causes: [limitCause(ev.plan, 'rejected-counted', ev.limit, ev.rejected, ev.first429)],
          },
        ),
      ];
    }
    // A fresh fixed window should start full: one that starts short by exactly the rejected requests was charged them.
    if (
      isAccepted(a0.exchange) &&
      ev.fixedLike &&
      ev.rejected >= 1 &&
      resetMovedLater(a0.exchange, ev.first429) === true
    ) {
      const remaining = rl(a0.exchange, 'remaining');
      if (rl(a0.exchange, 'limit') === ev.limit && remaining === ev.limit - 1 - ev.rejected) {
        return [
          finding(
            rejectedNotCounted,
            [ev.first429, a0.exchange],
            {
              // The cause's count is the Remaining received.
              on: `remaining on the first request of its new window (Limit ${ev.limit}), after ${ev.rejected} rejected requests`,
              because: `the spec documents Remaining as the requests remaining (${ev.limit - 1} here): the rejected requests were charged to the new window`,
            },
            {
              expected: `Remaining ${ev.limit - 1}`,
              actual: `Remaining ${remaining}`,
              causes: [limitCause(ev.plan, 'rejected-counted', ev.limit, remaining, a0.exchange)],
            },
          ),
        ];
      }
    }
    return [];
  },
});

export const perKey: Check<PerKeyEvidence, 'rl-per-key'> = defineCheck({
  id: 'rl-per-key',
  clauses: ['8-plan-limits'],
  levels: ['violation'],
  causes: ['limit'],
  area: 'rate-limit',
  title: "Limits are per key: one key's use does not limit another, and each key reports its own plan's limit.",
  // The scenario hands it only the keys' reported limits side by side, and a key's readings around other keys' requests.
  appliesTo: {
    what: "the limits the keys reported side by side, and a key's Remaining across other keys' requests",
    test: () => true,
  },
  run: (ev) => {
    if (ev.kind === 'isolation') return isolationFindings(ev);
    const out: Finding[] = [];
    if (ev.kind !== 'limits' || !Array.isArray(ev.keys)) return [];
    const ks = ev.keys;
    for (let i = 0; i < ks.length; i++) {
      for (let j = i + 1; j < ks.length; j++) {
        const a = ks[i]!;
        const b = ks[j]!;
        if (a.reported === null || a.reported !== b.reported) continue;
        const aSet = [a.limits.requestsPerMinute, a.limits.requestsPerDay];
        const bSet = [b.limits.requestsPerMinute, b.limits.requestsPerDay];
        // Two plans that share a number may rightly report it both.
        if (aSet.some((n) => bSet.includes(n))) continue;
        const exs = [a.exchange, b.exchange].filter((x): x is Exchange => x !== null);
        // The key whose plan does not have the Limit both reported is the one at fault (the first when neither has).
        const wrong =
          [a, b].find((k) => !(k.limits.requestsPerMinute === k.reported || k.limits.requestsPerDay === k.reported)) ??
          a;
        out.push(
          finding(
            perKey,
            exs,
            {
              lead: `the ${a.plan} and the ${b.plan} key received the same X-RateLimit-Limit:`,
              because: `the spec documents ${a.limits.requestsPerMinute} and ${b.limits.requestsPerMinute} per minute for these plans`,
            },
            {
              expected: `${a.limits.requestsPerMinute} and ${b.limits.requestsPerMinute}`,
              actual: `${a.reported} and ${b.reported}`,
              operation: 'listPets',
              causes: [
                {
                  kind: 'limit',
                  plan: wrong.plan,
                  window: 'minute',
                  problem: 'not-per-key',
                  limit: wrong.limits.requestsPerMinute,
                  observed: wrong.reported,
                  reported: wrong.reported,
                },
              ],
            },
          ),
        );
      }
    }
    return out;
  },
});

/**
 * Whether the run's refusal came before the day's quota could have run out and is no 429: a 5xx, another status or a
 * transport failure on the way (the quota's own answer comes once what the key reported, or the plan's quota, is used).
 */
function cutShort(ev: DailyQuotaEvidence): boolean {
  const r = ev.rejection;
  if (!r || statusOf(r) === 429) return false;
  const R = ev.known ? rl(ev.known, 'remaining') : null;
  return R !== null ? ev.acceptedAfterKnown < R : ev.accepted < ev.limits.requestsPerDay;
}

export const dailyQuota: Check<DailyQuotaEvidence, 'rl-daily-quota'> = defineCheck({
  id: 'rl-daily-quota',
  clauses: ['8-plan-limits'],
  levels: ['violation', 'observation'],
  causes: ['limit', 'status', 'transport'],
  area: 'rate-limit',
  title: "A key gets about its plan's requests per day, then 429 with Retry-After and a Reset at the day's end.",
  appliesTo: {
    what: 'a key whose daily quota was exceeded (a daily refusal)',
    test: (ev) => !!ev.rejection && !cutShort(ev),
  },
  run: (ev) => {
    if (!ev.limits || typeof ev.accepted !== 'number') return [];
    const D = ev.limits.requestsPerDay;
    if (ev.stopped === 'too-long') {
      return [
        observation(
          dailyQuota,
          [],
          `${ev.plan} key: daily quota not measured: ${ev.note ?? 'the run would take too long'}`,
          { operation: 'listPets', keyPlan: ev.plan },
        ),
      ];
    }
    const allowance = dailyAllowance(ev.elapsedMs, D);
    // The parallel part, judged by the same rule from its own reading: more accepted than its Remaining allows.
    const out: Finding[] = parallelFindings(ev);
    const counted = ev.known
      ? `${ev.acceptedAfterKnown} accepted after Remaining ${rl(ev.known, 'remaining')} of the day window`
      : `${ev.accepted} accepted`;
    // One defect, one finding: when the parallel part already showed too many accepted, the whole run's count is not
    // judged again for it.
    const overParallel = out.some((f) => f.level === 'violation');
    if (!ev.rejection) {
      if (overParallel) return out;
      const over = ev.known
        ? ev.acceptedAfterKnown > (rl(ev.known, 'remaining') ?? D) + allowance
        : ev.accepted > D + allowance;
      if (over) {
        return [
          ...out,
          finding(
            dailyQuota,
            ev.known ? [ev.known] : [],
            {
              lead: 'received no daily 429:',
              on: `accepted (${ev.sent} sent in ${secs(ev.elapsedMs)})${ev.known ? `, ${ev.acceptedAfterKnown} of them after Remaining ${rl(ev.known, 'remaining')} of the day window` : ''}`,
              because: `the spec documents ${D} requests per day for the ${ev.plan} plan`,
            },
            {
              expected: `429 after at most ${D + allowance}`,
              actual: `${ev.accepted} accepted`,
              operation: 'listPets',
              keyPlan: ev.plan,
              causes: [limitCause(ev.plan, 'not-enforced', D, ev.accepted, ev.known, 'day')],
            },
          ),
        ];
      }
      return [
        ...out,
        observation(
          dailyQuota,
          [],
          `${ev.plan} key: stopped at the ${ev.stopped ?? 'request'} cap after ${ev.accepted} accepted without a daily 429: not measured${ev.note ? ` (${ev.note})` : ''}`,
          { operation: 'listPets', keyPlan: ev.plan },
        ),
      ];
    }
    const r = ev.rejection;
    const status = statusOf(r);
    if (cutShort(ev)) {
      // Another answer before the day's quota could have run out says nothing of the quota: no-5xx, transport-ok or
      // the status checks judge that answer; blaming the quota for it would be a false failure.
      return [
        ...out,
        observation(
          dailyQuota,
          [r],
          `${ev.plan} key: daily quota not measured: the run was stopped by ${status ?? r.error?.code ?? 'no answer'} after ${counted}, before the quota could have run out`,
          { operation: 'listPets', keyPlan: ev.plan },
        ),
      ];
    }
    if (status !== 429) {
      out.push(
        finding(
          dailyQuota,
          r,
          {
            on: `when the ${ev.plan} key's daily quota ran out`,
            because: 'the spec documents 429 for a request over the limit',
          },
          {
            expected: '429',
            actual: String(status),
            causes: [
              status === null
                ? { kind: 'transport', code: r.error?.code ?? 'no response' }
                : { kind: 'status', status, expected: [429] },
            ],
          },
        ),
      );
      return out;
    }
    if (ev.known) {
      const R = rl(ev.known, 'remaining');
      if (R !== null && ev.acceptedAfterKnown < R) {
        out.push(
          finding(
            dailyQuota,
            [ev.known, r],
            {
              on: `accepted after Remaining ${R} of the day window, then the daily 429`,
              because: `stricter than it reported\nthe spec documents ${D} requests per day for the ${ev.plan} plan`,
            },
            {
              expected: `${R} accepted`,
              actual: `${ev.acceptedAfterKnown}`,
              causes: [limitCause(ev.plan, 'stricter', D, ev.acceptedAfterKnown, ev.known, 'day')],
            },
          ),
        );
      } else if (R !== null && ev.acceptedAfterKnown > R + allowance && !overParallel) {
        out.push(
          finding(
            dailyQuota,
            [ev.known, r],
            {
              on: `accepted after Remaining ${R} of the day window before the daily 429`,
              because: `the spec documents ${D} requests per day for the ${ev.plan} plan`,
            },
            {
              expected: `at most ${R + allowance}`,
              actual: `${ev.acceptedAfterKnown}`,
              causes: [limitCause(ev.plan, 'not-enforced', D, ev.acceptedAfterKnown, ev.known, 'day')],
            },
          ),
        );
      }
    } else if (ev.accepted > D + allowance && !overParallel) {
      out.push(
        finding(
          dailyQuota,
          r,
          {
            on: 'accepted before the daily 429',
            because: `the spec documents ${D} requests per day for the ${ev.plan} plan`,
          },
          {
            expected: `at most ${D + allowance}`,
            actual: String(ev.accepted),
            causes: [limitCause(ev.plan, 'not-enforced', D, ev.accepted, r, 'day')],
          },
        ),
      );
    } else if (ev.accepted < D) {
      out.push(
        observation(
          dailyQuota,
          r,
          `${ev.plan} key: daily 429 after ${ev.accepted} accepted (plan ${D}); this key's earlier use today is unknown`,
        ),
      );
    }
    // Retry-After, the body and a Reset outside epoch seconds are the response checks' (each fact judged once): here
    // only what the day window adds, a Reset that comes before the minute window's own.
    const reset = rl(r, 'reset');
    const ref = Math.floor((responseDate(r) ?? r.startedAt) / 1000);
    const plausible = reset !== null && reset >= ref - SKEW_S && reset <= ref + DAY_S + SKEW_S;
    if (plausible && ev.minuteReset !== null && reset < ev.minuteReset) {
      out.push(
        finding(
          dailyQuota,
          r,
          {
            // The cause's value is the Reset received.
            on: `(X-RateLimit-Reset of the daily 429, ${reset - ref} s ahead; the minute window's reset ${ev.minuteReset})`,
            because: `the spec documents a reset of the daily limit: at the day boundary, within ${DAY_S} s`,
          },
          {
            expected: `between ${ev.minuteReset} and ${ref + DAY_S}`,
            actual: String(reset),
            causes: [limitCause(ev.plan, 'reset', D, reset, r, 'day')],
          },
        ),
      );
    }
    return out;
  },
});

/** The parallel part of a quota run judged: at most its reading's Remaining plus the day's allowance over its span. */
function parallelFindings(ev: DailyQuotaEvidence): Finding[] {
  const D = ev.limits.requestsPerDay;
  const p = ev.parallel;
  const at = { operation: 'listPets', keyPlan: ev.plan } as const;
  if (!p) {
    return ev.parallelSkipped
      ? [
          observation(
            dailyQuota,
            [],
            `${ev.plan} key: daily quota under concurrency not measured: ${ev.parallelSkipped}`,
            at,
          ),
        ]
      : [];
  }
  const R = rl(p.from, 'remaining');
  const spread = `of ${p.sent} sent over ${p.connections} connections at once in ${secs(p.spanMs)}`;
  const sent = `${p.accepted} accepted ${spread}`;
  if (R === null || p.unjudged !== null) {
    return [
      observation(
        dailyQuota,
        [p.from],
        `${ev.plan} key: daily quota under concurrency not judged: ${p.unjudged ?? 'its reading carried no Remaining'} (${sent})`,
        at,
      ),
    ];
  }
  const allow = dailyAllowance(p.spanMs, D);
  if (p.accepted <= R + allow) return [];
  return [
    finding(
      dailyQuota,
      p.lastAccepted ? [p.from, p.lastAccepted] : [p.from],
      {
        on: `accepted ${spread}, from Remaining ${R} of its day window read with nothing in flight`,
        because: `more than it allows (${R} + ${allow}, the refill its span explains plus one)\nthe spec documents ${D} requests per day for the ${ev.plan} plan`,
      },
      {
        expected: `at most ${R + allow} accepted`,
        actual: String(p.accepted),
        ...at,
        causes: [limitCause(ev.plan, 'not-enforced', D, p.accepted, p.from, 'day')],
      },
    ),
  ];
}

export const banObserved: Check<BanEvidence, 'rl-ban-observed'> = defineCheck({
  id: 'rl-ban-observed',
  clauses: ['8-rule-3-ban'],
  covers: ['5-ban', 'gap-8-ban-duration'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'rate-limit',
  title: 'Records a key that appears banned (429s that outlast Retry-After, or 401/403 for a key that worked).',
  appliesTo: {
    what: 'a key that appeared banned: 429s outlasting Retry-After, or 401/403 for a key that worked',
    test: (ev) => Array.isArray(ev.exchanges),
  },
  run: (ev) =>
    Array.isArray(ev.exchanges)
      ? [
          observation(
            banObserved,
            ev.exchanges,
            `the ${ev.plan} key appears banned: ${ev.reason}\nthe spec says a key may be temporarily banned after requests that follow a 429; its duration is not shown`,
            {
              operation: 'listPets',
              keyPlan: ev.plan,
              // The ban's duration is what the spec leaves open.
              causes: [{ kind: 'gap', clause: 'gap-8-ban-duration', answer: ev.reason }],
            },
          ),
        ]
      : [],
});

export const unauthenticatedRateLimited: Check<UnauthenticatedEvidence, 'rl-401-rate-limited'> = defineCheck({
  id: 'rl-401-rate-limited',
  clauses: ['gap-8-401-rate-limited'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'rate-limit',
  title: 'Records whether responses to an invalid key carry rate-limit headers or get 429.',
  appliesTo: {
    what: 'requests with an invalid key, for their rate-limit headers or a 429',
    test: ({ exchanges }) => Array.isArray(exchanges) && exchanges.length > 0,
  },
  run: ({ exchanges }) => {
    if (!Array.isArray(exchanges) || exchanges.length === 0) return [];
    const statuses = exchanges.map((e) => statusOf(e) ?? 'no answer');
    const withHeaders = exchanges.filter(
      (e) => rl(e, 'limit') !== null && rl(e, 'remaining') !== null && rl(e, 'reset') !== null,
    );
    const limited = statuses.filter((s) => s === 429).length;
    const limits = [...new Set(withHeaders.map((e) => rl(e, 'limit')))];
    const answer = `${statuses.join(', ')}; ${withHeaders.length} carried X-RateLimit headers${limits.length ? ` (Limit ${limits.join(', ')})` : ''}${limited ? `; ${limited} were 429` : ''}`;
    return [
      observation(
        unauthenticatedRateLimited,
        exchanges,
        `${exchanges.length} requests with an invalid key got ${answer}\nthe spec does not show whether 401 responses are rate-limited`,
        { causes: [{ kind: 'gap', clause: unauthenticatedRateLimited.clause, answer }] },
      ),
    ];
  },
});

// ---------------------------------------------------------------------------------------------------------------
// Limits per key, not per route or shared (issue 10), and no ban for a client that honoured Retry-After

/**
 * Two successive responses of one key that sent nothing else between them, while other keys sent requests: its
 * Remaining may fall by its own requests only (refill and a new window only raise it), whatever the algorithm.
 */
export interface IsolationEvidence {
  readonly kind: 'isolation';
  /** The key's label (its plan, or plan#2 for a second key of that plan). */
  readonly key: string;
  readonly plan: PlanName;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly requestsPerDay: number | null;
  readonly before: Exchange;
  readonly after: Exchange;
  /** The key's own requests after `before`, `after` included. */
  readonly ownRequests: number;
  /** Requests other keys sent between the two. */
  readonly others: readonly { readonly key: string; readonly requests: number }[];
}

function isolationFindings(ev: IsolationEvidence): Finding[] {
  const othersSent = ev.others.reduce((n, o) => n + o.requests, 0);
  const r0 = rl(ev.before, 'remaining');
  // Only the minute window's own numbers compare; a day window's Remaining says nothing about the minute's.
  if (othersSent === 0 || r0 === null || rl(ev.before, 'limit') !== ev.limit || !isAccepted(ev.before)) return [];
  const who = ev.others
    .filter((o) => o.requests > 0)
    .map((o) => `the ${o.key} key sent ${o.requests}`)
    .join(', ');
  const own = `${ev.ownRequests} request${ev.ownRequests === 1 ? '' : 's'}`;
  const status = statusOf(ev.after);
  if (status === 429 && r0 >= ev.ownRequests) {
    if (notMinuteRefusal(ev.after, ev.windowSeconds, ev.limit, ev.requestsPerDay) !== null) return [];
    return [
      finding(
        perKey,
        [ev.before, ev.after],
        {
          lead: 'received 429:',
          on: `after Remaining ${r0} and only its own ${own} since, while ${who}`,
          because: "the spec documents limits per key and plan: another key's requests were counted against this one",
        },
        {
          expected: `no 429 with ${r0} remaining`,
          actual: `429 after ${own}`,
          operation: 'listPets',
          causes: [limitCause(ev.key, 'not-per-key', ev.limit, r0, ev.before)],
        },
      ),
    ];
  }
  const r1 = rl(ev.after, 'remaining');
  if (!isAccepted(ev.after) || r1 === null || rl(ev.after, 'limit') !== ev.limit || r1 >= r0 - ev.ownRequests)
    return [];
  return [
    finding(
      perKey,
      [ev.before, ev.after],
      {
        lead: `received X-RateLimit-Remaining ${r1}:`,
        on: `after Remaining ${r0} and only its own ${own} since, while ${who}`,
        because: 'the spec documents limits per key and plan: its Remaining may fall by its own requests only',
      },
      {
        expected: `Remaining at least ${r0 - ev.ownRequests}`,
        actual: `Remaining ${r1}`,
        operation: 'listPets',
        causes: [limitCause(ev.key, 'not-per-key', ev.limit, r1, ev.after)],
      },
    ),
  ];
}

/** One request on each other operation, sent by a key just after its first 429 (on listPets), in the same window. */
export interface OtherOperationsEvidence {
  readonly key: string;
  readonly plan: PlanName;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly first429: Exchange;
  readonly probes: readonly Exchange[];
}

/**
 * The earliest the first 429's window can end by the target's own word: Retry-After and Reset are whole seconds, each
 * up to a second later than the real end. Null when the 429 said neither.
 */
function windowEndLowerBound(first429: Exchange): number | null {
  const bounds: number[] = [];
  const ra = retryAfterMs(first429);
  if (ra !== null) bounds.push(first429.startedAt + first429.durationMs + ra - 1000);
  const resetAt = resetEpochMs(rl(first429, 'reset'));
  if (resetAt !== null) bounds.push(resetAt - 1000);
  return bounds.length === 0 ? null : Math.min(...bounds);
}

export const oneCounterPerKey: Check<OtherOperationsEvidence, 'rl-one-counter-per-key'> = defineCheck({
  id: 'rl-one-counter-per-key',
  clauses: ['8-plan-limits'],
  levels: ['violation'],
  causes: ['limit'],
  area: 'rate-limit',
  title:
    "A key's limit spans its operations: just after its 429 on one, the others are refused too or show the same counter.",
  appliesTo: {
    what: "a key's other operations probed just after its 429 on listPets",
    test: (ev) => !!ev.first429 && Array.isArray(ev.probes) && statusOf(ev.first429) === 429,
  },
  run: (ev) => {
    if (!ev.first429 || !Array.isArray(ev.probes) || statusOf(ev.first429) !== 429) return [];
    const end = windowEndLowerBound(ev.first429);
    if (end === null) return [];
    const out: Finding[] = [];
    for (const p of ev.probes) {
      const status = statusOf(p);
      // Refused, or an answer that is not the limiter's (a ban, an error): nothing about the counter here.
      if (status === null || status === 429 || status === 401 || status === 403 || status >= 500) continue;
      if (p.startedAt >= end) continue;
      const remaining = rl(p, 'remaining');
      if (remaining === null || rl(p, 'limit') !== ev.limit) continue;
      // What refill since the 429 explains, and one for a continuous limiter's fraction.
      const allowance =
        refillAllowance(p.startedAt + p.durationMs - ev.first429.startedAt, ev.limit, ev.windowSeconds) + 1;
      if (remaining <= allowance) continue;
      out.push(
        finding(
          oneCounterPerKey,
          [ev.first429, p],
          {
            // The cause's count is the X-RateLimit-Remaining received.
            on: `remaining for ${p.request.method} ${p.request.path} (answered ${status}) ${secs(p.startedAt - ev.first429.startedAt)} after its 429 on GET /pets, in the same window`,
            because:
              'the spec documents the limit per key and plan, not per operation: a fresh allowance on another operation',
          },
          {
            expected: `429, or Remaining at most ${allowance}`,
            actual: `${status}, Remaining ${remaining}`,
            operation: p.operation,
            causes: [limitCause(ev.key, 'per-operation', ev.limit, remaining, p)],
          },
        ),
      );
    }
    return out;
  },
});

/**
 * A key that, after its first 429, sent nothing until Retry-After had passed (and a second more for whole-second
 * rounding), then one request.
 */
export interface HonouredEvidence {
  readonly key: string;
  readonly plan: PlanName;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly requestsPerDay: number | null;
  readonly first429: Exchange;
  readonly attempt: { readonly exchange: Exchange; readonly waitedMs: number };
}

/**
 * Why a refusal after waiting Retry-After is a ban rather than a Retry-After that is a little short: 401/403, a wait
 * now beyond one window (not the day's quota), or a Reset moved later than the 429 announced (its window was
 * extended or restarted while nothing was sent). Null when it is none of these.
 */
export function banLike(
  refusal: Exchange,
  first429: Exchange,
  ev: Omit<HonouredEvidence, 'attempt' | 'first429' | 'key' | 'plan'>,
): string | null {
  const status = statusOf(refusal);
  if (status === 401 || status === 403) return `${status}`;
  if (status !== 429) return null;
  const long = notMinuteRefusal(refusal, ev.windowSeconds, ev.limit, ev.requestsPerDay);
  if (long !== null && rl(refusal, 'limit') !== ev.requestsPerDay) return `429 with ${long}`;
  const a = rl(refusal, 'reset');
  const b = rl(first429, 'reset');
  if (a !== null && b !== null && a - b > 1) return `429 with X-RateLimit-Reset moved from ${b} to ${a}`;
  return null;
}

export const honouredNotBanned: Check<HonouredEvidence, 'rl-honoured-not-banned'> = defineCheck({
  id: 'rl-honoured-not-banned',
  clauses: ['8-rule-2-retry-after'],
  levels: ['violation'],
  causes: ['limit'],
  area: 'rate-limit',
  title:
    'A key that sent nothing after its 429 until Retry-After had passed is not refused then: no ban for a client that honoured it.',
  appliesTo: {
    what: "a key's request once its 429's Retry-After had passed with nothing sent meanwhile",
    test: (ev) => {
      const ra = ev.first429 ? retryAfterMs(ev.first429) : null;
      return !!ev.attempt?.exchange && ra !== null && ev.attempt.waitedMs >= ra + ROUNDING_MS;
    },
  },
  run: (ev) => {
    if (!ev.first429 || !ev.attempt?.exchange) return [];
    const ra = retryAfterMs(ev.first429);
    if (ra === null || ev.attempt.waitedMs < ra + ROUNDING_MS) return [];
    const why = banLike(ev.attempt.exchange, ev.first429, ev);
    if (why === null) return [];
    return [
      finding(
        honouredNotBanned,
        [ev.first429, ev.attempt.exchange],
        {
          on: `when it had sent nothing for ${secs(ev.attempt.waitedMs)} since its 429 (Retry-After ${ra / 1000} s): its next request got ${why}`,
          because:
            'the spec documents waiting Retry-After before retrying; a ban is for clients that keep sending after a 429',
        },
        {
          expected: 'accepted after Retry-After',
          actual: why,
          operation: 'listPets',
          causes: [limitCause(ev.key, 'banned', ev.limit, null, ev.first429)],
        },
      ),
    ];
  },
});

export const rateLimitChecks = Object.freeze([
  notStricterThanPlan,
  burstEnforced,
  shape429,
  retryAfterHonoured,
  rejectedNotCounted,
  perKey,
  dailyQuota,
  banObserved,
  unauthenticatedRateLimited,
  oneCounterPerKey,
  honouredNotBanned,
]) satisfies readonly AnyCheck[];
