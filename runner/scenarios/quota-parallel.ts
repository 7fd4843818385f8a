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

/** The tail as it goes, shared by its connections. */
interface Tail {
  readonly ctx: RunContext;
  readonly auth: AuthSpec;
  readonly from: Exchange;
  readonly perDay: number;
  /** The reading's day Remaining. */
  readonly R0: number;
  /** The lowest day Remaining seen, less what was in flight alongside it. */
  gate: number;
  sent: number;
  accepted: number;
  inFlight: number;
  stop: boolean;
  readonly exchanges: Exchange[];
  /** Resolves once a request of the tail settles (`release` resolves it; rearm makes the next). */
  settled: Promise<void>;
  release: () => void;
}

const dayRemaining = (ex: Exchange, perDay: number): number | null =>
  rl(ex, 'limit') === perDay ? rl(ex, 'remaining') : null;

/** One more than the reading allows: enough to show an excess; never more, since the verdict cannot change. */
const capNow = (t: Tail): number => t.R0 + dailyAllowance(Date.now() - t.from.startedAt, t.perDay) + 1;

function rearm(t: Tail): void {
  t.settled = new Promise<void>((res) => (t.release = res));
}

/** One connection: sends while the gate leaves room beside what is in flight, else waits for a request to settle. */
async function tailWorker(t: Tail): Promise<void> {
  while (!t.stop && t.sent < capNow(t)) {
    if (t.inFlight > 0 && t.gate - t.inFlight < 1) {
      await t.settled;
      continue;
    }
    const alongside = t.inFlight;
    t.sent++;
    t.inFlight++;
    const ex = await t.ctx.send(req.listPets(t.auth, '?limit=1'), { pace: false, resendOn429: false });
    t.exchanges.push(ex);
    t.inFlight--;
    // The target may count the requests in flight alongside this one after answering it.
    const rem = dayRemaining(ex, t.perDay);
    if (rem !== null) t.gate = Math.min(t.gate, rem - alongside);
    if (isAccepted(ex)) t.accepted++;
    else t.stop = true;
    if (t.accepted > capNow(t) - 1) t.stop = true;
    const wake = t.release;
    rearm(t);
    wake();
  }
}

/** Why the settled tail cannot be judged (a request failed, or the day window restarted), or null. */
function unjudgedTail(t: Tail, spanMs: number): string | null {
  const failed = t.exchanges.filter((ex) => statusOf(ex) === null).length;
  const allow = dailyAllowance(spanMs, t.perDay);
  const restarted = t.exchanges.some((ex) => (dayRemaining(ex, t.perDay) ?? -1) > t.R0 + allow);
  return failed > 0
    ? `${failed} of its requests failed (a request that failed may have been counted or not)`
    : restarted
      ? `an answer showed more left of the day window than the reading (${t.R0}) and refill explain: the day window restarted`
      : null;
}

/** What the settled tail shows, its exchanges in the order sent. */
function settledTail(t: Tail): ParallelRun {
  const { from, exchanges } = t;
  exchanges.sort((a, b) => a.seq - b.seq);
  const end = Math.max(from.startedAt + from.durationMs, ...exchanges.map((ex) => ex.startedAt + ex.durationMs));
  const spanMs = end - from.startedAt;
  return {
    parallel: {
      from,
      connections: QUOTA_IN_FLIGHT,
      sent: t.sent,
      accepted: t.accepted,
      spanMs,
      lastAccepted: exchanges.filter(isAccepted).at(-1) ?? null,
      unjudged: unjudgedTail(t, spanMs),
    },
    exchanges,
    rejection: exchanges.find((ex) => !isAccepted(ex) && statusOf(ex) !== null) ?? null,
  };
}

/** Sends the tail from `from` (an accepted reading, sent with nothing of the key in flight; see startsParallel). */
export async function sendParallel(
  ctx: RunContext,
  auth: AuthSpec,
  from: Exchange,
  perDay: number,
): Promise<ParallelRun> {
  const R0 = rl(from, 'remaining') ?? 0;
  const t: Tail = {
    ctx,
    auth,
    from,
    perDay,
    R0,
    gate: R0,
    sent: 0,
    accepted: 0,
    inFlight: 0,
    stop: false,
    exchanges: [],
    settled: Promise.resolve(),
    release: () => {},
  };
  rearm(t);
  ctx.log.count('listPets', 'cases');
  await Promise.all(Array.from({ length: QUOTA_IN_FLIGHT }, () => tailWorker(t)));
  return settledTail(t);
}
