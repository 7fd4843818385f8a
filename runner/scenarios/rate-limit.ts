/**
 * Rate limits per plan (section 8), measured black-box and judged by checks/rate-limit.ts. Every configured key runs
 * in parallel, so the suite takes little more than one window:
 *   probe (rested?) → paced at 0.9 × the plan's rate → a prompt burst until the first 429 → its shape → two more
 *   requests (still 429) → wait Retry-After (+1 s for whole-second rounding) from the first 429 → one request must
 *   be accepted.
 * The suite behaves as the spec asks of clients: requests go out one at a time except in the burst (at most 4 in
 * flight), nothing is sent after a 429 but the two probes of the rejection rule, and a key that looks banned is
 * dropped at once (KeyBlockedError: the run exits 3). A 429 whose wait reaches beyond one window (the daily quota, or
 * a ban) is never waited out: it is recorded and the key is not used again. Headers may describe the day window
 * ("the limit in force"): Remaining and rest are read only from headers whose Limit is the plan's per minute.
 */
import type { PlanKey } from '../../config/config.js';
import type { PlanName } from '../../spec/contract.js';
import type { Exchange } from '../../http/exchange.js';
import { KeyBlockedError } from '../../config/errors.js';
import { sleep } from '../../http/pacing.js';
import type { AuthSpec } from '../../http/client.js';
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
  retryAfterMs,
  rl,
  shape429,
  unauthenticatedRateLimited,
  type WindowAccount,
} from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { RunContext } from '../context.js';
import * as req from '../requests.js';

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

export interface RateLimitResult {
  readonly suite: 'rate-limit';
  readonly plan: PlanName;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly paced: { readonly sent: number; readonly spanMs: number; readonly got429: boolean };
  readonly burst: {
    readonly fromRemaining: number | null;
    readonly accepted: number;
    readonly allowance: number;
    readonly first429AtRequest: number | null;
  } | null;
  readonly retryAfterSeconds: number | null;
  /** Time spent waiting (rest, Retry-After), ms. */
  readonly waitedMs: number;
  readonly recovered: boolean | null;
  /** Requests this key spent in the suite. */
  readonly requests: number;
  readonly durationMs: number;
  /** Why the key was not (fully) measured, when it was not. */
  readonly note: string | null;
}

/** What the keys measured in parallel share: which are bursting now (to tell shared limits from strict ones). */
interface Shared {
  readonly bursting: Set<PlanName>;
}

interface Reading {
  readonly ex: Exchange;
  readonly status: number | null;
  readonly limit: number | null;
  readonly remaining: number | null;
  readonly reset: number | null;
  /** Epoch ms when the response had arrived. */
  readonly end: number;
}

function read(ex: Exchange): Reading {
  return {
    ex,
    status: statusOf(ex),
    limit: rl(ex, 'limit'),
    remaining: rl(ex, 'remaining'),
    reset: rl(ex, 'reset'),
    end: ex.startedAt + ex.durationMs,
  };
}

/** A plausible epoch-seconds Reset as epoch ms (null for milliseconds, relative seconds or none). */
function resetAtMs(r: Reading): number | null {
  return r.reset !== null && r.reset > 1e9 && r.reset < 1e11 ? r.reset * 1000 : null;
}

const banned = (r: Reading) => r.status === 401 || r.status === 403;

/** Sends GET /pets?limit=1 with a key, records and checks it (no pacer: each 429 is data, never retried). */
async function sendOne(ctx: RunContext, auth: AuthSpec): Promise<Reading> {
  const ex = await ctx.client.send(req.listPets(auth, '?limit=1'));
  ctx.check(ex);
  return read(ex);
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
  const blocked = failures.find((e) => e instanceof KeyBlockedError);
  const other = failures.find((e) => !(e instanceof KeyBlockedError));
  if (other !== undefined) throw other;
  if (blocked !== undefined) throw blocked;
}

/** Whether responses to an invalid key carry rate-limit headers or get 429 (a gap of the spec): 3 requests. */
async function unauthenticated(ctx: RunContext): Promise<void> {
  const auth: AuthSpec = { template: 'Bearer psc-invalid-key-for-rate-limits', key: null, keyPlan: 'invalid' };
  const exchanges: Exchange[] = [];
  for (let i = 0; i < 3; i++) exchanges.push((await sendOne(ctx, auth)).ex);
  ctx.judge(unauthenticatedRateLimited, { exchanges });
}

interface KeyOutcome {
  /** The X-RateLimit-Limit this key reported most often on accepted responses, and one exchange that showed it. */
  readonly reportedLimit: number | null;
  readonly limitExchange: Exchange | null;
}

/** The most frequent Limit among accepted readings. */
function modalLimit(readings: readonly Reading[]): { value: number | null; ex: Exchange | null } {
  const counts = new Map<number, { n: number; ex: Exchange }>();
  for (const r of readings) {
    if (r.limit === null || !isAccepted(r.ex)) continue;
    const c = counts.get(r.limit);
    if (c) c.n++;
    else counts.set(r.limit, { n: 1, ex: r.ex });
  }
  let best: { value: number | null; ex: Exchange | null; n: number } = { value: null, ex: null, n: 0 };
  for (const [value, c] of counts) if (c.n > best.n) best = { value, ex: c.ex, n: c.n };
  return { value: best.value, ex: best.ex };
}

async function measureKey(ctx: RunContext, key: PlanKey, W: number, shared: Shared): Promise<KeyOutcome> {
  const L = key.limits!.requestsPerMinute;
  const perDay = key.limits!.requestsPerDay;
  const plan = key.plan;
  const auth = ctx.auth('Bearer {key}', key);
  const t0 = Date.now();
  const history: Reading[] = [];
  const maxWaitMs = maxRetryAfterWaitMs(W);
  let waitedMs = 0;
  const result: { -readonly [K in keyof RateLimitResult]: RateLimitResult[K] } = {
    suite: 'rate-limit',
    plan,
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
  };
  const finish = (): KeyOutcome => {
    result.waitedMs = waitedMs;
    result.requests = history.length;
    result.durationMs = Date.now() - t0;
    ctx.rateLimitResults.push({ ...result });
    const m = modalLimit(history);
    return { reportedLimit: m.value, limitExchange: m.ex };
  };
  const send = async () => {
    const r = await sendOne(ctx, auth);
    history.push(r);
    return r;
  };
  const wait = async (ms: number, reason: string) => {
    if (ms <= 0) return;
    ctx.settings.onWait?.(ms, `${plan} key: ${reason}`);
    waitedMs += ms;
    await sleep(ms);
  };
  /** A key that worked and now gets 401/403 (or 429s beyond Retry-After): stop using it, and stop the run. */
  const blocked = (reason: string, exchanges: Exchange[]): never => {
    ctx.judge(banObserved, { plan, reason, exchanges });
    result.note = `key looks banned: ${reason}`;
    finish();
    throw new KeyBlockedError(`key ${plan}: ${reason}; stopped using it`);
  };
  /**
   * A 429 that is not the minute window's (daily quota, or a ban: its wait is beyond one window): it says nothing
   * about the minute limit, and waiting it out could take hours. Recorded; the key is not used again.
   */
  const notMinute = (r: Reading, phase: string): string | null => {
    const why = notMinuteRefusal(r.ex, W, L, perDay);
    return why === null ? null : `${phase}: ${why}`;
  };
  const stopMeasuring = (why: string, exchanges: Exchange[]): KeyOutcome => {
    ctx.judge(burstEnforced, {
      kind: 'skipped',
      plan,
      limit: L,
      reason: `daily quota exhausted or the key banned (${why}); stopped using the key`,
      exchanges,
    });
    result.note = `not measured: daily quota exhausted or key banned (${why})`;
    return finish();
  };

  if (L > MAX_BURST_LIMIT) {
    ctx.judge(burstEnforced, {
      kind: 'skipped',
      plan,
      limit: L,
      reason: `limit too large for a bounded burst (more than ${MAX_BURST_LIMIT} requests per window)`,
      exchanges: [],
    });
    result.note = 'not measured: limit too large for a bounded burst';
    return finish();
  }
  ctx.log.count('listPets', 'cases');

  // 1. Probe: is the key rested? Only headers that describe the minute window (Limit = L) can show it.
  const minuteHeaders = (r: Reading) => r.limit === L;
  const isRested = (r: Reading) => isAccepted(r.ex) && minuteHeaders(r) && r.remaining !== null && r.remaining >= L - 1;
  let probe = await send();
  if (banned(probe)) return blocked(`${probe.status} on its first request`, [probe.ex]);
  let restedBy: WindowAccount['by'] | null = isRested(probe) ? 'headers' : null;
  if (!restedBy && !(isAccepted(probe.ex) && !minuteHeaders(probe))) {
    // Not rested (or refused): wait once for its reset, bounded, and probe again. (Headers that describe another
    // window cannot show rest however long one waits: then the key goes on unverified, without waiting.)
    const long = notMinute(probe, 'its first request');
    if (long) return stopMeasuring(long, [probe.ex]);
    const until = resetAtMs(probe);
    const ra = probe.status === 429 ? retryAfterMs(probe.ex) : null;
    const resetWait = Math.min(W * 1000 + 2000, until !== null ? until - Date.now() : W * 1000) + MARGIN_MS;
    await wait(
      Math.min(maxWaitMs, Math.max(resetWait, ra !== null ? ra + RETRY_MARGIN_MS : 0)),
      'not rested: waiting for its window to reset',
    );
    const p1 = await send();
    if (banned(p1)) return blocked(`${p1.status} after it had worked`, [p1.ex]);
    const long1 = notMinute(p1, 'its probe after waiting for the reset');
    if (long1) return stopMeasuring(long1, [probe.ex, p1.ex]);
    probe = p1;
    if (isRested(p1)) restedBy = 'headers';
    else if (minuteHeaders(p1)) {
      // One more wait, the last: two idle windows after this probe, so that any algorithm (a sliding counter still
      // weighs the previous window) has forgotten it. Rested then if the headers say so, or if Remaining is the same
      // as before this wait: that is the limiter's own level at rest, not traffic.
      const ra1 = p1.status === 429 ? retryAfterMs(p1.ex) : null;
      await wait(
        Math.max(2 * W * 1000, ra1 !== null ? ra1 + RETRY_MARGIN_MS : 0) + MARGIN_MS - (Date.now() - p1.end),
        'still not rested: waiting two windows',
      );
      const p2 = await send();
      if (banned(p2)) return blocked(`${p2.status} after it had worked`, [p2.ex]);
      const long2 = notMinute(p2, 'its last probe');
      if (long2) return stopMeasuring(long2, [p1.ex, p2.ex]);
      probe = p2;
      if (isRested(p2)) restedBy = 'headers';
      else if (
        isAccepted(p1.ex) &&
        isAccepted(p2.ex) &&
        minuteHeaders(p2) &&
        p2.remaining !== null &&
        p2.remaining === p1.remaining
      )
        restedBy = 'idle';
    }
  }
  if (!isAccepted(probe.ex)) {
    ctx.judge(burstEnforced, {
      kind: 'skipped',
      plan,
      limit: L,
      reason: `its probe got ${probe.status ?? 'no answer'} even after waiting for the reset`,
      exchanges: [probe.ex],
    });
    result.note = 'not measured: probe refused';
    return finish();
  }

  // 2. Paced phase, at 0.9 × the plan's rate. It ends so that the burst's 429 comes about TAIL_MS before a window
  // that began at the probe would end: Retry-After then describes a wait of several seconds, so one that is too short
  // shows beyond whole-second rounding, and the suite waits a few seconds, not W.
  const spacing = (W * 1000) / (PACE * L);
  const paceStart = probe.end;
  const windowEnd = paceStart + W * 1000;
  const latencies: number[] = [probe.ex.durationMs];
  /** Time a burst from `remaining` should take: the median single-request latency, a few requests in flight. */
  const burstEstimateMs = (r: Reading) => {
    const sorted = [...latencies].sort((a, b) => a - b);
    const median = Math.max(0.3, sorted[Math.floor(sorted.length / 2)] ?? 1);
    return Math.min(1000, ((minuteHeaders(r) ? (r.remaining ?? L) : L) * median) / 2 + 30);
  };
  const minPacedMs = 0.2 * W * 1000;
  let rested: Reading | null = restedBy ? probe : null;
  let refillSeen = false;
  let prev = probe;
  let pacedRejection: Reading | null = null;
  for (let i = 1; ; i++) {
    const due = paceStart + i * spacing;
    if (due - paceStart > minPacedMs && windowEnd - due < TAIL_MS + burstEstimateMs(prev)) break;
    if (due >= windowEnd) break;
    const delay = due - Date.now();
    if (delay > 0) await sleep(delay);
    const r = await send();
    latencies.push(r.ex.durationMs);
    result.paced = { sent: i, spanMs: r.end - paceStart, got429: false };
    if (banned(r)) return blocked(`${r.status} while pacing under its plan's rate`, [prev.ex, r.ex]);
    if (!isAccepted(r.ex)) {
      pacedRejection = r;
      break;
    }
    if (
      isAccepted(prev.ex) &&
      minuteHeaders(r) &&
      minuteHeaders(prev) &&
      r.remaining !== null &&
      prev.remaining !== null
    ) {
      // Refill: a request not charged within the same window. A restart: a new window (Reset later, Remaining up).
      if (r.reset === prev.reset && r.remaining >= prev.remaining) refillSeen = true;
      else if (
        r.reset !== null &&
        prev.reset !== null &&
        r.reset > prev.reset &&
        r.remaining > prev.remaining &&
        isRested(r)
      ) {
        rested = r;
        restedBy = 'headers';
      }
    }
    prev = r;
  }
  if (pacedRejection) {
    result.paced = { ...result.paced, got429: pacedRejection.status === 429 };
    const long = notMinute(pacedRejection, `paced request ${result.paced.sent}`);
    if (long) return stopMeasuring(long, [prev.ex, pacedRejection.ex]);
    const others = [...shared.bursting].filter((p) => p !== plan);
    const prevRemaining = minuteHeaders(prev) ? prev.remaining : null;
    if (others.length > 0 && prevRemaining !== null && prevRemaining > 0) {
      ctx.judge(perKey, {
        kind: 'interference',
        plan,
        rejection: pacedRejection.ex,
        previous: prev.ex,
        bursting: others,
      });
    } else {
      ctx.judge(notStricterThanPlan, {
        kind: 'paced',
        plan,
        limit: L,
        windowSeconds: W,
        sent: result.paced.sent,
        spanMs: result.paced.spanMs,
        rejection: pacedRejection.ex,
        previous: prev.ex,
        rested: restedBy !== null,
        requestsPerDay: perDay,
      });
    }
    // Client discipline: after a 429 the key is left alone (its state is no longer known for a burst).
    result.note = `paced phase refused at request ${result.paced.sent}`;
    return finish();
  }
  ctx.judge(notStricterThanPlan, {
    kind: 'paced',
    plan,
    limit: L,
    windowSeconds: W,
    sent: result.paced.sent,
    spanMs: result.paced.spanMs,
    rejection: null,
    previous: prev.ex,
    rested: restedBy !== null,
    requestsPerDay: perDay,
  });

  // 3. Burst from the known state until the first refusal.
  shared.bursting.add(plan);
  let burst: Awaited<ReturnType<typeof runBurst>>;
  try {
    burst = await runBurst(ctx, prev, L, W, send);
  } finally {
    shared.bursting.delete(plan);
  }
  const known = burst.known;
  const after = burst.readings.filter((r) => r.ex.seq > known.ex.seq);
  const accepted = after.filter((r) => isAccepted(r.ex)).length;
  const lastEnd = Math.max(known.end, ...burst.readings.map((r) => r.end));
  const elapsedMs = lastEnd - known.ex.startedAt;
  const resetChanged = burst.readings.some((r) => r.reset !== prev.reset);
  const continuous = refillSeen || resetChanged;
  const rejection = burst.rejection;
  const knownR = minuteHeaders(known) ? known.remaining : null;
  const dailyBurst = rejection ? notMinute(rejection, `after ${accepted} accepted in its burst`) : null;
  let account: WindowAccount | null = null;
  if (
    rested &&
    restedBy &&
    rejection &&
    !dailyBurst &&
    !refillSeen &&
    !resetChanged &&
    !burst.remeasured &&
    (rejection.status === 429 || rejection.status === 503)
  ) {
    const lastSeq = Math.max(...burst.readings.map((b) => b.ex.seq));
    const since = history.filter((r) => r.ex.seq >= rested!.ex.seq && r.ex.seq <= lastSeq);
    // Counted against the plan only where every accepted response described the minute window, and its Remaining
    // never rose (beyond reordering of requests in flight): a rise is a new window or refill, Reset moved or not.
    const counted = since.filter((r) => isAccepted(r.ex));
    let low = Infinity;
    const rose = counted.some((r) => {
      const up = r.remaining !== null && r.remaining > low + BURST_IN_FLIGHT;
      low = Math.min(low, r.remaining ?? low);
      return up;
    });
    if (counted.every(minuteHeaders) && !rose) {
      account = {
        rested: rested.ex,
        by: restedBy,
        accepted: counted.length,
        rejection: rejection.ex,
        spanMs: lastEnd - rested.ex.startedAt,
      };
    }
  }
  ctx.judge(burstEnforced, {
    kind: 'burst',
    plan,
    limit: L,
    windowSeconds: W,
    requestsPerDay: perDay,
    known: known.ex,
    knownRemaining: known.remaining,
    exchanges: after.map((r) => r.ex),
    accepted,
    rejection: rejection?.ex ?? null,
    elapsedMs,
    continuous,
    cap: burst.cap,
    account,
    remeasured: burst.remeasured,
  });
  result.burst = {
    fromRemaining: knownR,
    accepted,
    allowance: refillAllowance(elapsedMs, L, W) + (continuous ? 1 : 0),
    first429AtRequest: rejection ? burst.readings.indexOf(rejection) + 1 : null,
  };
  if (dailyBurst) {
    // Daily quota (or a ban) reached in the burst: recorded by rl-burst-enforced; the key is not used again.
    result.note = `not measured: daily quota exhausted or key banned (${dailyBurst})`;
    return finish();
  }
  if (account) ctx.judge(notStricterThanPlan, { kind: 'window', plan, limit: L, account });
  if (!rejection) {
    result.note = 'no refusal within the burst cap';
    return finish();
  }

  // 4. The refusal's shape.
  ctx.judge(shape429, { exchange: rejection.ex });
  if (banned(rejection)) return blocked(`${rejection.status} instead of 429 at the end of its burst`, [rejection.ex]);
  if (rejection.status !== 429) {
    result.note = `refused with ${rejection.status ?? 'no answer'}, not 429`;
    return finish();
  }

  // 5. Rejected requests do not count: two more (spaced), then wait Retry-After from the FIRST 429: accepted.
  const ra1 = retryAfterMs(rejection.ex);
  result.retryAfterSeconds = ra1 === null ? null : ra1 / 1000;
  const extra: Reading[] = [];
  for (let i = 0; i < 2; i++) {
    await sleep(100);
    const r = await send();
    extra.push(r);
    if (banned(r)) {
      ctx.judge(shape429, { exchange: r.ex });
      return blocked(`${r.status} for request ${i + 1} of 2 sent after a 429`, [rejection.ex, r.ex]);
    }
  }
  const rejected = [...burst.readings.filter((r) => r.ex.seq >= rejection.ex.seq), ...extra].filter(
    (r) => r.status === 429,
  ).length;
  const fallback = (() => {
    const at = resetAtMs(rejection);
    return at !== null ? Math.min(W * 1000 + 2000, Math.max(0, at - rejection.end)) : W * 1000;
  })();
  // Retry-After is whole seconds and may be rounded down: wait a second more, never beyond one window's cap.
  const firstWait = Math.min((ra1 ?? fallback) + RETRY_MARGIN_MS, maxWaitMs);
  const waitFor = rejection.end + firstWait - Date.now();
  await wait(waitFor, `429: waiting Retry-After (${Math.ceil(firstWait / 1000)} s)`);
  const attempts: { exchange: Exchange; waitedMs: number }[] = [];
  const a0 = await send();
  attempts.push({ exchange: a0.ex, waitedMs: a0.ex.startedAt - rejection.end });
  if (banned(a0)) {
    ctx.judge(shape429, { exchange: a0.ex });
    return blocked(`${a0.status} after waiting Retry-After`, [rejection.ex, a0.ex]);
  }
  if (a0.status === 429) {
    const long = notMinute(a0, 'the request after waiting Retry-After');
    if (long) {
      // A wait beyond one window now: a ban or the day's quota. Not waited for (it could be hours); recorded.
      ctx.judge(banObserved, { plan, reason: `${long}; stopped using the key`, exchanges: [rejection.ex, a0.ex] });
      result.note = `not measured further: ${long}`;
      result.recovered = false;
      return finish();
    }
    // Once more, as the spec asks: the new Retry-After (a second more for rounding), backing off with jitter.
    const ra2 = retryAfterMs(a0.ex);
    const ms = Math.max(ra2 ?? 1000, 1000) + RETRY_MARGIN_MS + Math.floor(Math.random() * 250);
    await wait(Math.min(ms, maxWaitMs), '429 again: backing off');
    const a1 = await send();
    attempts.push({ exchange: a1.ex, waitedMs: a1.ex.startedAt - a0.end });
    const evidence = {
      plan,
      limit: L,
      first429: rejection.ex,
      retryAfterMs: ra1,
      rejected,
      attempts,
      fixedLike: !continuous,
    };
    ctx.judge(retryAfterHonoured, evidence);
    ctx.judge(rejectedNotCounted, evidence);
    result.recovered = isAccepted(a1.ex);
    if (banned(a1) || a1.status === 429)
      return blocked(`${a1.status} after waiting Retry-After twice`, [rejection.ex, a0.ex, a1.ex]);
    return finish();
  }
  const evidence = {
    plan,
    limit: L,
    first429: rejection.ex,
    retryAfterMs: ra1,
    rejected,
    attempts,
    fixedLike: !continuous,
  };
  ctx.judge(retryAfterHonoured, evidence);
  ctx.judge(rejectedNotCounted, evidence);
  result.recovered = isAccepted(a0.ex);
  return finish();
}

/**
 * Sends promptly (at most BURST_IN_FLIGHT in flight) until the first response that is not accepted, and stops at once
 * (requests already in flight complete). A window boundary crossed meanwhile (Reset later, Remaining jumping up) moves
 * the known state to the first response of the new window, once, with a new cap. Remaining counts only from headers
 * that describe the minute window (Limit = L): from any other state the cap leaves room for a window boundary crossed
 * unseen (2 × L), so that a limiter that never refuses still shows beyond doubt.
 */
async function runBurst(ctx: RunContext, start: Reading, L: number, W: number, send: () => Promise<Reading>) {
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
      const r = await send();
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
  ctx.log.count('listPets', 'cases');
  await Promise.all(Array.from({ length: BURST_IN_FLIGHT }, worker));
  readings.sort((a, b) => a.ex.seq - b.ex.seq);
  return { known, readings, rejection: rejection as Reading | null, cap: sent, remeasured };
}
