/**
 * Daily quota (section 8, opt-in: it spends a whole day's quota). The key with the smallest daily limit sends at 0.9 ×
 * its minute rate until the first 429 that the minute limit cannot explain, then rl-daily-quota judges the count, the
 * 429's body and Retry-After, and a Reset at the day boundary. The estimated duration is announced before it starts;
 * a run projected beyond MAX_QUOTA_MS is refused up front (the suite's hook timeout is 60 min), and no wait for a
 * minute-limit Retry-After exceeds one window and its slack.
 */
import { KeyBlockedError } from '../../errors/catalogue.js';
import type { Exchange } from '../../http/exchange.js';
import { rateLimitNumber as rl, retryAfterMs } from '../../http/rate-limit-headers.js';
import {
  banObserved,
  dailyQuota,
  isAccepted,
  maxRetryAfterWaitMs,
  notMinuteRefusal,
  shape429,
  type QuotaStop,
} from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { RunContext } from '../context.js';
import type { ScenarioReturn } from '../rate-limit-results.js';
import type { QuotaResult } from '../rate-limit-results.js';
import * as req from '../requests.js';

const PACE = 0.9;

/** Minute-limit 429s waited out before giving up (they should not happen below the minute rate). */
const MAX_MINUTE_WAITS = 3;
/** Longest quota run started: the suite's hook timeout is 60 min, and minute waits and the summary need room. */
export const MAX_QUOTA_MS = 50 * 60_000;

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 120 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
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
  const projectedMs = rpd * spacing;
  const timeCapMs = Math.min((rpd / rpm) * W * 1000 * 1.5 + 30_000, MAX_QUOTA_MS);
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
    if (delay > 0) await ctx.sleep(delay);
    // The one send path (recorded, checked), unpaced and never resent: this loop does its own pacing and waiting.
    const ex = await ctx.send(req.listPets(auth, '?limit=1'), { pace: false, resendOn429: false });
    sent++;
    const status = statusOf(ex);
    if (status === 401 || status === 403) {
      ctx.judge(banObserved, {
        plan: key.plan,
        reason: `${status} after ${accepted} accepted requests`,
        exchanges: [ex],
      });
      throw new KeyBlockedError(`key ${key.plan}: ${status} during the quota suite; stopped using it`);
    }
    if (isAccepted(ex)) {
      accepted++;
      if (known) acceptedAfterKnown++;
      else if (rl(ex, 'limit') === rpd) known = ex;
      if (rl(ex, 'limit') === rpm) minuteReset = rl(ex, 'reset');
      previous = ex;
      // Beyond any allowance: the verdict cannot change, so spend no more.
      const room = known ? (rl(known, 'remaining') ?? rpd) : rpd;
      if ((known ? acceptedAfterKnown : accepted) > room + 1 + Math.floor(((Date.now() - t0) * rpd) / 86_400_000)) {
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
      }),
    ],
  };
}
