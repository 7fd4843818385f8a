/**
 * Daily quota (section 8, opt-in: it spends a whole day's quota). The key with the smallest daily limit sends at 0.9 ×
 * its minute rate until the first 429 that the minute limit cannot explain, then rl-daily-quota judges the count, the
 * 429's body and Retry-After, and a Reset at the day boundary. The last few of the day's requests, once an answer
 * describes the day window, go over several connections at once after a rest (quota-parallel.ts), so that a quota
 * that loses increments under concurrency shows; the minute limit's room decides whether there is such a tail. The estimated duration is announced before it starts;
 * a run projected beyond MAX_QUOTA_MS is refused up front (the suite's hook timeout is 60 min), and no wait for a
 * minute-limit Retry-After exceeds one window and its slack.
 */
import { KeyBlockedError } from '../../errors/catalogue.js';
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
import type { PlanName } from '../../spec/contract.js';
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

export async function quotaScenario(ctx: RunContext): Promise<ScenarioReturn> {
  const W = ctx.settings.windowSeconds ?? 60;
  const key = [...ctx.settings.keys]
    .filter((k) => k.limits !== null)
    .sort((a, b) => a.limits!.requestsPerDay - b.limits!.requestsPerDay)[0];
  if (!key)
    throw new Error(
      'quota suite: no key with known limits (set PETSTORE_API_KEY_<PLAN>; Enterprise needs PETSTORE_ENTERPRISE_LIMITS)',
    );
  const limits = key.limits!;
  const { requestsPerMinute: rpm, requestsPerDay: rpd } = limits;
  const spacing = (W * 1000) / (PACE * rpm);
  // The parallel tail's room (null: the minute limit leaves none) and the rest before it.
  const room = parallelRoom(rpm);
  const rest = room === null ? 0 : restMs(W);
  const projectedMs = rpd * spacing + rest;
  const timeCapMs = Math.min((rpd / rpm) * W * 1000 * 1.5 + 30_000 + rest, MAX_QUOTA_MS);
  const requestCap = rpd + 50;
  const rate = `${rpd} requests per day at ${Number((PACE * rpm).toFixed(1))} per ${W} s`;
  const result = (over: Partial<QuotaResult>): QuotaResult => ({
    suite: 'quota',
    plan: key.plan,
    requestsPerDay: rpd,
    requestsPerMinute: rpm,
    windowSeconds: W,
    sent: 0,
    accepted: 0,
    dailyRetryAfterSeconds: null,
    dailyReset: null,
    waitedMs: 0,
    durationMs: 0,
    stopped: null,
    ...over,
  });
  if (projectedMs > MAX_QUOTA_MS) {
    // Refused before sending anything: it could not finish within the suite's timeout.
    const note = `spending the ${key.plan} key's ${rate} would take about ${duration(projectedMs)}, more than the ${duration(MAX_QUOTA_MS)} this suite allows (its timeout is 60 min); use a key with a smaller daily quota (e.g. an Enterprise key with small PETSTORE_ENTERPRISE_LIMITS)`;
    ctx.judge(dailyQuota, {
      plan: key.plan,
      limits,
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
    return { rateLimits: [result({ stopped: 'too-long' })] };
  }
  ctx.settings.onWait?.(
    projectedMs,
    `quota: spending the ${key.plan} key's ${rate} takes about ${duration(projectedMs)}`,
  );
  ctx.log.count('listPets', 'cases');

  const auth = ctx.auth('Bearer {key}', key);
  const t0 = Date.now();
  let sent = 0;
  let accepted = 0;
  let known: Exchange | null = null;
  let acceptedAfterKnown = 0;
  let minuteReset: number | null = null;
  let previous: Exchange | null = null;
  let rejection: Exchange | null = null;
  let stopped: QuotaStop | null = null;
  let minuteWaits = 0;
  let waitedMs = 0;
  let start = t0;
  // 'resting': the next request is the tail's reading, after the rest; 'done': the tail was sent or its reading did not qualify.
  let tail: 'ahead' | 'resting' | 'done' = room === null ? 'done' : 'ahead';
  let par: ParallelRun | null = null;
  for (let i = 0; ; i++) {
    if (sent >= requestCap) {
      stopped = 'requests';
      break;
    }
    if (Date.now() - t0 > timeCapMs) {
      stopped = 'time';
      break;
    }
    const delay = start + i * spacing - Date.now();
    const reading = tail === 'resting';
    if (reading) {
      tail = 'done';
      waitedMs += rest;
      await ctx.waitFor(
        rest,
        `quota: resting two minute windows before the last requests go ${QUOTA_IN_FLIGHT} at once`,
        key.plan,
      );
      // The reading the tail starts from counts every request of the key only with none in flight.
      await ctx.quiet(auth);
    } else if (delay > 0) await ctx.sleep(delay);
    // The one send path (recorded, checked), unpaced and never resent: this loop does its own pacing and waiting.
    const ex = await ctx.send(req.listPets(auth, '?limit=1'), { pace: false, resendOn429: false });
    sent++;
    const status = statusOf(ex);
    if (status === 401 || status === 403) blockedKey(ctx, key.plan, ex, accepted);
    if (isAccepted(ex)) {
      accepted++;
      if (known) acceptedAfterKnown++;
      else if (rl(ex, 'limit') === rpd) known = ex;
      if (rl(ex, 'limit') === rpm) minuteReset = rl(ex, 'reset');
      previous = ex;
      if (reading) {
        if (room !== null && startsParallel(ex, rpm, rpd, room)) {
          par = await sendParallel(ctx, auth, ex, rpd);
          sent += par.parallel.sent;
          accepted += par.parallel.accepted;
          acceptedAfterKnown += par.parallel.accepted;
          previous = par.parallel.lastAccepted ?? previous;
          const blocked = par.exchanges.find((x) => statusOf(x) === 401 || statusOf(x) === 403);
          if (blocked) blockedKey(ctx, key.plan, blocked, accepted);
          if (par.rejection) {
            rejection = par.rejection;
            break;
          }
        }
        // Paced again from here.
        start = Date.now();
        i = 0;
      }
      const left = known ? (rl(known, 'remaining') ?? rpd) : rpd;
      const count = known ? acceptedAfterKnown : accepted;
      // The tail is near when an answer says so, or when what is known of the day says so: a target may show the day
      // window only once it binds, which a minute window near its own end hides. After the rest it binds.
      if (tail === 'ahead' && room !== null && (startsParallel(ex, rpm, rpd, room) || left - count <= room))
        tail = 'resting';
      // Beyond any allowance: the verdict cannot change, so spend no more.
      if (
        count > left + dailyAllowance(Date.now() - t0, rpd) ||
        (par !== null && par.parallel.unjudged === null && overTail(par, rpd))
      ) {
        stopped = 'over-quota';
        break;
      }
      continue;
    }
    if (status !== 429 && status !== 503) {
      rejection = ex;
      break;
    }
    // The daily limit is the reason when the minute window still had room, or had rolled over, or the headers
    // already described the day window, or the 429's wait reaches beyond one window (never waited out here).
    const prevRemaining = previous ? rl(previous, 'remaining') : null;
    const rolled = minuteReset !== null && ex.startedAt >= minuteReset * 1000;
    const dayHeaders = (previous && rl(previous, 'limit') === rpd) || rl(ex, 'limit') === rpd;
    if (
      (prevRemaining !== null && prevRemaining > 0) ||
      rolled ||
      dayHeaders ||
      notMinuteRefusal(ex, W, rpm, rpd) !== null
    ) {
      rejection = ex;
      break;
    }
    if (++minuteWaits > MAX_MINUTE_WAITS) {
      rejection = ex;
      break;
    }
    // Retry-After plus a second for whole-second rounding and some jitter, never beyond one window and its slack.
    const ms = Math.min(
      (retryAfterMs(ex) ?? W * 1000) + 1000 + Math.floor(Math.random() * 250),
      maxRetryAfterWaitMs(W),
    );
    waitedMs += ms;
    await ctx.waitFor(ms, `quota: minute limit reached, waiting Retry-After`, key.plan);
    start = Date.now();
    i = -1;
  }
  const elapsedMs = Date.now() - t0;
  ctx.judge(dailyQuota, {
    plan: key.plan,
    limits,
    sent,
    accepted,
    rejection,
    known,
    acceptedAfterKnown,
    minuteReset,
    elapsedMs,
    stopped,
    ...(par ? { parallel: par.parallel } : { parallelSkipped: tailSkipped(room, rpm, W, tail) }),
  });
  if (rejection) ctx.judge(shape429, { exchange: rejection });
  const dailyRa = rejection ? retryAfterMs(rejection) : null;
  return {
    rateLimits: [
      result({
        sent,
        accepted,
        dailyRetryAfterSeconds: dailyRa === null ? null : dailyRa / 1000,
        dailyReset: rejection ? rl(rejection, 'reset') : null,
        waitedMs,
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
