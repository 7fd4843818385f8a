/**
 * Rate limits per plan (section 8), measured black-box and judged by checks/rate-limit.ts. Each key goes through the
 * same phases, each a small function over the key's record (KeyRun):
 *   warm-up, all keys in parallel: probe (rested?) → pace at 0.9 × the plan's rate;
 *   turns, one key at a time, the others idle: one request (the key at rest while earlier keys burst: its Remaining
 *   may have fallen by that request only) → burst promptly until the first 429 → its shape → (keys after the first)
 *   one request on each other operation: refused too, or the same counter;
 *   recovery, in parallel with later turns: wait Retry-After (+1 s for whole-second rounding) → one request must be
 *   accepted; the first key sends nothing at all between its 429 and then, so a refusal there is a ban for a client
 *   that honoured Retry-After;
 *   then every other form of Authorization the target accepts is counted like the plain one (rate-limit-forms.ts).
 * The suite behaves as the spec asks of clients: one request at a time except in the burst (at most 4 in flight, one
 * alone when the key's Remaining says the next is its last), never more than two requests after a 429 before its
 * Retry-After has passed, and a key that looks banned is dropped at once (KeyBlockedError: the run exits 3). A 429
 * whose wait reaches beyond one window (the daily quota, or a ban) is never waited out: it is recorded and the key is
 * not used again. Headers may describe the day window ("the limit in force"): Remaining and rest are read only from
 * headers whose Limit is the plan's per minute. Every request goes through RunContext.send (recorded, every response
 * check applied), unpaced and never resent: each 429 is evidence here. Every request but a burst's is a reading sent
 * from a quiet key (no request of the run on it in flight: RunContext.quiet); a burst is judged from the reading it
 * started from once each of its requests is answered or failed, its count never restarted, per window when the Reset
 * announced at its start falls within it (crossedBoundary). What each key proved, and what could not be measured and
 * why, goes to the results table (KeyRateLimitResult).
 */
import type { PlanKey } from '../../config/config.js';
import type { PlanName } from '../../spec/contract.js';
import type { Exchange } from '../../http/exchange.js';
import { KeyBlockedError } from '../../errors/catalogue.js';
import type { AuthSpec, OutgoingRequest } from '../../http/client.js';
import { readRateLimit, type RateLimitReading } from '../../http/rate-limit-headers.js';
import {
  banLike,
  banObserved,
  burstAllowance,
  burstEnforced,
  honouredNotBanned,
  isAccepted,
  maxRetryAfterWaitMs,
  notMinuteRefusal,
  notStricterThanPlan,
  oneCounterPerKey,
  perKey,
  refillAllowance,
  rejectedNotCounted,
  retryAfterHonoured,
  shape429,
  unauthenticatedRateLimited,
  type BurstBoundary,
  type WindowAccount,
} from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { RunContext } from '../context.js';
import { isRunStopped } from '../limits.js';
import { type KeyRateLimitResult, LEFT_OUT, type ScenarioReturn } from '../rate-limit-results.js';
import * as req from '../requests.js';
import { everyFormPhase, formPhaseMinimum } from './rate-limit-forms.js';

export type { KeyRateLimitResult as RateLimitResult } from '../rate-limit-results.js';

/** Largest per-window limit measured with a burst; beyond it the requests would cost more than they tell. */
export const MAX_BURST_LIMIT = 2000;
/**
 * The requests that measure one key whatever the window's phase: the paced requests (at most a window's limit), a
 * burst that may begin in a fresh window (its whole limit again: a fixed window crossed while pacing, a limiter that
 * refilled), the 429, what was in flight with it, the requests on other operations and the recovery, then the
 * other forms of Authorization (formPhaseMinimum). One window's worth is not enough: a run given it was measured
 * seen cut short when the pace crossed a window boundary.
 */
export function keyMinimum(requestsPerMinute: number): number {
  return requestsPerMinute > MAX_BURST_LIMIT
    ? 0
    : 2 * requestsPerMinute + 1 + (BURST_IN_FLIGHT - 1) + 2 + 2 + formPhaseMinimum(requestsPerMinute);
}
/** The requests with an invalid key the suite sends once (whether 401s are rate-limited). */
export const UNAUTHENTICATED_REQUESTS = 3;

/** Requests in flight during a burst: few, since a target may ban a key for requests that follow a 429. */
const BURST_IN_FLIGHT = 4;
/** Paced rate as a fraction of the plan's: "just under" it. */
const PACE = 0.9;
/** Margin added to every wait for a reset (clock granularity, latency). */
const MARGIN_MS = 250;
/** Added to every Retry-After waited for: a whole-second value may be up to a second short (see ROUNDING_MS). */
const RETRY_MARGIN_MS = 1000;
/** A Reset in whole epoch seconds lies within this of the real boundary, rounded up or down. */
const RESET_ROUNDING_MS = 1000;
/**
 * The burst's 429 is aimed this long before the window that began at the probe ends: a Retry-After of ~4-5 s that
 * is half the real wait (2 s) is still refused after waiting it plus a second, so "too short" shows beyond rounding.
 */
const TAIL_MS = 4500;
/** Body of the createPet request sent just after a 429 (the pet stays: the spec has no delete). */
const PROBE_PET = '{"name":"psc-rate-limit-probe","categoryId":1}';

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

/**
 * After its 429, the first key sends nothing until Retry-After has passed (a ban then is the target's fault); the
 * others send one request on each other operation (a limit counted per route shows there).
 */
type Role = 'honour' | 'other-operations';

/** What the keys share: every key's record (to count what the others sent), and whether limits proved shared. */
interface Shared {
  readonly runs: KeyRun[];
  /** A key's Remaining fell by another key's requests: counts against the plan are no longer sound for any key. */
  keysShared: boolean;
}

/** One key's record through the phases: its plan, what it sent, and what the phases learned. */
interface KeyRun {
  readonly ctx: RunContext;
  readonly shared: Shared;
  /** The plan, or plan#2 for a second key of the same plan. */
  readonly label: string;
  readonly plan: PlanName;
  readonly role: Role;
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
  /**
   * The key's headers showed refill between requests or a Reset that moved during the burst: not a fixed window as far
   * as they tell, so the retry phase never reads it as one (fixedLike).
   */
  continuous: boolean;
  /** Requests the target may have received after the key's first 429 and before its Retry-After passed. */
  sentAfter429: number;
  readonly result: Mutable<KeyRateLimitResult> & { proven: string[]; unmeasured: string[] };
}

function newKeyRun(ctx: RunContext, shared: Shared, key: PlanKey, label: string, role: Role, W: number): KeyRun {
  const L = key.limits!.requestsPerMinute;
  return {
    ctx,
    shared,
    label,
    plan: key.plan,
    role,
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
    sentAfter429: 0,
    result: {
      suite: 'rate-limit',
      plan: key.plan,
      key: label,
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
      proven: [],
      unmeasured: [],
    },
  };
}

/**
 * A request of the key (GET /pets?limit=1 unless said) through the one send path: unpaced, a 429 never resent. Every
 * request but a burst's is a reading that a phase starts from or judges (a probe, a paced request, the turn's first,
 * a probe of another operation, a recovery): it goes out only once no request of the run on the key is in flight, so
 * that the Remaining it reports counts all of them (RunContext.quiet).
 */
async function send(k: KeyRun, request: OutgoingRequest = req.listPets(k.auth, '?limit=1')): Promise<Reading> {
  await k.ctx.quiet(k.auth);
  return sendNow(k, request);
}

/** One request of a burst: it does not wait for the others in flight. */
async function sendNow(k: KeyRun, request: OutgoingRequest = req.listPets(k.auth, '?limit=1')): Promise<Reading> {
  const r = read(await k.ctx.send(request, { pace: false, resendOn429: false }));
  k.history.push(r);
  return r;
}

async function wait(k: KeyRun, ms: number, reason: string): Promise<void> {
  if (ms <= 0) return;
  k.waitedMs += ms;
  await k.ctx.waitFor(ms, `${k.label} key: ${reason}`, k.plan);
}

const proven = (k: KeyRun, what: string) => k.result.proven.push(what);
const unmeasured = (k: KeyRun, what: string) => k.result.unmeasured.push(what);

/** Headers that describe the minute window (Limit = the plan's per minute): only they show rest or Remaining. */
const minuteHeaders = (k: KeyRun, r: Reading) => r.limit === k.L;
const isRested = (k: KeyRun, r: Reading) =>
  isAccepted(r.ex) && minuteHeaders(k, r) && r.remaining !== null && r.remaining >= k.L - 1;

/** A key that worked and now gets 401/403 (or 429s beyond Retry-After): stop using it, and stop the run. */
function blocked(k: KeyRun, reason: string, exchanges: Exchange[]): never {
  k.ctx.judge(banObserved, { plan: k.plan, reason, exchanges });
  k.result.note = `key looks banned: ${reason}`;
  throw new KeyBlockedError(`key ${k.label}: ${reason}; stopped using it`);
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
  unmeasured(k, note.replace(/^not measured: /, ''));
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

/** Labels: the plan, and plan#2, plan#3 for further keys of the same plan. */
function labels(keys: readonly PlanKey[]): string[] {
  const seen = new Map<string, number>();
  return keys.map((k) => {
    const n = (seen.get(k.plan) ?? 0) + 1;
    seen.set(k.plan, n);
    return n === 1 ? k.plan : `${k.plan}#${n}`;
  });
}

export async function rateLimitScenario(ctx: RunContext): Promise<ScenarioReturn> {
  const W = ctx.settings.windowSeconds ?? 60;
  const keys = ctx.settings.keys.filter((k) => k.limits !== null);
  const names = labels(keys);
  const shared: Shared = { runs: [], keysShared: false };
  shared.runs.push(
    ...keys.map((k, i) => newKeyRun(ctx, shared, k, names[i]!, i === 0 ? 'honour' : 'other-operations', W)),
  );
  const failures: unknown[] = [];
  /** Runs one phase of a key; a failure (a banned key, a harness error) ends that key only, and is rethrown at the end. */
  const phase = async <T>(fn: () => Promise<T | null>, k?: KeyRun): Promise<T | null> => {
    try {
      return await fn();
    } catch (e) {
      // A limit of the run (budget, deadline) that stops a key's phase: the key says so, never a bare zero.
      if (k && isRunStopped(e) && k.result.note === null) {
        k.result.note = `${LEFT_OUT}${(e as Error).message}`;
        unmeasured(k, `the rest of its phases: ${(e as Error).message}`);
      }
      failures.push(e);
      return null;
    }
  };
  const unauth = phase(() => unauthenticated(ctx));
  const ready = await Promise.all(shared.runs.map((k) => phase(() => warmUp(k), k)));
  // Turns, one key at a time, the roomiest first: while one bursts the others are idle, so that each key's next
  // request shows whether the burst of another moved its Remaining.
  const order = shared.runs
    .map((k, i) => ({ k, last: ready[i] ?? null }))
    .filter((x): x is { k: KeyRun; last: Reading } => x.last !== null)
    .sort((a, b) => (b.last.remaining ?? -1) - (a.last.remaining ?? -1) || b.k.L - a.k.L);
  const recoveries: Promise<unknown>[] = [];
  for (const { k, last } of order) {
    const rejection = await phase(() => turn(k, last), k);
    if (rejection) recoveries.push(phase(() => recover(k, rejection).then(() => forms(k)), k));
    else unmeasured(k, 'every authorization form counted: its turn ended without a 429 to recover from');
  }
  await Promise.all([unauth, ...recoveries]);
  for (const k of shared.runs)
    if (!shared.runs.some((o) => o !== k)) unmeasured(k, 'isolation from other keys: only one key configured');
  const outcomes = shared.runs.map(finish);
  const rateLimits = shared.runs.map(resultOf);
  // The keys' reported limits side by side: each plan's key gets its plan's numbers.
  ctx.judge(perKey, {
    kind: 'limits',
    keys: keys.map((k, i) => ({
      plan: k.plan,
      limits: k.limits!,
      reported: outcomes[i]!.reportedLimit,
      exchange: outcomes[i]!.limitExchange,
    })),
  });
  // What ended a key early ends the suite, its numbers kept: any other failure first, then a blocked key.
  const ended =
    failures.find((e) => !(e instanceof KeyBlockedError)) ?? failures.find((e) => e instanceof KeyBlockedError);
  return { rateLimits, ...(ended !== undefined && { ended }) };
}

/** Phase 6, once the key recovered: every other form of Authorization it is accepted in is counted like the plain one. */
function forms(k: KeyRun): Promise<null> {
  if (k.result.recovered !== true || k.shared.keysShared) {
    unmeasured(
      k,
      `every authorization form counted: ${k.shared.keysShared ? "other keys' requests were shown to count against its limit" : 'the key did not recover after its 429'}`,
    );
    return Promise.resolve(null);
  }
  return everyFormPhase({
    ctx: k.ctx,
    label: k.label,
    plan: k.plan,
    limit: k.L,
    windowSeconds: k.W,
    auth: k.auth,
    latencyMs: [...k.latencies].sort((a, b) => a - b)[Math.floor(k.latencies.length / 2)] ?? 1,
    send: async (request, quiet) => (await (quiet ? send(k, request) : sendNow(k, request))).ex,
    wait: (ms, reason) => wait(k, ms, reason),
    proven: (what) => proven(k, what),
    unmeasured: (what) => unmeasured(k, what),
  });
}

/** Whether responses to an invalid key carry rate-limit headers or get 429 (a gap of the spec): 3 requests. */
async function unauthenticated(ctx: RunContext): Promise<null> {
  const auth: AuthSpec = { template: 'Bearer psc-invalid-key-for-rate-limits', key: null, keyPlan: 'invalid' };
  const exchanges: Exchange[] = [];
  for (let i = 0; i < UNAUTHENTICATED_REQUESTS; i++)
    exchanges.push(await ctx.send(req.listPets(auth, '?limit=1'), { resendOn429: false }));
  ctx.judge(unauthenticatedRateLimited, { exchanges });
  return null;
}

interface KeyOutcome {
  /** The X-RateLimit-Limit this key reported most often on accepted responses, and one exchange that showed it. */
  readonly reportedLimit: number | null;
  readonly limitExchange: Exchange | null;
}

/** The most frequent Limit among accepted readings of GET /pets. */
function modalLimit(readings: readonly Reading[]): KeyOutcome {
  const counts = new Map<number, { n: number; ex: Exchange }>();
  for (const r of readings) {
    if (r.limit === null || !isAccepted(r.ex) || r.ex.operation !== 'listPets') continue;
    const c = counts.get(r.limit);
    if (c) c.n++;
    else counts.set(r.limit, { n: 1, ex: r.ex });
  }
  let best: { value: number | null; ex: Exchange | null; n: number } = { value: null, ex: null, n: 0 };
  for (const [value, c] of counts) if (c.n > best.n) best = { value, ex: c.ex, n: c.n };
  return { reportedLimit: best.value, limitExchange: best.ex };
}

/** Completes the key's numbers; returns what it reported as its limit. */
function finish(k: KeyRun): KeyOutcome {
  k.result.waitedMs = k.waitedMs;
  k.result.requests = k.history.length;
  k.result.durationMs = Date.now() - k.t0;
  return modalLimit(k.history);
}

/** The key's numbers for the reports. */
function resultOf(k: KeyRun): KeyRateLimitResult {
  return { ...k.result, proven: [...k.result.proven], unmeasured: [...k.result.unmeasured] };
}

/** Probe and pace; returns the last paced reading when the key goes on to its turn. */
async function warmUp(k: KeyRun): Promise<Reading | null> {
  if (k.L > MAX_BURST_LIMIT) {
    return skip(
      k,
      `limit too large for a bounded burst (more than ${MAX_BURST_LIMIT} requests per window)`,
      'not measured: limit too large for a bounded burst',
      [],
    );
  }
  k.ctx.log.count('listPets', 'cases');
  const start = await probe(k);
  return start && (await pace(k, start));
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
  else unmeasured(k, 'counting against the plan from rest: its headers never showed it rested');
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

/** Requests each other key sent that the target may have counted between two responses of `k`. */
function othersBetween(k: KeyRun, before: Reading, after: Reading): { key: string; requests: number }[] {
  return k.shared.runs
    .filter((o) => o !== k)
    .map((o) => ({
      key: o.label,
      requests: o.history.filter((r) => r.ex.startedAt < after.end && r.end > before.ex.startedAt).length,
    }));
}

/**
 * Two successive responses of the key (`own` of its requests after `before`): did other keys' requests move its
 * Remaining? Returns whether they did (rl-per-key); from then on no count against a plan is sound for any key.
 */
function judgeIsolation(k: KeyRun, before: Reading, after: Reading, own: number): boolean {
  const others = othersBetween(k, before, after);
  if (others.every((o) => o.requests === 0)) return false;
  const found = k.ctx.judge(perKey, {
    kind: 'isolation',
    key: k.label,
    plan: k.plan,
    limit: k.L,
    windowSeconds: k.W,
    requestsPerDay: k.perDay,
    before: before.ex,
    after: after.ex,
    ownRequests: own,
    others,
  });
  if (found.some((f) => f.level === 'violation')) {
    k.shared.keysShared = true;
    k.result.note = "another key's requests were counted against this key";
  }
  return found.length > 0;
}

/**
 * Phase 2: paced at 0.9 × the plan's rate, no 429 allowed. It ends so that the burst's 429 comes about TAIL_MS
 * before a window that began at the probe would end: Retry-After then describes a wait of several seconds, so one
 * that is too short shows beyond whole-second rounding, and the suite waits a few seconds, not W. Returns the last
 * paced reading, or null after a refusal.
 */
async function pace(k: KeyRun, probe: Reading): Promise<Reading | null> {
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
    if (delay > 0) await k.ctx.sleep(delay);
    const r = await send(k);
    k.latencies.push(r.ex.durationMs);
    k.result.paced = { sent: i, spanMs: r.end - paceStart, got429: false };
    if (banned(r)) blocked(k, `${r.status} while pacing under its plan's rate`, [prev.ex, r.ex]);
    const shared = judgeIsolation(k, prev, r, 1);
    if (!isAccepted(r.ex)) return pacedRefusal(k, prev, r, shared);
    noteRefillOrRestart(k, prev, r);
    prev = r;
  }
  k.ctx.judge(notStricterThanPlan, pacedEvidence(k, prev, null));
  proven(
    k,
    `paced ${k.result.paced.sent} request${k.result.paced.sent === 1 ? '' : 's'} at 0.9 × ${k.L} per ${k.W} s without a 429`,
  );
  return prev;
}

/**
 * Between two responses of the minute window, the key's one request between them: a restart is a new window (Reset
 * later, Remaining up to rested), from which the key is rested again; otherwise a Remaining that did not fall by that
 * request is refill, whether or not Reset moved (a token bucket's Reset may never move, or move with a clock's
 * minute). Paced at 0.9 × the plan's rate, a limiter that refills at the plan's rate always shows it so.
 */
function noteRefillOrRestart(k: KeyRun, prev: Reading, r: Reading): void {
  if (!isAccepted(prev.ex) || !minuteHeaders(k, r) || !minuteHeaders(k, prev)) return;
  if (r.remaining === null || prev.remaining === null) return;
  const later = r.reset !== null && prev.reset !== null && r.reset > prev.reset;
  if (later && r.remaining > prev.remaining && isRested(k, r)) {
    k.rested = r;
    k.restedBy = 'headers';
  } else if (r.remaining >= prev.remaining) k.continuous = true;
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
 * A refusal while pacing: stricter than the plan, unless other keys' requests were counted against this one (judged
 * already by rl-per-key). After it the key is left alone: its state is no longer known.
 */
function pacedRefusal(k: KeyRun, prev: Reading, refusal: Reading, judgedShared: boolean): null {
  k.result.paced = { ...k.result.paced, got429: refusal.status === 429 };
  const long = notMinute(k, refusal, `paced request ${k.result.paced.sent}`);
  if (long) return stopMeasuring(k, long, [prev.ex, refusal.ex]);
  if (!judgedShared && !k.shared.keysShared) k.ctx.judge(notStricterThanPlan, pacedEvidence(k, prev, refusal));
  k.result.note ??= `paced phase refused at request ${k.result.paced.sent}`;
  unmeasured(k, `burst and recovery: refused while pacing (request ${k.result.paced.sent})`);
  return null;
}

/**
 * The key's turn, the other keys idle: one request first (the key was idle since `last` while earlier keys burst),
 * then the burst, then, for keys after the first, one request on each other operation. Returns the 429 that ended
 * the burst when the key goes on to recovery.
 */
async function turn(k: KeyRun, last: Reading): Promise<Reading | null> {
  const known = await send(k);
  if (banned(known)) blocked(k, `${known.status} after it had worked`, [last.ex, known.ex]);
  const shared = judgeIsolation(k, last, known, 1);
  noteIsolation(k, last, known, shared);
  if (!isAccepted(known.ex)) return pacedRefusal(k, last, known, shared);
  noteRefillOrRestart(k, last, known);
  const rejection = await burst(k, known);
  if (rejection && k.role === 'other-operations') await otherOperations(k, rejection);
  else if (rejection) {
    unmeasured(
      k,
      k.shared.runs.length > 1
        ? 'one counter across operations: this key sent nothing after its 429 (it proves Retry-After honoured); the other keys probe the other operations'
        : 'one counter across operations: with one key, it sends nothing after its 429 (it proves Retry-After honoured); a second key would probe the other operations',
    );
  }
  return rejection;
}

/** What the key's turn showed about isolation from the others, for the results table. */
function noteIsolation(k: KeyRun, last: Reading, known: Reading, shared: boolean): void {
  if (shared) return;
  const others = othersBetween(k, last, known).filter((o) => o.requests > 0);
  if (others.length === 0) {
    unmeasured(k, 'isolation: no other key sent requests while it was observed at rest (it had the first turn)');
    return;
  }
  if (!minuteHeaders(k, last) || !minuteHeaders(k, known) || last.remaining === null) {
    unmeasured(k, 'isolation: its headers did not describe the minute window, so its Remaining could not be compared');
    return;
  }
  const same = others.filter((o) => o.key.split('#')[0] === k.plan).map((o) => o.key);
  const how =
    same.length > 0
      ? `including a second key of its plan (${same.join(', ')})`
      : `keys of other plans only: a second ${k.plan} key (PETSTORE_API_KEY_${k.plan.toUpperCase()}=key1,key2) would isolate within the plan`;
  proven(
    k,
    `isolated from other keys: at rest while ${others.map((o) => `the ${o.key} key sent ${o.requests}`).join(', ')} (${how}), its Remaining went ${last.remaining} → ${known.remaining ?? 'refused'} with its own one request`,
  );
}

/**
 * Phase 3: a prompt burst from the known state until the first refusal, judged against the Remaining it started
 * from (and, from a rested key, against the plan). Returns the 429 that ended it when the key goes on to recovery.
 */
async function burst(k: KeyRun, prev: Reading): Promise<Reading | null> {
  const b = await runBurst(k, prev);
  const { known, rejection } = b;
  const after = b.readings;
  const accepted = after.filter((r) => isAccepted(r.ex)).length;
  const lastEnd = Math.max(known.end, ...b.readings.map((r) => r.end));
  const elapsedMs = lastEnd - known.ex.startedAt;
  const resetChanged = b.readings.some((r) => r.reset !== prev.reset);
  const refillSeen = k.continuous;
  k.continuous = refillSeen || resetChanged;
  k.sentAfter429 = rejection ? b.readings.filter((r) => r.ex.seq > rejection.ex.seq).length : 0;
  const dailyBurst = rejection ? notMinute(k, rejection, `after ${accepted} accepted in its burst`) : null;
  k.result.burst = {
    fromRemaining: minuteHeaders(k, known) ? known.remaining : null,
    accepted,
    allowance: burstAllowance(elapsedMs, k.L, k.W),
    first429AtRequest: rejection ? b.readings.indexOf(rejection) + 1 : null,
    elapsedMs,
  };
  if (rejection && rejection.status === null) {
    // A request of the burst failed (a timeout, a reset): what the target counted of it is unknown.
    return skip(
      k,
      `a request of its burst failed (${rejection.ex.error?.code ?? 'no answer'}) after ${accepted} accepted, so what the target counted is unknown`,
      'not measured: a request of its burst failed',
      [known.ex, rejection.ex],
    );
  }
  if (k.shared.keysShared) {
    unmeasured(k, "burst against its Remaining and plan: other keys' requests were shown to count against its limit");
  } else {
    const boundary = dailyBurst ? null : crossedBoundary(k, known, after, lastEnd);
    const account = !dailyBurst && !refillSeen && !resetChanged && !boundary ? windowAccount(k, b, lastEnd) : null;
    const found = k.ctx.judge(burstEnforced, {
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
      cap: b.cap,
      account,
      boundary,
    });
    if (account) k.ctx.judge(notStricterThanPlan, { kind: 'window', plan: k.plan, limit: k.L, account });
    if (rejection && !dailyBurst && found.length === 0) {
      const how = boundary
        ? `across the window boundary announced at its start (${boundary.acceptedBefore} + ${boundary.acceptedAfter} accepted either side)`
        : `refill allowance ${k.result.burst.allowance}`;
      proven(
        k,
        `burst from Remaining ${k.result.burst.fromRemaining ?? '?'}: ${accepted} accepted (${how}), then ${rejection.status}${account ? `; ${account.accepted} accepted from rest within one window` : ''}`,
      );
    }
  }
  if (dailyBurst) {
    // Daily quota (or a ban) reached in the burst: recorded by rl-burst-enforced; the key is not used again.
    k.result.note = `not measured: daily quota exhausted or key banned (${dailyBurst})`;
    unmeasured(k, `recovery: ${k.result.note}`);
    return null;
  }
  if (!rejection) {
    k.result.note = 'no refusal within the burst cap';
    unmeasured(k, 'recovery: no refusal within the burst cap');
    return null;
  }
  // Phase 4: the refusal's shape.
  k.ctx.judge(shape429, { exchange: rejection.ex });
  if (banned(rejection)) blocked(k, `${rejection.status} instead of 429 at the end of its burst`, [rejection.ex]);
  if (rejection.status !== 429) {
    k.result.note = `refused with ${rejection.status ?? 'no answer'}, not 429`;
    unmeasured(k, `recovery: ${k.result.note}`);
    return null;
  }
  return rejection;
}

/**
 * An answer whose Reset is a whole window later than `announced` (give or take a second of rounding): the next window's.
 * A Reset that moves a little (a token bucket's "full again", a Reset that follows the clock's second) is none.
 */
const nextWindow = (k: KeyRun, announced: number, r: Reading): boolean =>
  r.reset !== null && r.reset >= announced + Math.max(1, k.W - 1);

/**
 * Whether the burst crossed a window boundary, and how its accepted requests fall either side. The Reset the burst's
 * starting response announced (`known`, read from a quiet key) says where a boundary lies: it falls within the burst
 * when it lies, give or take its whole-second rounding, between the burst's first request and its last answer, and
 * answers after it carry the next window's Reset (a whole window later). A Reset that moves a little with every
 * answer (a token bucket's "full again", a Reset that follows the clock's second) is no boundary: refill explains
 * what such a limiter grants. A Remaining that restarts (up beyond what reordering and refill explain) with a
 * later Reset shows a boundary whatever the clocks say. Counting never restarts: every request after `known` is
 * counted, and the bound allows a fresh Limit after the boundary (checks/rate-limit.ts).
 */
function crossedBoundary(
  k: KeyRun,
  known: Reading,
  readings: readonly Reading[],
  lastEnd: number,
): BurstBoundary | null {
  if (!minuteHeaders(k, known) || known.reset === null) return null;
  const announced = known.reset;
  const minute = readings.filter((r) => minuteHeaders(k, r) && r.reset !== null && r.remaining !== null);
  const later = (r: Reading) => r.reset !== null && r.reset > announced;
  if (!minute.some(later)) return null;
  const near =
    known.resetAtMs !== null &&
    known.resetAtMs - RESET_ROUNDING_MS <= lastEnd &&
    known.resetAtMs + RESET_ROUNDING_MS >= known.ex.startedAt &&
    minute.some((r) => nextWindow(k, announced, r));
  const slack = 2 * BURST_IN_FLIGHT + refillAllowance(lastEnd - known.ex.startedAt, k.L, k.W);
  let low = known.remaining ?? Infinity;
  let restart = false;
  for (const r of minute) {
    if (later(r) && r.remaining! > low + slack) restart = true;
    low = Math.min(low, r.remaining!);
  }
  if (!near && !restart) return null;
  const acceptedAfter = readings.filter((r) => isAccepted(r.ex) && later(r)).length;
  return {
    announcedReset: announced,
    by: near ? 'announced' : 'restart',
    acceptedBefore: readings.filter((r) => isAccepted(r.ex)).length - acceptedAfter,
    acceptedAfter,
  };
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
  // Counting from rest needs a paced request after it: only that pair shows whether the limiter refills (see
  // noteRefillOrRestart); without it a token bucket's refill would read as requests over the plan.
  if (k.result.paced.sent < 1) return null;
  const lastSeq = Math.max(...b.readings.map((r) => r.ex.seq));
  const counted = k.history.filter((r) => r.ex.seq >= rested.ex.seq && r.ex.seq <= lastSeq && isAccepted(r.ex));
  let low = Infinity;
  const rose = counted.some((r) => {
    const up = r.remaining !== null && r.remaining > low + BURST_IN_FLIGHT;
    low = Math.min(low, r.remaining ?? low);
    return up;
  });
  // One window: every answer counted carries the Reset the rested one did. A sliding counter that rolled over meanwhile
  // (its Reset moved) weighs what came before less, whether or not its Remaining showed it (16 accepted for 15 from
  // rest over 3.5 s of a 2 s window, on a slow host).
  if (!counted.every((r) => minuteHeaders(k, r) && r.reset === rested.reset) || rose) return null;
  return {
    rested: rested.ex,
    by: restedBy,
    accepted: counted.length,
    rejection: rejection.ex,
    spanMs: lastEnd - rested.ex.startedAt,
  };
}

interface BurstRun {
  /** The state the burst is judged from: the turn's first request, read from a quiet key. */
  readonly known: Reading;
  /** The burst's responses (every one after `known`) in the order they were sent, every one settled. */
  readonly readings: Reading[];
  readonly rejection: Reading | null;
  /** Requests sent. */
  readonly cap: number;
}

/**
 * Sends promptly (at most BURST_IN_FLIGHT in flight) from `start` (read from a quiet key) until the first response
 * that is not accepted, and stops at once; it returns once every request sent is answered or failed. When the lowest
 * Remaining seen says the requests in flight use up the window, the next one goes alone: the 429 then comes with
 * nothing else in flight, so no request follows it unseen. Each Remaining is lowered by the requests in flight when
 * its own was sent: the target may have counted those after it, or count them only once it has answered them. An answer
 * with a Reset later than the start's begins the gate of that Reset; one with the next window's Reset may come with a
 * fresh Limit: the cap grows by one L. Remaining counts only from headers that describe the minute window (Limit =
 * L): from any other state the cap leaves room for a window boundary crossed unseen (2 × L), so that a limiter that
 * never refuses still shows beyond doubt. The count never restarts: the burst is judged from `start` (see crossedBoundary).
 */
async function runBurst(k: KeyRun, start: Reading): Promise<BurstRun> {
  const { L, W } = k;
  const minuteR = (r: Reading) => (r.limit === L ? r.remaining : null);
  const R0 = minuteR(start);
  const base = R0 !== null ? R0 + Math.floor(L / 2) + 10 : 2 * L + 10;
  // The cap grows with the refill elapsed time explains (a token bucket refills during a burst), up to a hard bound,
  // and by a fresh Limit once an answer carried the next window's Reset.
  const hardBase = (R0 ?? L) + 2 * L + 10;
  let crossed = false;
  const capNow = () => {
    const fresh = crossed ? L : 0;
    return Math.min(hardBase + fresh, base + fresh + refillAllowance(Date.now() - start.ex.startedAt, L, W));
  };
  /** The lowest Remaining seen in the latest window, less what was in flight alongside: what is left, whatever the reply order. */
  let gate = R0;
  let gateReset = R0 !== null ? start.reset : null;
  let sent = 0;
  let inFlight = 0;
  let stop = false;
  let rejection: Reading | null = null;
  const readings: Reading[] = [];
  let release = () => {};
  let settled = new Promise<void>((r) => (release = r));
  const worker = async () => {
    while (!stop && sent < capNow()) {
      if (inFlight > 0 && gate !== null && gate - inFlight < 1) {
        await settled;
        continue;
      }
      const alongside = inFlight;
      sent++;
      inFlight++;
      const r = await sendNow(k);
      readings.push(r);
      // What this response says is recorded before the workers waiting on it look again.
      inFlight--;
      const rem = minuteR(r);
      if (rem !== null) {
        const low = rem - alongside;
        if (r.reset !== null && gateReset !== null && r.reset > gateReset) {
          gate = low;
          gateReset = r.reset;
        } else gate = gate === null ? low : Math.min(gate, low);
        gateReset ??= r.reset;
        if (start.reset !== null && nextWindow(k, start.reset, r)) crossed = true;
      }
      const wake = release;
      settled = new Promise<void>((res) => (release = res));
      wake();
      if (!isAccepted(r.ex)) {
        if (!rejection || r.ex.seq < rejection.ex.seq) rejection = r;
        stop = true;
      }
    }
  };
  k.ctx.log.count('listPets', 'cases');
  await Promise.all(Array.from({ length: BURST_IN_FLIGHT }, worker));
  readings.sort((a, b) => a.ex.seq - b.ex.seq);
  return { known: start, readings, rejection: rejection as Reading | null, cap: sent };
}

/**
 * Just after the 429 on GET /pets, one request on each other operation (two requests: within the client discipline
 * of a couple after a 429): refused too, or headers that show the same counter. A fresh allowance there is a limit
 * counted per route.
 */
async function otherOperations(k: KeyRun, rejection: Reading): Promise<void> {
  const probes: Exchange[] = [];
  for (const request of [req.createPet(k.auth, PROBE_PET), req.getPet(k.auth, '1')]) {
    await k.ctx.sleep(50);
    const r = await send(k, request);
    probes.push(r.ex);
    k.sentAfter429++;
    if (banned(r)) {
      k.ctx.judge(shape429, { exchange: r.ex });
      blocked(k, `${r.status} for ${request.method} ${request.path} sent once after a 429`, [rejection.ex, r.ex]);
    }
  }
  const found = k.ctx.judge(oneCounterPerKey, {
    key: k.label,
    plan: k.plan,
    limit: k.L,
    windowSeconds: k.W,
    first429: rejection.ex,
    probes,
  });
  if (found.length > 0) return;
  const refused = probes.filter((p) => statusOf(p) === 429).length;
  if (refused === probes.length)
    proven(k, 'one counter across operations: POST /pets and GET /pets/{petId} refused too just after its 429');
  else
    proven(
      k,
      `one counter across operations: ${probes.length - refused} of its requests on other operations just after its 429 were answered without a fresh allowance`,
    );
}

/**
 * Phase 5: wait Retry-After from the FIRST 429 (a second more for whole-second rounding, never beyond one window's
 * cap): the next request must be accepted. A ban-like refusal (401/403, a longer wait, a Reset moved later) is, for
 * a key that sent nothing after its 429, a ban of a client that honoured Retry-After; otherwise Retry-After may be
 * short: wait the new one once more, backing off.
 */
async function recover(k: KeyRun, rejection: Reading): Promise<null> {
  k.result.retryAfterSeconds = rejection.retryAfterMs === null ? null : rejection.retryAfterMs / 1000;
  const fallback =
    rejection.resetAtMs !== null
      ? Math.min(k.W * 1000 + 2000, Math.max(0, rejection.resetAtMs - rejection.end))
      : k.W * 1000;
  const firstWait = Math.min((rejection.retryAfterMs ?? fallback) + RETRY_MARGIN_MS, maxRetryAfterWaitMs(k.W));
  const pure = k.sentAfter429 === 0;
  await wait(
    k,
    rejection.end + firstWait - Date.now(),
    `429: waiting Retry-After (${Math.ceil(firstWait / 1000)} s)${pure ? ', sending nothing meanwhile' : ''}`,
  );
  const a0 = await send(k);
  const attempt = { exchange: a0.ex, waitedMs: a0.ex.startedAt - rejection.end };
  const rejected = k.history.filter(
    (r) => r.ex.seq >= rejection.ex.seq && r.ex.seq < a0.ex.seq && r.status === 429,
  ).length;
  if (k.shared.keysShared) {
    k.result.recovered = isAccepted(a0.ex);
    unmeasured(k, "recovery after Retry-After: other keys' requests were shown to count against its limit");
    if (banned(a0)) blocked(k, `${a0.status} after waiting Retry-After`, [rejection.ex, a0.ex]);
    return null;
  }
  const ban = isAccepted(a0.ex)
    ? null
    : banLike(a0.ex, rejection.ex, { limit: k.L, windowSeconds: k.W, requestsPerDay: k.perDay });
  if (ban !== null) return refusedAfterWaiting(k, rejection, a0, attempt, ban, pure);
  let last = a0;
  const attempts = [attempt];
  if (a0.status === 429) {
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
    // A fixed window that began with this request (its Reset a whole window ahead): a sliding window or a bucket
    // that let it in sooner cannot show that, so a short Remaining there is not read as charged rejections.
    fixedLike: !k.continuous && a0.reset !== null && a0.reset * 1000 - a0.ex.startedAt >= k.W * 1000,
  };
  // Rejected requests charged to the next window show as its Remaining short by exactly that many; the first 429
  // alone (a key that sent nothing after it) is too small a count to tell from where a sliding window starts.
  const found = [
    ...k.ctx.judge(retryAfterHonoured, evidence),
    ...(rejected > 1 ? k.ctx.judge(rejectedNotCounted, evidence) : []),
  ];
  k.result.recovered = isAccepted(last.ex);
  if (last !== a0 && (banned(last) || last.status === 429))
    blocked(k, `${last.status} after waiting Retry-After twice`, [rejection.ex, a0.ex, last.ex]);
  if (k.result.recovered && found.length === 0) {
    proven(
      k,
      `accepted after waiting ${k.result.retryAfterSeconds === null ? 'for the reset (the 429 carried no Retry-After)' : `Retry-After ${k.result.retryAfterSeconds} s`}${pure ? ', having sent nothing after its 429' : ` after ${k.sentAfter429} request${k.sentAfter429 === 1 ? '' : 's'} following its 429`}${rejected > 1 ? `, the ${rejected} rejected requests not counted` : ''}`,
    );
  }
  return null;
}

/** A ban-like refusal after waiting Retry-After: judged when the key sent nothing after its 429, else recorded. */
function refusedAfterWaiting(
  k: KeyRun,
  rejection: Reading,
  a0: Reading,
  attempt: { exchange: Exchange; waitedMs: number },
  ban: string,
  pure: boolean,
): null {
  k.result.recovered = false;
  if (pure) {
    k.ctx.judge(honouredNotBanned, {
      key: k.label,
      plan: k.plan,
      limit: k.L,
      windowSeconds: k.W,
      requestsPerDay: k.perDay,
      first429: rejection.ex,
      attempt,
    });
    k.result.note = `refused after Retry-After was honoured (${ban})`;
  } else {
    // It sent requests after its 429: section 8 rule 3 lets a target ban it for those.
    k.ctx.judge(banObserved, {
      plan: k.plan,
      reason: `${ban} after waiting Retry-After, having sent ${k.sentAfter429} requests after its 429; stopped using the key`,
      exchanges: [rejection.ex, a0.ex],
    });
    k.result.note = `not measured further: ${ban} after waiting Retry-After`;
    unmeasured(
      k,
      `recovery: ${ban} after Retry-After, but it had sent ${k.sentAfter429} requests after its 429 (a ban may follow those)`,
    );
  }
  if (banned(a0)) throw new KeyBlockedError(`key ${k.label}: ${a0.status} after waiting Retry-After; stopped using it`);
  return null;
}
