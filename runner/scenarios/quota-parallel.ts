/**
 * The parallel tail of the quota run (runner/scenarios/quota.ts): a limiter whose daily counter is read, incremented
 * and written back without a lock lets a key's requests in flight together through beyond its quota, which a
 * sequential run never shows. Once few requests are left of the day (quota.ts decides), the key rests two minute
 * windows (any minute limiter has then forgotten its requests, so the minute limit cannot refuse, and mask, the tail)
 * and one reading is sent with nothing of the key in flight. When it describes the day window (Limit = requests per
 * day) with few requests left (startsParallel), the rest of the day's quota goes over QUOTA_IN_FLIGHT connections at
 * once, as the rate-limit burst does: when the lowest day Remaining seen, less what was in flight alongside it, says
 * the requests in flight use it up, the next one goes alone, so the 429 comes with nothing else in flight and no
 * request follows it unseen. It stops at the first refusal, or as soon as more were accepted than the reading allows
 * (the verdict cannot change), and is judged once every request of it has settled.
 */
import type { AuthSpec } from '../../http/client.js';
import type { Exchange } from '../../http/exchange.js';
import { rateLimitNumber as rl } from '../../http/rate-limit-headers.js';
import { dailyAllowance, isAccepted, type QuotaParallel } from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { RunContext } from '../context.js';
import * as req from '../requests.js';

/** Connections at once: few, since a target may ban a key for requests that follow a 429. */
export const QUOTA_IN_FLIGHT = 4;

/** Added to the rest of two windows (timer and clock granularity). */
const REST_MARGIN_MS = 500;

/** The rest before the parallel tail: two minute windows, after which any minute limiter has forgotten the key. */
export const restMs = (windowSeconds: number): number => 2 * windowSeconds * 1000 + REST_MARGIN_MS;

/**
 * The most of the day's quota the tail may start from: after the rest the minute window holds the plan's per-minute
 * limit; the reading takes one, and the tail sends at most its Remaining, the day's refill allowance, one more to show
 * an excess, and what is in flight with a refusal. Null when that leaves no room for QUOTA_IN_FLIGHT at once.
 */
export function parallelRoom(perMinute: number): number | null {
  const room = perMinute - 3 - QUOTA_IN_FLIGHT;
  return room > QUOTA_IN_FLIGHT ? room : null;
}

/** Whether an accepted answer starts the tail: it describes the day window with 1 to `room` requests left. */
export function startsParallel(ex: Exchange, perMinute: number, perDay: number, room: number): boolean {
  const R = rl(ex, 'remaining');
  return perDay !== perMinute && rl(ex, 'limit') === perDay && R !== null && R >= 1 && R <= room;
}

export interface ParallelRun {
  readonly parallel: QuotaParallel;
  /** Every exchange of the tail after `from`, in the order sent, every one settled. */
  readonly exchanges: readonly Exchange[];
  /** The first answer (by order sent) that was not accepted, or null (a request that failed is no answer). */
  readonly rejection: Exchange | null;
}

/** Sends the tail from `from` (an accepted reading, sent with nothing of the key in flight; see startsParallel). */
export async function sendParallel(
  ctx: RunContext,
  auth: AuthSpec,
  from: Exchange,
  perDay: number,
): Promise<ParallelRun> {
  const R0 = rl(from, 'remaining') ?? 0;
  const dayRemaining = (ex: Exchange) => (rl(ex, 'limit') === perDay ? rl(ex, 'remaining') : null);
  // One more than the reading allows: enough to show an excess; never more, since the verdict cannot change.
  const capNow = () => R0 + dailyAllowance(Date.now() - from.startedAt, perDay) + 1;
  let gate = R0;
  let sent = 0;
  let accepted = 0;
  let inFlight = 0;
  let stop = false;
  const exchanges: Exchange[] = [];
  let release = () => {};
  let settled = new Promise<void>((r) => (release = r));
  const worker = async () => {
    while (!stop && sent < capNow()) {
      if (inFlight > 0 && gate - inFlight < 1) {
        await settled;
        continue;
      }
      const alongside = inFlight;
      sent++;
      inFlight++;
      const ex = await ctx.send(req.listPets(auth, '?limit=1'), { pace: false, resendOn429: false });
      exchanges.push(ex);
      inFlight--;
      // The target may count the requests in flight alongside this one after answering it.
      const rem = dayRemaining(ex);
      if (rem !== null) gate = Math.min(gate, rem - alongside);
      if (isAccepted(ex)) accepted++;
      else stop = true;
      if (accepted > capNow() - 1) stop = true;
      const wake = release;
      settled = new Promise<void>((res) => (release = res));
      wake();
    }
  };
  ctx.log.count('listPets', 'cases');
  await Promise.all(Array.from({ length: QUOTA_IN_FLIGHT }, worker));
  exchanges.sort((a, b) => a.seq - b.seq);
  const end = Math.max(from.startedAt + from.durationMs, ...exchanges.map((ex) => ex.startedAt + ex.durationMs));
  const spanMs = end - from.startedAt;
  const failed = exchanges.filter((ex) => statusOf(ex) === null).length;
  const allow = dailyAllowance(spanMs, perDay);
  const restarted = exchanges.some((ex) => (dayRemaining(ex) ?? -1) > R0 + allow);
  const unjudged =
    failed > 0
      ? `${failed} of its requests failed (a request that failed may have been counted or not)`
      : restarted
        ? `an answer showed more left of the day window than the reading (${R0}) and refill explain: the day window restarted`
        : null;
  return {
    parallel: {
      from,
      connections: QUOTA_IN_FLIGHT,
      sent,
      accepted,
      spanMs,
      lastAccepted: exchanges.filter(isAccepted).at(-1) ?? null,
      unjudged,
    },
    exchanges,
    rejection: exchanges.find((ex) => !isAccepted(ex) && statusOf(ex) !== null) ?? null,
  };
}
