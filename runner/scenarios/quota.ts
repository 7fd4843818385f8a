/**
 * Daily quota (section 8, opt-in: it spends a whole day's quota). The key with the smallest daily limit sends at 0.9 ×
 * its minute rate until the first 429 that the minute limit cannot explain, then rl-daily-quota judges the count, the
 * 429's body and Retry-After, and a Reset at the day boundary. The last few of the day's requests, once an answer
 * describes the day window, go over several connections at once after a rest (quota-parallel.ts), so that a quota
 * that loses increments under concurrency shows; the minute limit's room decides whether there is such a tail. The estimated duration is announced before it starts;
 * a run projected beyond MAX_QUOTA_MS is refused up front (the suite's hook timeout is 60 min), and no wait for a
 * minute-limit Retry-After exceeds one window and its slack.
 */
import type { PlanKey } from '../../config/config.js';
import { KeyBlockedError } from '../../errors/catalogue.js';
import type { AuthSpec } from '../../http/client.js';
import type { Exchange } from '../../http/exchange.js';
import { rateLimitNumber as rl, retryAfterMs } from '../../http/rate-limit-headers.js';
import {
  banObserved,
  dailyAllowance,
  dailyQuota,
  isAccepted,
  maxRetryAfterWaitMs,
  notMinuteRefusal,
  shape429,
  type QuotaStop,
} from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { PlanLimits, PlanName } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import type { ScenarioReturn } from '../rate-limit-results.js';
import type { QuotaResult } from '../rate-limit-results.js';
import * as req from '../requests.js';
import {
  parallelRoom,
  QUOTA_IN_FLIGHT,
  restMs,
  sendParallel,
  startsParallel,
  type ParallelRun,
} from './quota-parallel.js';

const PACE = 0.9;

/** Minute-limit 429s waited out before giving up (they should not happen below the minute rate). */
const MAX_MINUTE_WAITS = 3;
/** Longest quota run started: the suite's hook timeout is 60 min, and minute waits and the summary need room. */
export const MAX_QUOTA_MS = 50 * 60_000;

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 120 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** A 401 or 403 during the run: the key looks banned; recorded, and the key is not used again (the run exits 3). */
function blockedKey(ctx: RunContext, plan: PlanName, ex: Exchange, accepted: number): never {
  const status = statusOf(ex);
  ctx.judge(banObserved, {
    plan,
    reason: `${status} after ${accepted} accepted requests`,
    exchanges: [ex],
  });
  throw new KeyBlockedError(`key ${plan}: ${status} during the quota suite; stopped using it`);
}

/** The tail accepted more than its reading allows: the verdict cannot change, so the run spends no more. */
function overTail(par: ParallelRun, perDay: number): boolean {
  const p = par.parallel;
  return p.accepted > (rl(p.from, 'remaining') ?? perDay) + dailyAllowance(p.spanMs, perDay);
}

/** Why the run had no parallel tail, in words for the quota check's observation. */
function tailSkipped(room: number | null, perMinute: number, W: number, tail: string): string {
  if (room === null)
    return `the minute limit (${perMinute} per ${W} s) leaves no room for ${QUOTA_IN_FLIGHT} requests at once beside the day's last few`;
  if (tail === 'done')
    return `the reading after the rest did not describe the day window (X-RateLimit-Limit = the requests per day) with 1 to ${room} requests left`;
  return "the run ended before the day's last few requests (the key's earlier use today is unknown)";
}

/** The figures of one quota run, fixed before it starts. */
interface QuotaPlan {
  W: number;
  key: PlanKey;
  limits: PlanLimits;
  rpm: number;
  rpd: number;
  spacing: number;
  /** The parallel tail's room (null: the minute limit leaves none). */
  room: number | null;
  /** The rest before the parallel tail. */
  rest: number;
  projectedMs: number;
  timeCapMs: number;
  requestCap: number;
  rate: string;
}

/** What the run has seen so far; the loop's steps read and update it in place. */
interface QuotaRun {
  auth: AuthSpec;
  t0: number;
  /** The pacing index: the next request goes at start + i × spacing. */
  i: number;
  sent: number;
  accepted: number;
  known: Exchange | null;
  acceptedAfterKnown: number;
  minuteReset: number | null;
  previous: Exchange | null;
  rejection: Exchange | null;
  stopped: QuotaStop | null;
  minuteWaits: number;
  waitedMs: number;
  start: number;
  /** 'resting': the next request is the tail's reading, after the rest; 'done': the tail was sent or its reading did not qualify. */
  tail: 'ahead' | 'resting' | 'done';
  par: ParallelRun | null;
}

/** The key with the smallest daily limit: it spends the least time. */
function quotaKey(ctx: RunContext): PlanKey {
  const key = [...ctx.settings.keys]
    .filter((k) => k.limits !== null)
    .sort((a, b) => a.limits!.requestsPerDay - b.limits!.requestsPerDay)[0];
  if (!key)
    throw new Error(
      'quota suite: no key with known limits (set PETSTORE_API_KEY_<PLAN>; Enterprise needs PETSTORE_ENTERPRISE_LIMITS)',
    );
  return key;
}

function quotaPlan(ctx: RunContext): QuotaPlan {
  const W = ctx.settings.windowSeconds ?? 60;
  const key = quotaKey(ctx);
  const limits = key.limits!;
  const { requestsPerMinute: rpm, requestsPerDay: rpd } = limits;
  const spacing = (W * 1000) / (PACE * rpm);
  const room = parallelRoom(rpm);
  const rest = room === null ? 0 : restMs(W);
  return {
    W,
    key,
    limits,
    rpm,
    rpd,
    spacing,
    room,
    rest,
    projectedMs: rpd * spacing + rest,
    timeCapMs: Math.min((rpd / rpm) * W * 1000 * 1.5 + 30_000 + rest, MAX_QUOTA_MS),
    requestCap: rpd + 50,
    rate: `${rpd} requests per day at ${Number((PACE * rpm).toFixed(1))} per ${W} s`,
  };
}

function quotaResult(p: QuotaPlan, over: Partial<QuotaResult>): QuotaResult {
  return {
    suite: 'quota',
    plan: p.key.plan,
    requestsPerDay: p.rpd,
    requestsPerMinute: p.rpm,
    windowSeconds: p.W,
    sent: 0,
    accepted: 0,
    dailyRetryAfterSeconds: null,
    dailyReset: null,
    waitedMs: 0,
    durationMs: 0,
    stopped: null,
    ...over,
  };
}

/** Refused before sending anything: it could not finish within the suite's timeout. */
function refuseTooLong(ctx: RunContext, p: QuotaPlan): ScenarioReturn {
  const note = `spending the ${p.key.plan} key's ${p.rate} would take about ${duration(p.projectedMs)}, more than the ${duration(MAX_QUOTA_MS)} this suite allows (its timeout is 60 min); use a key with a smaller daily quota (e.g. an Enterprise key with small PETSTORE_ENTERPRISE_LIMITS)`;
  ctx.judge(dailyQuota, {
    plan: p.key.plan,
    limits: p.limits,
    sent: 0,
    accepted: 0,
    rejection: null,
    known: null,
    acceptedAfterKnown: 0,
    minuteReset: null,
    elapsedMs: 0,
    stopped: 'too-long',
    note,
  });
  return { rateLimits: [quotaResult(p, { stopped: 'too-long' })] };
}

function startRun(ctx: RunContext, p: QuotaPlan): QuotaRun {
  const auth = ctx.auth('Bearer {key}', p.key);
  const t0 = Date.now();
  return {
    auth,
    t0,
    i: 0,
    sent: 0,
    accepted: 0,
    known: null,
    acceptedAfterKnown: 0,
    minuteReset: null,
    previous: null,
    rejection: null,
    stopped: null,
    minuteWaits: 0,
    waitedMs: 0,
    start: t0,
    tail: p.room === null ? 'done' : 'ahead',
    par: null,
  };
}

/** The request or time cap is reached: records why and says so. */
function capReached(p: QuotaPlan, r: QuotaRun): boolean {
  if (r.sent >= p.requestCap) {
    r.stopped = 'requests';
    return true;
  }
  if (Date.now() - r.t0 > p.timeCapMs) {
    r.stopped = 'time';
    return true;
  }
  return false;
}

/** Waits until the next request is due: the paced delay, or the rest before the tail's reading. True when it is that reading. */
async function awaitTurn(ctx: RunContext, p: QuotaPlan, r: QuotaRun): Promise<boolean> {
  const delay = r.start + r.i * p.spacing - Date.now();
  const reading = r.tail === 'resting';
  if (reading) {
    r.tail = 'done';
    r.waitedMs += p.rest;
    await ctx.waitFor(
      p.rest,
      `quota: resting two minute windows before the last requests go ${QUOTA_IN_FLIGHT} at once`,
      p.key.plan,
    );
    // The reading the tail starts from counts every request of the key only with none in flight.
    await ctx.quiet(r.auth);
  } else if (delay > 0) await ctx.sleep(delay);
  return reading;
}

/** Counts an accepted answer and notes what its headers say of the day and minute windows. */
function countAccepted(p: QuotaPlan, r: QuotaRun, ex: Exchange): void {
  r.accepted++;
  if (r.known) r.acceptedAfterKnown++;
  else if (rl(ex, 'limit') === p.rpd) r.known = ex;
  if (rl(ex, 'limit') === p.rpm) r.minuteReset = rl(ex, 'reset');
  r.previous = ex;
}

/** After the rest's reading: the parallel tail when the reading qualifies, then paced again. True when the tail ended the day. */
async function afterReading(ctx: RunContext, p: QuotaPlan, r: QuotaRun, ex: Exchange): Promise<boolean> {
  if (p.room !== null && startsParallel(ex, p.rpm, p.rpd, p.room)) {
    const par = await sendParallel(ctx, r.auth, ex, p.rpd);
    r.par = par;
    r.sent += par.parallel.sent;
    r.accepted += par.parallel.accepted;
    r.acceptedAfterKnown += par.parallel.accepted;
    r.previous = par.parallel.lastAccepted ?? r.previous;
    const blocked = par.exchanges.find((x) => statusOf(x) === 401 || statusOf(x) === 403);
    if (blocked) blockedKey(ctx, p.key.plan, blocked, r.accepted);
    if (par.rejection) {
      r.rejection = par.rejection;
      return true;
    }
  }
  // Paced again from here.
  r.start = Date.now();
  r.i = 0;
  return false;
}

/** Whether the tail comes next, and whether the count is beyond any allowance. True when the run should stop. */
function pastAccepted(p: QuotaPlan, r: QuotaRun, ex: Exchange): boolean {
  const left = r.known ? (rl(r.known, 'remaining') ?? p.rpd) : p.rpd;
  const count = r.known ? r.acceptedAfterKnown : r.accepted;
  // The tail is near when an answer says so, or when what is known of the day says so: a target may show the day
  // window only once it binds, which a minute window near its own end hides. After the rest it binds.
  if (r.tail === 'ahead' && p.room !== null && (startsParallel(ex, p.rpm, p.rpd, p.room) || left - count <= p.room))
    r.tail = 'resting';
  // Beyond any allowance: the verdict cannot change, so spend no more.
  if (
    count > left + dailyAllowance(Date.now() - r.t0, p.rpd) ||
    (r.par !== null && r.par.parallel.unjudged === null && overTail(r.par, p.rpd))
  ) {
    r.stopped = 'over-quota';
    return true;
  }
  return false;
}

/**
 * A refusal: the day's rejection, unless only the minute limit explains it, which is waited out (a few times at most).
 * True when the run should stop.
 */
async function onRefusal(ctx: RunContext, p: QuotaPlan, r: QuotaRun, ex: Exchange): Promise<boolean> {
  const status = statusOf(ex);
  if (status !== 429 && status !== 503) {
    r.rejection = ex;
    return true;
  }
  // The daily limit is the reason when the minute window still had room, or had rolled over, or the headers
  // already described the day window, or the 429's wait reaches beyond one window (never waited out here).
  const prevRemaining = r.previous ? rl(r.previous, 'remaining') : null;
  const rolled = r.minuteReset !== null && ex.startedAt >= r.minuteReset * 1000;
  const dayHeaders = (r.previous && rl(r.previous, 'limit') === p.rpd) || rl(ex, 'limit') === p.rpd;
  if (
    (prevRemaining !== null && prevRemaining > 0) ||
    rolled ||
    dayHeaders ||
    notMinuteRefusal(ex, p.W, p.rpm, p.rpd) !== null
  ) {
    r.rejection = ex;
    return true;
  }
  if (++r.minuteWaits > MAX_MINUTE_WAITS) {
    r.rejection = ex;
    return true;
  }
  // Retry-After plus a second for whole-second rounding and some jitter, never beyond one window and its slack.
  const ms = Math.min(
    (retryAfterMs(ex) ?? p.W * 1000) + 1000 + Math.floor(Math.random() * 250),
    maxRetryAfterWaitMs(p.W),
  );
  r.waitedMs += ms;
  await ctx.waitFor(ms, `quota: minute limit reached, waiting Retry-After`, p.key.plan);
  r.start = Date.now();
  r.i = -1;
  return false;
}

/** Sends one paced request and handles its answer. True when the run should stop. */
async function quotaStep(ctx: RunContext, p: QuotaPlan, r: QuotaRun): Promise<boolean> {
  if (capReached(p, r)) return true;
  const reading = await awaitTurn(ctx, p, r);
  // The one send path (recorded, checked), unpaced and never resent: this loop does its own pacing and waiting.
  const ex = await ctx.send(req.listPets(r.auth, '?limit=1'), { pace: false, resendOn429: false });
  r.sent++;
  const status = statusOf(ex);
  if (status === 401 || status === 403) blockedKey(ctx, p.key.plan, ex, r.accepted);
  if (!isAccepted(ex)) return onRefusal(ctx, p, r, ex);
  countAccepted(p, r, ex);
  if (reading && (await afterReading(ctx, p, r, ex))) return true;
  return pastAccepted(p, r, ex);
}

/** Judges the run (the count, and the rejection's shape) and returns its summary. */
function judgeRun(ctx: RunContext, p: QuotaPlan, r: QuotaRun): ScenarioReturn {
  const elapsedMs = Date.now() - r.t0;
  const { sent, accepted, rejection, known, acceptedAfterKnown, minuteReset, stopped, par } = r;
  ctx.judge(dailyQuota, {
    plan: p.key.plan,
    limits: p.limits,
    sent,
    accepted,
    rejection,
    known,
    acceptedAfterKnown,
    minuteReset,
    elapsedMs,
    stopped,
    ...(par ? { parallel: par.parallel } : { parallelSkipped: tailSkipped(p.room, p.rpm, p.W, r.tail) }),
  });
  if (rejection) ctx.judge(shape429, { exchange: rejection });
  const dailyRa = rejection ? retryAfterMs(rejection) : null;
  return {
    rateLimits: [
      quotaResult(p, {
        sent,
        accepted,
        dailyRetryAfterSeconds: dailyRa === null ? null : dailyRa / 1000,
        dailyReset: rejection ? rl(rejection, 'reset') : null,
        waitedMs: r.waitedMs,
        durationMs: elapsedMs,
        stopped,
        ...(par && {
          parallel: {
            connections: par.parallel.connections,
            fromRemaining: rl(par.parallel.from, 'remaining'),
            sent: par.parallel.sent,
            accepted: par.parallel.accepted,
          },
        }),
      }),
    ],
  };
}

export async function quotaScenario(ctx: RunContext): Promise<ScenarioReturn> {
  const p = quotaPlan(ctx);
  if (p.projectedMs > MAX_QUOTA_MS) return refuseTooLong(ctx, p);
  ctx.settings.onWait?.(
    p.projectedMs,
    `quota: spending the ${p.key.plan} key's ${p.rate} takes about ${duration(p.projectedMs)}`,
  );
  ctx.log.count('listPets', 'cases');
  const r = startRun(ctx, p);
  for (; ; r.i++) if (await quotaStep(ctx, p, r)) break;
  return judgeRun(ctx, p, r);
}
