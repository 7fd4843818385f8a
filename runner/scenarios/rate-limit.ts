/**
 * Rate limits per plan (section 8), measured black-box and judged by checks/rate-limit.ts. Every configured key runs
 * in parallel through the same phases, each a small function over the key's record (KeyRun), so the suite takes
 * little more than one window:
 *   probe (rested?) → pace at 0.9 × the plan's rate → burst promptly until the first 429 → its shape → two more
 *   requests (still 429) → wait Retry-After (+1 s for whole-second rounding) from the first 429 → recover: one
 *   request must be accepted.
 * The suite behaves as the spec asks of clients: requests go out one at a time except in the burst (at most 4 in
 * flight), nothing is sent after a 429 but the two probes of the rejection rule, and a key that looks banned is
 * dropped at once (KeyBlockedError: the run exits 3). A 429 whose wait reaches beyond one window (the daily quota, or
 * a ban) is never waited out: it is recorded and the key is not used again. Headers may describe the day window
 * ("the limit in force"): Remaining and rest are read only from headers whose Limit is the plan's per minute.
 * Every request goes through RunContext.send (recorded, every response check applied), unpaced and never resent:
 * each 429 is evidence here.
 */
import type { PlanKey } from '../../config/config.js';
import type { PlanName } from '../../spec/contract.js';
import type { Exchange } from '../../http/exchange.js';
import { KeyBlockedError } from '../../config/errors.js';
import { sleep } from '../../http/pacing.js';
import type { AuthSpec } from '../../http/client.js';
import { readRateLimit, type RateLimitReading } from '../../http/rate-limit-headers.js';
import {
  banObserved,
  burstEnforced,
  isAccepted,
  maxRetryAfterWaitMs,
  notMinuteRefusal,
  notStricterThanPlan,
  perKey,
  refillAllowance,
  rejectedNotCounted,
  retryAfterHonoured,
  shape429,
  unauthenticatedRateLimited,
  type WindowAccount,
} from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { RunContext } from '../context.js';
import type { KeyRateLimitResult } from '../rate-limit-results.js';
import * as req from '../requests.js';

export type { KeyRateLimitResult as RateLimitResult } from '../rate-limit-results.js';

/** Largest per-window limit measured with a burst; beyond it the requests would cost more than they tell. */
export const MAX_BURST_LIMIT = 2000;
/** Requests in flight during a burst: few, since a target may ban a key for requests that follow a 429. */
const BURST_IN_FLIGHT = 4;
/** Paced rate as a fraction of the plan's: "just under" it. */
const PACE = 0.9;
/** Margin added to every wait for a reset (clock granularity, latency). */
const MARGIN_MS = 250;
/** Added to every Retry-After waited for: a whole-second value may be up to a second short (see ROUNDING_MS). */
const RETRY_MARGIN_MS = 1000;
/**
 * The burst's 429 is aimed this long before the window that began at the probe ends: a Retry-After of ~4-5 s that
 * is half the real wait (2 s) is still refused after waiting it plus a second, so "too short" shows beyond rounding.
 */
const TAIL_MS = 4500;

/** What the keys measured in parallel share: which are bursting now (to tell shared limits from strict ones). */
interface Shared {
  readonly bursting: Set<PlanName>;
}

/** One response of the key, with what its headers say and when it had arrived (epoch ms). */
interface Reading extends RateLimitReading {
  readonly ex: Exchange;
  readonly status: number | null;
  readonly end: number;
}

function read(ex: Exchange): Reading {
  return { ex, status: statusOf(ex), end: ex.startedAt + ex.durationMs, ...readRateLimit(ex) };
}

const banned = (r: Reading) => r.status === 401 || r.status === 403;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One key's record through the phases: its plan, what it sent, and what the phases learned. */
interface KeyRun {
  readonly ctx: RunContext;
  readonly plan: PlanName;
  /** The plan's requests per minute and per day, and the window's length in seconds. */
  readonly L: number;
  readonly perDay: number;
  readonly W: number;
  readonly auth: AuthSpec;
  readonly t0: number;
  /** Every response of this key, in the order they arrived. */
  readonly history: Reading[];
  /** Single-request latencies (probe and paced), to size the burst. */
  readonly latencies: number[];
  waitedMs: number;
  /** From which response the key was shown rested, and how (null: not shown). */
  rested: Reading | null;
  restedBy: WindowAccount['by'] | null;
  /** The key's headers showed refill or a new window during the burst: a continuous limiter, one more may fit. */
  continuous: boolean;
  readonly result: Mutable<KeyRateLimitResult>;
}

function newKeyRun(ctx: RunContext, key: PlanKey, W: number): KeyRun {
  const L = key.limits!.requestsPerMinute;
  return {
    ctx,
    plan: key.plan,
    L,
    perDay: key.limits!.requestsPerDay,
    W,
    auth: ctx.auth('Bearer {key}', key),
    t0: Date.now(),
    history: [],
    latencies: [],
    waitedMs: 0,
    rested: null,
    restedBy: null,
    continuous: false,
    result: {
      suite: 'rate-limit',
      plan: key.plan,
      limit: L,
      windowSeconds: W,
      paced: { sent: 0, spanMs: 0, got429: false },
      burst: null,
      retryAfterSeconds: null,
      waitedMs: 0,
      recovered: null,
      requests: 0,
      durationMs: 0,
      note: null,
    },
  };
}

/** GET /pets?limit=1 with the key, through the one send path: recorded and checked, unpaced, a 429 never resent. */
async function send(k: KeyRun): Promise<Reading> {
  const r = read(await k.ctx.send(req.listPets(k.auth, '?limit=1'), { pace: false, resendOn429: false }));
  k.history.push(r);
  return r;
}

async function wait(k: KeyRun, ms: number, reason: string): Promise<void> {
  if (ms <= 0) return;
  k.ctx.settings.onWait?.(ms, `${k.plan} key: ${reason}`);
  k.waitedMs += ms;
  await sleep(ms);
}

/** Headers that describe the minute window (Limit = the plan's per minute): only they show rest or Remaining. */
const minuteHeaders = (k: KeyRun, r: Reading) => r.limit === k.L;
const isRested = (k: KeyRun, r: Reading) =>
  isAccepted(r.ex) && minuteHeaders(k, r) && r.remaining !== null && r.remaining >= k.L - 1;

/** A key that worked and now gets 401/403 (or 429s beyond Retry-After): stop using it, and stop the run. */
function blocked(k: KeyRun, reason: string, exchanges: Exchange[]): never {
  k.ctx.judge(banObserved, { plan: k.plan, reason, exchanges });
  k.result.note = `key looks banned: ${reason}`;
  throw new KeyBlockedError(`key ${k.plan}: ${reason}; stopped using it`);
}

/**
 * A 429 that is not the minute window's (daily quota, or a ban: its wait is beyond one window): it says nothing
 * about the minute limit, and waiting it out could take hours.
 */
function notMinute(k: KeyRun, r: Reading, phase: string): string | null {
  const why = notMinuteRefusal(r.ex, k.W, k.L, k.perDay);
  return why === null ? null : `${phase}: ${why}`;
}

/** Ends the key's measurement without a burst verdict, saying why (recorded by rl-burst-enforced). */
function skip(k: KeyRun, reason: string, note: string, exchanges: Exchange[]): null {
  k.ctx.judge(burstEnforced, { kind: 'skipped', plan: k.plan, limit: k.L, reason, exchanges });
  k.result.note = note;
  return null;
}

/** A 429 that is the daily quota's or a ban's: recorded; the key is not used again. */
function stopMeasuring(k: KeyRun, why: string, exchanges: Exchange[]): null {
  return skip(
    k,
    `daily quota exhausted or the key banned (${why}); stopped using the key`,
    `not measured: daily quota exhausted or key banned (${why})`,
    exchanges,
  );
}

export async function rateLimitScenario(ctx: RunContext): Promise<void> {
  const W = ctx.settings.windowSeconds ?? 60;
  const shared: Shared = { bursting: new Set() };
  const keys = ctx.settings.keys.filter((k) => k.limits !== null);
  const [unauth, ...outcomes] = await Promise.allSettled([
    unauthenticated(ctx),
    ...keys.map((k) => measureKey(ctx, k, W, shared)),
  ]);
  // The keys' reported limits side by side: each plan's key gets its plan's numbers.
  const reported = keys.map((k, i) => {
    const o = outcomes[i];
    const rep = o?.status === 'fulfilled' ? o.value : null;
    return {
      plan: k.plan,
      limits: k.limits!,
      reported: rep?.reportedLimit ?? null,
      exchange: rep?.limitExchange ?? null,
    };
  });
  ctx.judge(perKey, { kind: 'limits', keys: reported });
  const failures = [unauth, ...outcomes]
    .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
    .map((o) => o.reason as unknown);
  const blockedKey = failures.find((e) => e instanceof KeyBlockedError);
  const other = failures.find((e) => !(e instanceof KeyBlockedError));
  if (other !== undefined) throw other;
  if (blockedKey !== undefined) throw blockedKey;
}

/** Whether responses to an invalid key carry rate-limit headers or get 429 (a gap of the spec): 3 requests. */
async function unauthenticated(ctx: RunContext): Promise<void> {
  const auth: AuthSpec = { template: 'Bearer psc-invalid-key-for-rate-limits', key: null, keyPlan: 'invalid' };
  const exchanges: Exchange[] = [];
  for (let i = 0; i < 3; i++) exchanges.push(await ctx.send(req.listPets(auth, '?limit=1'), { resendOn429: false }));
  ctx.judge(unauthenticatedRateLimited, { exchanges });
}

interface KeyOutcome {
  /** The X-RateLimit-Limit this key reported most often on accepted responses, and one exchange that showed it. */
  readonly reportedLimit: number | null;
  readonly limitExchange: Exchange | null;
}

/** The most frequent Limit among accepted readings. */
function modalLimit(readings: readonly Reading[]): KeyOutcome {
  const counts = new Map<number, { n: number; ex: Exchange }>();
  for (const r of readings) {
    if (r.limit === null || !isAccepted(r.ex)) continue;
    const c = counts.get(r.limit);
    if (c) c.n++;
    else counts.set(r.limit, { n: 1, ex: r.ex });
  }
  let best: { value: number | null; ex: Exchange | null; n: number } = { value: null, ex: null, n: 0 };
  for (const [value, c] of counts) if (c.n > best.n) best = { value, ex: c.ex, n: c.n };
  return { reportedLimit: best.value, limitExchange: best.ex };
}

/** Records the key's numbers for the reports. */
function finish(k: KeyRun): KeyOutcome {
  k.result.waitedMs = k.waitedMs;
  k.result.requests = k.history.length;
  k.result.durationMs = Date.now() - k.t0;
  k.ctx.rateLimitResults.push({ ...k.result });
  return modalLimit(k.history);
}

/** The phases in order; each returns what the next needs, or null when the key's measurement ends there. */
async function measureKey(ctx: RunContext, key: PlanKey, W: number, shared: Shared): Promise<KeyOutcome> {
  const k = newKeyRun(ctx, key, W);
  try {
    if (k.L > MAX_BURST_LIMIT) {
      skip(
        k,
        `limit too large for a bounded burst (more than ${MAX_BURST_LIMIT} requests per window)`,
        'not measured: limit too large for a bounded burst',
        [],
      );
      return finish(k);
    }
    ctx.log.count('listPets', 'cases');
    const start = await probe(k);
    const last = start && (await pace(k, start, shared));
    const rejection = last && (await burst(k, last, shared));
    if (rejection) await recover(k, rejection, await overLimit(k, rejection));
    return finish(k);
  } catch (e) {
    if (e instanceof KeyBlockedError) finish(k);
    throw e;
  }
}

/**
 * Phase 1: is the key rested? Only headers that describe the minute window can show it. If not, wait once for its
 * reset (bounded) and probe again; then, the last time, two idle windows. Returns the last probe if it was accepted.
 */
async function probe(k: KeyRun): Promise<Reading | null> {
  let probe = await send(k);
  if (banned(probe)) blocked(k, `${probe.status} on its first request`, [probe.ex]);
  if (isRested(k, probe)) k.restedBy = 'headers';
  // Headers that describe another window cannot show rest however long one waits: the key goes on unverified.
  else if (!(isAccepted(probe.ex) && !minuteHeaders(k, probe))) {
    const long = notMinute(k, probe, 'its first request');
    if (long) return stopMeasuring(k, long, [probe.ex]);
    const ra = probe.status === 429 ? probe.retryAfterMs : null;
    const untilReset = probe.resetAtMs !== null ? probe.resetAtMs - Date.now() : k.W * 1000;
    const resetWait = Math.min(k.W * 1000 + 2000, untilReset) + MARGIN_MS;
    await wait(
      k,
      Math.min(maxRetryAfterWaitMs(k.W), Math.max(resetWait, ra !== null ? ra + RETRY_MARGIN_MS : 0)),
      'not rested: waiting for its window to reset',
    );
    const p1 = await send(k);
    if (banned(p1)) blocked(k, `${p1.status} after it had worked`, [p1.ex]);
    const long1 = notMinute(k, p1, 'its probe after waiting for the reset');
    if (long1) return stopMeasuring(k, long1, [probe.ex, p1.ex]);
    probe = p1;
    if (isRested(k, p1)) k.restedBy = 'headers';
    else if (minuteHeaders(k, p1)) {
      const p2 = await probeAfterTwoWindows(k, p1);
      if (p2 === null) return null;
      probe = p2;
    }
  }
  if (k.restedBy) k.rested = probe;
  k.latencies.push(probe.ex.durationMs);
  if (!isAccepted(probe.ex)) {
    return skip(
      k,
      `its probe got ${probe.status ?? 'no answer'} even after waiting for the reset`,
      'not measured: probe refused',
      [probe.ex],
    );
  }
  return probe;
}

/**
 * The last wait: two idle windows after `p1`, so that any algorithm (a sliding counter still weighs the previous
 * window) has forgotten it. Rested then if the headers say so, or if Remaining is the same as before this wait: that
 * is the limiter's own level at rest, not traffic.
 */
async function probeAfterTwoWindows(k: KeyRun, p1: Reading): Promise<Reading | null> {
  const ra1 = p1.status === 429 ? p1.retryAfterMs : null;
  await wait(
    k,
    Math.max(2 * k.W * 1000, ra1 !== null ? ra1 + RETRY_MARGIN_MS : 0) + MARGIN_MS - (Date.now() - p1.end),
    'still not rested: waiting two windows',
  );
  const p2 = await send(k);
  if (banned(p2)) blocked(k, `${p2.status} after it had worked`, [p2.ex]);
  const long2 = notMinute(k, p2, 'its last probe');
  if (long2) return stopMeasuring(k, long2, [p1.ex, p2.ex]);
  if (isRested(k, p2)) k.restedBy = 'headers';
  else if (
    isAccepted(p1.ex) &&
    isAccepted(p2.ex) &&
    minuteHeaders(k, p2) &&
    p2.remaining !== null &&
    p2.remaining === p1.remaining
  )
    k.restedBy = 'idle';
  return p2;
}

/** Time a burst from `r`'s Remaining should take: the median single-request latency, a few requests in flight. */
function burstEstimateMs(k: KeyRun, r: Reading): number {
  const sorted = [...k.latencies].sort((a, b) => a - b);
  const median = Math.max(0.3, sorted[Math.floor(sorted.length / 2)] ?? 1);
  return Math.min(1000, ((minuteHeaders(k, r) ? (r.remaining ?? k.L) : k.L) * median) / 2 + 30);
}

/**
 * Phase 2: paced at 0.9 × the plan's rate, no 429 allowed. It ends so that the burst's 429 comes about TAIL_MS
 * before a window that began at the probe would end: Retry-After then describes a wait of several seconds, so one
 * that is too short shows beyond whole-second rounding, and the suite waits a few seconds, not W. Returns the last
 * paced reading (the known state the burst starts from), or null after a refusal.
 */
async function pace(k: KeyRun, probe: Reading, shared: Shared): Promise<Reading | null> {
  const spacing = (k.W * 1000) / (PACE * k.L);
  const paceStart = probe.end;
  const windowEnd = paceStart + k.W * 1000;
  const minPacedMs = 0.2 * k.W * 1000;
  let prev = probe;
  for (let i = 1; ; i++) {
    const due = paceStart + i * spacing;
    if (due - paceStart > minPacedMs && windowEnd - due < TAIL_MS + burstEstimateMs(k, prev)) break;
    if (due >= windowEnd) break;
    const delay = due - Date.now();
    if (delay > 0) await sleep(delay);
    const r = await send(k);
    k.latencies.push(r.ex.durationMs);
    k.result.paced = { sent: i, spanMs: r.end - paceStart, got429: false };
    if (banned(r)) blocked(k, `${r.status} while pacing under its plan's rate`, [prev.ex, r.ex]);
    if (!isAccepted(r.ex)) return pacedRefusal(k, prev, r, shared);
    noteRefillOrRestart(k, prev, r);
    prev = r;
  }
  k.ctx.judge(notStricterThanPlan, pacedEvidence(k, prev, null));
  return prev;
}

/**
 * Between two paced responses of the minute window: refill is a request not charged within the same window; a
 * restart is a new window (Reset later, Remaining up), from which the key is rested again.
 */
function noteRefillOrRestart(k: KeyRun, prev: Reading, r: Reading): void {
  if (!isAccepted(prev.ex) || !minuteHeaders(k, r) || !minuteHeaders(k, prev)) return;
  if (r.remaining === null || prev.remaining === null) return;
  if (r.reset === prev.reset && r.remaining >= prev.remaining) k.continuous = true;
  else if (r.reset !== null && prev.reset !== null && r.reset > prev.reset && r.remaining > prev.remaining) {
    if (isRested(k, r)) {
      k.rested = r;
      k.restedBy = 'headers';
    }
  }
}

function pacedEvidence(k: KeyRun, previous: Reading, rejection: Reading | null) {
  return {
    kind: 'paced' as const,
    plan: k.plan,
    limit: k.L,
    windowSeconds: k.W,
    sent: k.result.paced.sent,
    spanMs: k.result.paced.spanMs,
    rejection: rejection?.ex ?? null,
    previous: previous.ex,
    rested: k.restedBy !== null,
    requestsPerDay: k.perDay,
  };
}

/**
 * A refusal while pacing: stricter than the plan, unless another key was bursting while this one still had
 * requests remaining (limits not per key). After it the key is left alone: its state is no longer known.
 */
function pacedRefusal(k: KeyRun, prev: Reading, refusal: Reading, shared: Shared): null {
  k.result.paced = { ...k.result.paced, got429: refusal.status === 429 };
  const long = notMinute(k, refusal, `paced request ${k.result.paced.sent}`);
  if (long) return stopMeasuring(k, long, [prev.ex, refusal.ex]);
  const others = [...shared.bursting].filter((p) => p !== k.plan);
  const prevRemaining = minuteHeaders(k, prev) ? prev.remaining : null;
  if (others.length > 0 && prevRemaining !== null && prevRemaining > 0) {
    k.ctx.judge(perKey, {
      kind: 'interference',
      plan: k.plan,
      rejection: refusal.ex,
      previous: prev.ex,
      bursting: others,
    });
  } else {
    k.ctx.judge(notStricterThanPlan, pacedEvidence(k, prev, refusal));
  }
  k.result.note = `paced phase refused at request ${k.result.paced.sent}`;
  return null;
}

/**
 * Phase 3: a prompt burst from the known state until the first refusal, judged against the Remaining it started
 * from (and, from a rested key, against the plan). Returns the 429 that ended it when the key goes on to recovery.
 */
async function burst(k: KeyRun, prev: Reading, shared: Shared): Promise<Reading | null> {
  shared.bursting.add(k.plan);
  let b: BurstRun;
  try {
    b = await runBurst(k, prev);
  } finally {
    shared.bursting.delete(k.plan);
  }
  const { known, rejection } = b;
  const after = b.readings.filter((r) => r.ex.seq > known.ex.seq);
  const accepted = after.filter((r) => isAccepted(r.ex)).length;
  const lastEnd = Math.max(known.end, ...b.readings.map((r) => r.end));
  const elapsedMs = lastEnd - known.ex.startedAt;
  const resetChanged = b.readings.some((r) => r.reset !== prev.reset);
  const refillSeen = k.continuous;
  k.continuous = refillSeen || resetChanged;
  const dailyBurst = rejection ? notMinute(k, rejection, `after ${accepted} accepted in its burst`) : null;
  const account = !dailyBurst && !refillSeen && !resetChanged && !b.remeasured ? windowAccount(k, b, lastEnd) : null;
  k.ctx.judge(burstEnforced, {
    kind: 'burst',
    plan: k.plan,
    limit: k.L,
    windowSeconds: k.W,
    requestsPerDay: k.perDay,
    known: known.ex,
    knownRemaining: known.remaining,
    exchanges: after.map((r) => r.ex),
    accepted,
    rejection: rejection?.ex ?? null,
    elapsedMs,
    continuous: k.continuous,
    cap: b.cap,
    account,
    remeasured: b.remeasured,
  });
  k.result.burst = {
    fromRemaining: minuteHeaders(k, known) ? known.remaining : null,
    accepted,
    allowance: refillAllowance(elapsedMs, k.L, k.W) + (k.continuous ? 1 : 0),
    first429AtRequest: rejection ? b.readings.indexOf(rejection) + 1 : null,
  };
  if (dailyBurst) {
    // Daily quota (or a ban) reached in the burst: recorded by rl-burst-enforced; the key is not used again.
    k.result.note = `not measured: daily quota exhausted or key banned (${dailyBurst})`;
    return null;
  }
  if (account) k.ctx.judge(notStricterThanPlan, { kind: 'window', plan: k.plan, limit: k.L, account });
  if (!rejection) {
    k.result.note = 'no refusal within the burst cap';
    return null;
  }
  // Phase 4: the refusal's shape.
  k.ctx.judge(shape429, { exchange: rejection.ex });
  if (banned(rejection)) blocked(k, `${rejection.status} instead of 429 at the end of its burst`, [rejection.ex]);
  if (rejection.status !== 429) {
    k.result.note = `refused with ${rejection.status ?? 'no answer'}, not 429`;
    return null;
  }
  return rejection;
}

/**
 * Counting against the plan from a rested key: only where every accepted response since rest described the minute
 * window, and its Remaining never rose (beyond reordering of requests in flight): a rise is a new window or refill,
 * Reset moved or not.
 */
function windowAccount(k: KeyRun, b: BurstRun, lastEnd: number): WindowAccount | null {
  const { rested, restedBy } = k;
  const rejection = b.rejection;
  if (!rested || !restedBy || !rejection || (rejection.status !== 429 && rejection.status !== 503)) return null;
  const lastSeq = Math.max(...b.readings.map((r) => r.ex.seq));
  const counted = k.history.filter((r) => r.ex.seq >= rested.ex.seq && r.ex.seq <= lastSeq && isAccepted(r.ex));
  let low = Infinity;
  const rose = counted.some((r) => {
    const up = r.remaining !== null && r.remaining > low + BURST_IN_FLIGHT;
    low = Math.min(low, r.remaining ?? low);
    return up;
  });
  if (!counted.every((r) => minuteHeaders(k, r)) || rose) return null;
  return {
    rested: rested.ex,
    by: restedBy,
    accepted: counted.length,
    rejection: rejection.ex,
    spanMs: lastEnd - rested.ex.startedAt,
  };
}

interface BurstRun {
  /** The state the burst is judged from: where it started, or the first response of a window crossed meanwhile. */
  readonly known: Reading;
  /** The burst's responses in the order they were sent. */
  readonly readings: Reading[];
  readonly rejection: Reading | null;
  /** Requests sent. */
  readonly cap: number;
  readonly remeasured: boolean;
}

/**
 * Sends promptly (at most BURST_IN_FLIGHT in flight) until the first response that is not accepted, and stops at once
 * (requests already in flight complete). A window boundary crossed meanwhile (Reset later, Remaining jumping up) moves
 * the known state to the first response of the new window, once, with a new cap. Remaining counts only from headers
 * that describe the minute window (Limit = L): from any other state the cap leaves room for a window boundary crossed
 * unseen (2 × L), so that a limiter that never refuses still shows beyond doubt.
 */
async function runBurst(k: KeyRun, start: Reading): Promise<BurstRun> {
  const { L, W } = k;
  const minuteR = (r: Reading) => (r.limit === L ? r.remaining : null);
  let known = start;
  const R0 = minuteR(start);
  let cap = R0 !== null ? R0 + Math.floor(L / 2) + 10 : 2 * L + 10;
  let remeasured = false;
  let minRemaining = R0;
  let sent = 0;
  let stop = false;
  let rejection: Reading | null = null;
  const readings: Reading[] = [];
  // The cap grows with the refill elapsed time explains (a token bucket refills during a burst), up to a hard bound.
  let hardCap = (R0 ?? L) + 2 * L + 10;
  const capNow = () => Math.min(hardCap, cap + refillAllowance(Date.now() - known.ex.startedAt, L, W));
  const worker = async () => {
    while (!stop && sent < capNow()) {
      sent++;
      const r = await send(k);
      readings.push(r);
      if (!isAccepted(r.ex)) {
        if (!rejection || r.ex.seq < rejection.ex.seq) rejection = r;
        stop = true;
        continue;
      }
      const rem = minuteR(r);
      if (rem === null) continue;
      // Slack: responses of requests in flight together may arrive out of order, and refill between them.
      const slack = BURST_IN_FLIGHT + 1 + refillAllowance(r.end - known.end, L, W);
      // Remaining jumping up beyond that is a new window, whether or not the target's Reset moved with it.
      if (!remeasured && minRemaining !== null && rem > minRemaining + slack) {
        remeasured = true;
        known = r;
        cap = sent + rem + Math.floor(L / 2) + 10;
        hardCap = sent + rem + 2 * L + 10;
      }
      minRemaining = minRemaining === null ? rem : Math.min(minRemaining, rem);
    }
  };
  k.ctx.log.count('listPets', 'cases');
  await Promise.all(Array.from({ length: BURST_IN_FLIGHT }, worker));
  readings.sort((a, b) => a.ex.seq - b.ex.seq);
  return { known, readings, rejection: rejection as Reading | null, cap: sent, remeasured };
}

/**
 * Phase 5: rejected requests do not count. Two more requests after the first 429 (spaced, still refused): the most
 * the client discipline allows before Retry-After has passed. Returns the 429s received from the first one on.
 */
async function overLimit(k: KeyRun, rejection: Reading): Promise<number> {
  k.result.retryAfterSeconds = rejection.retryAfterMs === null ? null : rejection.retryAfterMs / 1000;
  const extra: Reading[] = [];
  for (let i = 0; i < 2; i++) {
    await sleep(100);
    const r = await send(k);
    extra.push(r);
    if (banned(r)) {
      k.ctx.judge(shape429, { exchange: r.ex });
      blocked(k, `${r.status} for request ${i + 1} of 2 sent after a 429`, [rejection.ex, r.ex]);
    }
  }
  const fromFirst = k.history.filter((r) => r.ex.seq >= rejection.ex.seq && !extra.includes(r));
  return [...fromFirst, ...extra].filter((r) => r.status === 429).length;
}

/**
 * Phase 6: wait Retry-After from the FIRST 429 (a second more for whole-second rounding, never beyond one window's
 * cap): the next request must be accepted. Refused again, wait the new Retry-After once more, backing off.
 */
async function recover(k: KeyRun, rejection: Reading, rejected: number): Promise<void> {
  const fallback =
    rejection.resetAtMs !== null
      ? Math.min(k.W * 1000 + 2000, Math.max(0, rejection.resetAtMs - rejection.end))
      : k.W * 1000;
  const firstWait = Math.min((rejection.retryAfterMs ?? fallback) + RETRY_MARGIN_MS, maxRetryAfterWaitMs(k.W));
  await wait(k, rejection.end + firstWait - Date.now(), `429: waiting Retry-After (${Math.ceil(firstWait / 1000)} s)`);
  const attempts: { exchange: Exchange; waitedMs: number }[] = [];
  const a0 = await send(k);
  attempts.push({ exchange: a0.ex, waitedMs: a0.ex.startedAt - rejection.end });
  if (banned(a0)) {
    k.ctx.judge(shape429, { exchange: a0.ex });
    blocked(k, `${a0.status} after waiting Retry-After`, [rejection.ex, a0.ex]);
  }
  let last = a0;
  if (a0.status === 429) {
    const long = notMinute(k, a0, 'the request after waiting Retry-After');
    if (long) {
      // A wait beyond one window now: a ban or the day's quota. Not waited for (it could be hours); recorded.
      k.ctx.judge(banObserved, {
        plan: k.plan,
        reason: `${long}; stopped using the key`,
        exchanges: [rejection.ex, a0.ex],
      });
      k.result.note = `not measured further: ${long}`;
      k.result.recovered = false;
      return;
    }
    // Once more, as the spec asks: the new Retry-After (a second more for rounding), backing off with jitter.
    const ms = Math.max(a0.retryAfterMs ?? 1000, 1000) + RETRY_MARGIN_MS + Math.floor(Math.random() * 250);
    await wait(k, Math.min(ms, maxRetryAfterWaitMs(k.W)), '429 again: backing off');
    last = await send(k);
    attempts.push({ exchange: last.ex, waitedMs: last.ex.startedAt - a0.end });
  }
  const evidence = {
    plan: k.plan,
    limit: k.L,
    first429: rejection.ex,
    retryAfterMs: rejection.retryAfterMs,
    rejected,
    attempts,
    fixedLike: !k.continuous,
  };
  k.ctx.judge(retryAfterHonoured, evidence);
  k.ctx.judge(rejectedNotCounted, evidence);
  k.result.recovered = isAccepted(last.ex);
  if (last !== a0 && (banned(last) || last.status === 429))
    blocked(k, `${last.status} after waiting Retry-After twice`, [rejection.ex, a0.ex, last.ex]);
}
