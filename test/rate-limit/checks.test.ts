/** The rate-limit checks on synthetic evidence: each passes what a conformant limiter does and fails the defect. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as c from '../../checks/rate-limit.js';
import { StaticResetBucket } from '../../reference/limiter.js';
import { applyResponseChecks } from '../../checks/registry.js';
import { exchange, NOW, NOW_S, type ExchangeInit } from '../checks/fixtures.js';

const FREE = { requestsPerMinute: 60, requestsPerDay: 1000 };
const PRO = { requestsPerMinute: 300, requestsPerDay: 10000 };
const BUSINESS = { requestsPerMinute: 1000, requestsPerDay: 100000 };

/** A response with the given rate-limit headers (Limit 60 unless said). */
const at = (remaining: number, reset = NOW_S + 30, more: ExchangeInit = {}) =>
  exchange({
    ...more,
    headers: {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
      ...more.headers,
    },
  });
const limited = (remaining = 0, reset = NOW_S + 30, more: ExchangeInit = {}) =>
  at(remaining, reset, { status: 429, ...more });
const ids = (fs: { checkId: string; level: string }[]) => fs.map((f) => `${f.checkId}:${f.level}`);
/** A message's first line: its causes in their words, and where (checks/check.ts Said). */
const firstLine = (f: { message: string } | undefined) => f?.message.split('\n')[0];

function burst(accepted: number, over: Partial<Extract<c.BurstEvidence, { kind: 'burst' }>> = {}): c.BurstEvidence {
  return {
    kind: 'burst',
    plan: 'free',
    limit: 60,
    windowSeconds: 60,
    requestsPerDay: 1000,
    known: at(20),
    knownRemaining: 20,
    exchanges: [],
    accepted,
    rejection: limited(),
    elapsedMs: 50,
    cap: 50,
    account: null,
    boundary: null,
    ...over,
  };
}

/** A paced phase of the free key: request 30 after 33 s, from a key shown rested unless told otherwise. */
const paced = (rejection: ReturnType<typeof exchange> | null, rested = true): c.NotStricterEvidence => ({
  kind: 'paced',
  plan: 'free',
  limit: 60,
  windowSeconds: 60,
  sent: 30,
  spanMs: 33_000,
  rejection,
  previous: at(25),
  rested,
  requestsPerDay: 1000,
});

describe('rl-burst-enforced', () => {
  it('passes exactly R accepted, and the refill elapsed time explains', () => {
    expect(c.burstEnforced.run(burst(20))).toEqual([]);
    // 2 s of a 60-per-minute window refill 2 requests (and the clocks' precision a little more): 2.002, up to 3.
    expect(c.burstEnforced.run(burst(23, { elapsedMs: 2000 }))).toEqual([]);
  });
  it('allows the fraction of a token that a floored Remaining does not report, whatever the headers showed', () => {
    // A token bucket at 20.9 tokens reports Remaining 20 and refills 0.05 in 50 ms: 21 accepted is correct, also when
    // its Reset never moved (nothing showed it continuous).
    expect(c.burstEnforced.run(burst(21))).toEqual([]);
    // The Go service of the trials: Remaining 982, 0.37 s at 100 tokens a second is 37 to 38 tokens: 1020 is correct.
    const go = {
      limit: 6000,
      windowSeconds: 60,
      known: at(982, NOW_S + 30, { headers: { 'x-ratelimit-limit': '6000' } }),
    };
    expect(c.burstEnforced.run(burst(1020, { ...go, knownRemaining: 982, elapsedMs: 370 }))).toEqual([]);
    const [over] = c.burstEnforced.run(burst(1021, { ...go, knownRemaining: 982, elapsedMs: 370 }));
    expect(over?.message).toContain(
      'at most Remaining 982 + allowance ⌈(370 + 2) ms × 6000 / 60 s⌉ = ⌈37.200⌉ = 38: the refill of the span, its clock precision and the fraction of a token Remaining does not report = 1020',
    );
  });
  it('a real token bucket, from any fractional state, over any span: never beyond the bound, and one more is', () => {
    // The reference's bucket (Remaining floored, Reset static) is the truth: it starts a burst at R + f tokens (the
    // Remaining it reports is R), refills at L per W while the burst runs with requests `gap` ms apart (less than a token's interval).
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 6000 }),
        fc.constantFrom(2, 10, 60),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        // Requests faster than the refill (a burst), down to a hundredth of a token's interval.
        fc.double({ min: 0.01, max: 0.95, noNaN: true }),
        (L, W, f, fillShare, pace) => {
          const windowMs = W * 1000;
          const gap = (pace * windowMs) / L;
          const bucket = new StaticResetBucket(windowMs);
          const R = Math.floor(fillShare * (L - 2));
          let t = 0;
          bucket.fits(t, L);
          for (let i = 0; i < L - R - 1; i++) bucket.take();
          t += (f * windowMs) / L; // R + 1 + f tokens
          expect(bucket.fits(t, L)).toBe(true);
          bucket.take(); // the known request: R + f left
          expect(bucket.remaining(t, L)).toBe(R);
          const t1 = t;
          let accepted = 0;
          for (;;) {
            t += gap;
            if (!bucket.fits(t, L)) break;
            bucket.take();
            accepted++;
          }
          const known = at(R, NOW_S + 30, { headers: { 'x-ratelimit-limit': String(L) } });
          const rejection = limited(0, NOW_S + 1, { headers: { 'x-ratelimit-limit': String(L), 'retry-after': '1' } });
          const ev = {
            limit: L,
            windowSeconds: W,
            known,
            knownRemaining: R,
            rejection,
            elapsedMs: t - t1,
          };
          expect(c.burstEnforced.run(burst(accepted, ev))).toEqual([]);
          const over = R + c.burstAllowance(t - t1, L, W) + 1;
          expect(ids(c.burstEnforced.run(burst(over, ev)))).toEqual(['rl-burst-enforced:violation']);
        },
      ),
      { numRuns: 500, seed: 19 },
    );
  });
  it('fails one beyond the bound, one too few, and no 429 at all', () => {
    const [over] = c.burstEnforced.run(burst(22));
    expect(over?.level).toBe('violation');
    expect(firstLine(over)).toBe(
      "the free key's minute limit (60) not enforced: 22 accepted in 0.05 s from Remaining 20 (refill allowance 1) before the first 429",
    );
    expect(over?.message).toContain('⌈(50 + 2) ms × 60 / 60 s⌉ = ⌈0.052⌉ = 1');
    const [strict] = c.burstEnforced.run(burst(19));
    expect(firstLine(strict)).toBe(
      "the free key's minute limit (60) enforced before it was reached: 19 accepted from its reported Remaining 20 (read with none of its requests in flight), then 429",
    );
    expect(strict?.message).toContain('19 < 20: stricter than it reported');
    const [none] = c.burstEnforced.run(burst(40, { rejection: null, cap: 40 }));
    expect(firstLine(none)).toBe(
      "received no 429: the free key's minute limit (60) not enforced: 40 accepted in 0.05 s from Remaining 20 (refill allowance 1), cap 40",
    );
    expect(none?.level).toBe('violation');
  });
  it('across a window boundary announced at the start: the old Remaining, then a fresh Limit, never more', () => {
    // A fixed window aligned to the clock: 20 left, the Reset falls within the burst, the next window grants 60.
    const boundary = (before: number, after: number): c.BurstBoundary => ({
      announcedReset: NOW_S + 1,
      by: 'announced',
      acceptedBefore: before,
      acceptedAfter: after,
    });
    expect(c.burstEnforced.run(burst(80, { boundary: boundary(20, 60) }))).toEqual([]);
    // Without the boundary, the same count is far beyond what refill explains.
    expect(ids(c.burstEnforced.run(burst(80)))).toEqual(['rl-burst-enforced:violation']);
    const [f] = c.burstEnforced.run(burst(81, { boundary: boundary(20, 61) }));
    expect(f?.level).toBe('violation');
    expect(f?.message).toContain(
      `81 accepted in 0.05 s from Remaining 20 (20 accepted with the Reset ${NOW_S + 1} announced at its start, 61 with a later one: a window boundary it announced)`,
    );
    expect(f?.message).toContain('at most Remaining 20 until the boundary + a fresh Limit 60 after it = 80');
    // Fewer than the Remaining it reported is stricter, boundary or not.
    expect(c.burstEnforced.run(burst(19, { boundary: boundary(19, 0) }))[0]?.message).toContain(
      'stricter than it reported',
    );
  });
  it('no 429 that refill can explain is an observation, not a verdict', () => {
    const f = c.burstEnforced.run(burst(50, { rejection: null, elapsedMs: 40_000 }));
    expect(ids(f)).toEqual(['rl-burst-enforced:observation']);
  });
  it('counts against the plan from a rested key when the headers showed no refill', () => {
    const account = (accepted: number): c.WindowAccount => ({
      rested: at(59),
      by: 'headers',
      accepted,
      rejection: limited(),
      spanMs: 900,
    });
    expect(c.burstEnforced.run(burst(20, { account: account(60) }))).toEqual([]);
    const [f] = c.burstEnforced.run(burst(20, { account: account(61) }));
    expect(firstLine(f)).toBe(
      "the free key's minute limit (60) not enforced: 61 requests accepted from rest within one window before the first 429 (no refill shown, 0.90 s)",
    );
  });
  it('records a key it did not measure', () => {
    const f = c.burstEnforced.run({
      kind: 'skipped',
      plan: 'enterprise',
      limit: 1_000_000,
      reason: 'limit too large',
      exchanges: [],
    });
    expect(ids(f)).toEqual(['rl-burst-enforced:observation']);
    expect(f[0]?.message).toContain('not measured: limit too large');
  });
});

describe('rl-not-stricter-than-plan', () => {
  it('passes a paced phase without 429 and a full window', () => {
    expect(c.notStricterThanPlan.run(paced(null))).toEqual([]);
    expect(
      c.notStricterThanPlan.run({
        kind: 'window',
        plan: 'free',
        limit: 60,
        account: { rested: at(59), by: 'headers', accepted: 60, rejection: limited(), spanMs: 1 },
      }),
    ).toEqual([]);
  });
  it('fails a 429 while pacing, and a window that admits fewer than the plan', () => {
    const [f] = c.notStricterThanPlan.run(paced(limited()));
    expect(firstLine(f)).toBe(
      "the free key's minute limit (60) enforced before it was reached: 30 requests paced at 0.9 × 60 per 60 s over 33.0 s, the last answered 429 (previous Remaining 25)",
    );
    const [g] = c.notStricterThanPlan.run({
      kind: 'window',
      plan: 'free',
      limit: 60,
      account: { rested: at(58), by: 'idle', accepted: 59, rejection: limited(), spanMs: 1 },
    });
    expect(firstLine(g)).toBe(
      "the free key's minute limit (60) enforced before it was reached: 59 requests accepted from rest within one window before 429 (no refill shown, 0.00 s, rested after two idle windows at Remaining 58, unless another client used this key)",
    );
    expect(g?.expected).toBe('60 accepted');
    expect(g?.actual).toBe('59 accepted');
  });
});

describe('rl-429-shape', () => {
  it('passes a 429, whatever its headers and body (the response checks judge those)', () => {
    expect(c.shape429.run({ exchange: limited() })).toEqual([]);
    const bare = limited(0, NOW_S + 30, {
      body: 'Too Many Requests',
      headers: { 'retry-after': undefined, 'x-ratelimit-reset': undefined, 'content-type': 'text/plain' },
    });
    expect(c.shape429.run({ exchange: bare })).toEqual([]);
  });
  it('fails 403 or 503 instead of 429', () => {
    expect(c.shape429.run({ exchange: exchange({ status: 403 }) })[0]?.message).toMatch(
      /^received 403 where the key was over its limit/,
    );
    expect(ids(c.shape429.run({ exchange: exchange({ status: 503 }) }))).toEqual(['rl-429-shape:violation']);
  });
});

describe('rl-retry-after-honoured and rl-rejected-not-counted', () => {
  const first = limited(0, NOW_S + 30);
  const ev = (attempts: ReturnType<typeof exchange>[], over: Partial<c.RecoveryEvidence> = {}): c.RecoveryEvidence => ({
    plan: 'free',
    limit: 60,
    first429: first,
    retryAfterMs: 30_000,
    rejected: 3,
    attempts: attempts.map((exchange) => ({ exchange, waitedMs: 31_000 })),
    fixedLike: true,
    ...over,
  });
  const both = (e: c.RecoveryEvidence) => [...c.retryAfterHonoured.run(e), ...c.rejectedNotCounted.run(e)];

  it('pass a request accepted after Retry-After, in a fresh window that starts full', () => {
    expect(both(ev([at(59, NOW_S + 90)]))).toEqual([]);
  });
  it('429 twice after waiting Retry-After: the window never resets or Retry-After is too short', () => {
    const f = both(ev([limited(0, NOW_S + 90), limited(0, NOW_S + 150)]));
    expect(ids(f)).toEqual(['rl-retry-after-honoured:violation']);
    expect(firstLine(f[0])).toBe(
      "the free key's minute limit (60): refused after waiting Retry-After (30 s: waited 31.0 s), and again after the next one (waited 31.0 s)",
    );
    // Without a valid Retry-After, the run waited for the reset: said so.
    const blind = both(ev([limited(0, NOW_S + 90), limited(0, NOW_S + 150)], { retryAfterMs: null }));
    expect(firstLine(blind[0])).toBe(
      "the free key's minute limit (60): refused after waiting Retry-After (none valid: waited 31.0 s for the reset), and again after the next one (waited 31.0 s)",
    );
  });
  it('429 after Retry-After with the Reset unchanged: Retry-After too short', () => {
    const f = both(ev([limited(0, NOW_S + 30), at(59, NOW_S + 90)]));
    expect(ids(f)).toEqual(['rl-retry-after-honoured:violation']);
    expect(firstLine(f[0])).toBe(
      `the free key's minute limit (60): refused after waiting Retry-After (30 s: waited 31.0 s), its X-RateLimit-Reset still ${NOW_S + 30}`,
    );
    expect(f[0]?.message).toContain('Reset had not moved');
  });
  it('429 after Retry-After with the Reset moved later: the window extended under rejections', () => {
    const extended = limited(0, NOW_S + 60, { headers: { 'retry-after': '20' } });
    const f = both(ev([extended, at(59, NOW_S + 90)]));
    expect(ids(f)).toEqual(['rl-rejected-not-counted:violation']);
    expect(firstLine(f[0])).toBe(
      `the free key's minute limit (60) charged with rejected requests: 3 rejected, then X-RateLimit-Reset moved from ${NOW_S + 30} to ${NOW_S + 60} and 429 after waiting its Retry-After`,
    );
    const fine = limited(0, NOW_S + 60, { headers: { 'retry-after': '1' } });
    expect(ids(both(ev([fine, at(59, NOW_S + 90)])))).toEqual(['rl-rejected-not-counted:observation']);
  });
  it('a fresh fixed window short by exactly the rejected requests was charged them', () => {
    const f = both(ev([at(56, NOW_S + 90)]));
    expect(ids(f)).toEqual(['rl-rejected-not-counted:violation']);
    expect(firstLine(f[0])).toBe(
      "the free key's minute limit (60) charged with rejected requests: 56 remaining on the first request of its new window (Limit 60), after 3 rejected requests",
    );
    // Not judged when the limiter refills continuously: a sliding window starts a new window partly used.
    expect(both(ev([at(56, NOW_S + 90)], { fixedLike: false }))).toEqual([]);
  });
});

describe('rl-per-key', () => {
  const key = (plan: 'free' | 'pro' | 'business', limits: typeof FREE, reported: number | null) => ({
    plan,
    limits,
    reported,
    exchange: at(1),
  });
  it('passes keys that report their own plans', () => {
    expect(
      c.perKey.run({
        kind: 'limits',
        keys: [key('free', FREE, 60), key('pro', PRO, 300), key('business', BUSINESS, 1000)],
      }),
    ).toEqual([]);
    // Free's day and Business's minute are both 1000: reporting it is no proof of sharing.
    expect(c.perKey.run({ kind: 'limits', keys: [key('free', FREE, 1000), key('business', BUSINESS, 1000)] })).toEqual(
      [],
    );
  });
  it('fails two plans reporting the same limit, and a 429 caused by another key', () => {
    const [f] = c.perKey.run({ kind: 'limits', keys: [key('free', FREE, 60), key('pro', PRO, 60)] });
    // The pro key is the one at fault: 60 is the free plan's.
    expect(firstLine(f)).toBe(
      "the free and the pro key received the same X-RateLimit-Limit: the pro key's minute limit (300) not kept per key (X-RateLimit-Limit 60)",
    );
  });
  const isolation = (after: ReturnType<typeof at>, requests = 20): c.PerKeyEvidence => ({
    kind: 'isolation',
    key: 'pro',
    plan: 'pro',
    limit: 60,
    windowSeconds: 60,
    requestsPerDay: 10000,
    before: at(40),
    after,
    ownRequests: 1,
    others: [{ key: 'business', requests }],
  });
  it('fails a key at rest whose Remaining another key moved, or that is refused with room left', () => {
    const [g] = c.perKey.run(isolation(at(20)));
    expect(firstLine(g)).toBe(
      "received X-RateLimit-Remaining 20: the pro key's minute limit (60) not kept per key (X-RateLimit-Limit 60) after Remaining 40 and only its own 1 request since, while the business key sent 20",
    );
    expect(g?.level).toBe('violation');
    expect(firstLine(c.perKey.run(isolation(limited()))[0])).toBe(
      "received 429: the pro key's minute limit (60) not kept per key (X-RateLimit-Limit 60) after Remaining 40 and only its own 1 request since, while the business key sent 20",
    );
  });
  it('passes its own request, refill or a new window, and judges nothing when no other key sent anything', () => {
    expect(c.perKey.run(isolation(at(39)))).toEqual([]);
    expect(c.perKey.run(isolation(at(59, NOW_S + 60)))).toEqual([]);
    expect(c.perKey.run(isolation(at(20), 0))).toEqual([]);
  });
});

describe('rl-one-counter-per-key', () => {
  const probe = (status: number, remaining: number) =>
    exchange({
      status,
      operation: 'createPet',
      headers: {
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(NOW_S + 30),
      },
    });
  const ev = (p: ReturnType<typeof exchange>): c.OtherOperationsEvidence => ({
    key: 'pro',
    plan: 'pro',
    limit: 60,
    windowSeconds: 60,
    first429: limited(0, NOW_S + 30, { headers: { 'retry-after': '30' } }),
    probes: [p],
  });
  it('fails a fresh allowance on another operation just after a 429', () => {
    const [f] = c.oneCounterPerKey.run(ev(probe(201, 59)));
    expect(firstLine(f)).toMatch(
      /^the pro key's minute limit \(60\) counted per operation, not per key: 59 remaining for POST \/pets \(answered 201\) \d+\.\d\d s after its 429 on GET \/pets, in the same window$/,
    );
  });
  it('passes a refusal, or the same counter (what refill explains)', () => {
    expect(c.oneCounterPerKey.run(ev(probe(429, 0)))).toEqual([]);
    expect(c.oneCounterPerKey.run(ev(probe(201, 1)))).toEqual([]);
  });
});

describe('rl-honoured-not-banned', () => {
  const first = limited(0, NOW_S + 5, { headers: { 'retry-after': '5' } });
  const ev = (attempt: ReturnType<typeof exchange>, waitedMs = 6000): c.HonouredEvidence => ({
    key: 'free',
    plan: 'free',
    limit: 60,
    windowSeconds: 60,
    requestsPerDay: 1000,
    first429: first,
    attempt: { exchange: attempt, waitedMs },
  });
  it('names a ban of a key that honoured Retry-After: 403, a wait beyond a window, a Reset moved later', () => {
    for (const a of [
      exchange({ status: 403 }),
      limited(0, NOW_S + 5, { headers: { 'retry-after': '600' } }),
      limited(0, NOW_S + 65, { headers: { 'retry-after': '20' } }),
    ]) {
      const [f] = c.honouredNotBanned.run(ev(a));
      expect(firstLine(f)).toMatch(
        /^the free key's minute limit \(60\): refused after Retry-After was honoured \(a ban\) when it had sent nothing for 6\.00 s since its 429 \(Retry-After 5 s\): its next request got (403|429 with .+)$/,
      );
    }
  });
  it('leaves a Retry-After a little short to rl-retry-after-honoured, and a wait within rounding unjudged', () => {
    expect(c.honouredNotBanned.run(ev(limited(0, NOW_S + 5, { headers: { 'retry-after': '1' } })))).toEqual([]);
    expect(c.honouredNotBanned.run(ev(exchange({ status: 403 }), 5500))).toEqual([]);
    expect(c.honouredNotBanned.run(ev(at(59)))).toEqual([]);
  });
});

describe('rl-daily-quota', () => {
  const LIM = { requestsPerMinute: 5, requestsPerDay: 8 };
  const day = (remaining: number, status = 200, reset = NOW_S + 3600) =>
    exchange({
      status,
      headers: {
        'x-ratelimit-limit': '8',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(reset),
        ...(status === 429 ? { 'retry-after': '3600' } : {}),
      },
    });
  const ev = (over: Partial<c.DailyQuotaEvidence>): c.DailyQuotaEvidence => ({
    plan: 'enterprise',
    limits: LIM,
    sent: 9,
    accepted: 8,
    rejection: day(0, 429),
    known: day(2),
    acceptedAfterKnown: 2,
    minuteReset: NOW_S + 1,
    elapsedMs: 2000,
    stopped: null,
    ...over,
  });
  it('passes the day quota spent, then a 429 with Retry-After and a Reset at the day boundary', () => {
    expect(c.dailyQuota.run(ev({}))).toEqual([]);
  });
  it('fails no daily 429, a count beyond the quota, a Reset before the minute reset', () => {
    expect(
      firstLine(
        c.dailyQuota.run(ev({ rejection: null, acceptedAfterKnown: 4, accepted: 10, stopped: 'over-quota' }))[0],
      ),
    ).toBe(
      "received no daily 429: the enterprise key's daily quota (8) not enforced: 10 accepted (9 sent in 2.00 s), 4 of them after Remaining 2 of the day window",
    );
    expect(firstLine(c.dailyQuota.run(ev({ acceptedAfterKnown: 4 }))[0])).toBe(
      "the enterprise key's daily quota (8) not enforced: 4 accepted after Remaining 2 of the day window before the daily 429",
    );
    const [strict] = c.dailyQuota.run(ev({ acceptedAfterKnown: 1 }));
    expect(firstLine(strict)).toBe(
      "the enterprise key's daily quota (8) enforced before it was reached: 1 accepted after Remaining 2 of the day window, then the daily 429",
    );
    expect(strict?.message).toContain('stricter than it reported');
    expect(firstLine(c.dailyQuota.run(ev({ known: null, accepted: 12 }))[0])).toBe(
      "the enterprise key's daily quota (8) not enforced: 12 accepted before the daily 429",
    );
    // A Reset in the past or beyond a day is rate-limit-reset-epoch's, judged on every response: not again here.
    expect(c.dailyQuota.run(ev({ rejection: day(0, 429, NOW_S - 100) }))).toEqual([]);
    expect(c.dailyQuota.run(ev({ rejection: day(0, 429, NOW_S + 200_000) }))).toEqual([]);
    expect(firstLine(c.dailyQuota.run(ev({ minuteReset: NOW_S + 7200 }))[0])).toBe(
      `the enterprise key's daily quota (8) resets before the minute window: ${NOW_S + 3600} (X-RateLimit-Reset of the daily 429, 3600 s ahead; the minute window's reset ${NOW_S + 7200})`,
    );
  });
  it('blames the quota for another answer only once the quota could have run out', () => {
    // A 500 or a dropped connection after 1 of the 2 the key had left: the quota was not reached, nothing is judged
    // (no-5xx and transport-ok judge that answer); a 403 once both were used is the quota's wrong answer.
    for (const rejection of [day(1, 500), exchange({ error: { code: 'ECONNRESET', message: 'reset' } })]) {
      const early = ev({ rejection, acceptedAfterKnown: 1 });
      expect(ids(c.dailyQuota.run(early))).toEqual(['rl-daily-quota:observation']);
      expect(c.dailyQuota.applies(early)).toBe(false);
    }
    expect(ids(c.dailyQuota.run(ev({ rejection: day(0, 403) })))).toEqual(['rl-daily-quota:violation']);
    const [wrong] = c.dailyQuota.run(ev({ rejection: day(0, 403) }));
    expect(wrong?.causes).toEqual([{ kind: 'status', status: 403, expected: [429] }]);
    expect(wrong?.message).toBe(
      "received 403 when the enterprise key's daily quota ran out\nthe spec documents 429 for a request over the limit",
    );
    // No answer at all once the quota ran out: said as the transport cause says it.
    const [dropped] = c.dailyQuota.run(
      ev({ rejection: exchange({ error: { code: 'ECONNRESET', message: 'reset' } }), acceptedAfterKnown: 2 }),
    );
    expect(firstLine(dropped)).toBe(
      "received no HTTP answer (ECONNRESET) when the enterprise key's daily quota ran out",
    );
  });
  describe('the parallel tail, judged from its own reading', () => {
    const tail = (over: Partial<c.QuotaParallel>): c.QuotaParallel => ({
      from: day(5),
      connections: 4,
      sent: 6,
      accepted: 5,
      spanMs: 100,
      lastAccepted: day(0),
      unjudged: null,
      ...over,
    });
    it('passes its Remaining accepted, and one more (refill and fractional state)', () => {
      expect(c.dailyQuota.run(ev({ parallel: tail({}) }))).toEqual([]);
      expect(c.dailyQuota.run(ev({ parallel: tail({ accepted: 6 }) }))).toEqual([]);
    });
    it("fails more than that, once, even where the whole run's count is also over", () => {
      const found = c.dailyQuota.run(ev({ parallel: tail({ accepted: 7, sent: 7 }), acceptedAfterKnown: 9 }));
      expect(ids(found)).toEqual(['rl-daily-quota:violation']);
      expect(found[0]?.message).toMatch(
        /^the enterprise key's daily quota \(8\) not enforced: 7 accepted of 7 sent over 4 connections at once in 0\.10 s, from Remaining 5 of its day window read with nothing in flight\nmore than it allows \(5 \+ 1, /,
      );
      // Without a daily 429 too.
      const noRejection = c.dailyQuota.run(
        ev({ parallel: tail({ accepted: 7 }), rejection: null, accepted: 12, stopped: 'over-quota' }),
      );
      expect(ids(noRejection)).toEqual(['rl-daily-quota:violation']);
    });
    it('judges nothing it cannot count, and says why; a tail not sent is said too', () => {
      const failed = c.dailyQuota.run(ev({ parallel: tail({ accepted: 9, unjudged: '1 of its requests failed' }) }));
      expect(failed.map((f) => `${f.level}: ${f.message}`)).toEqual([
        'observation: enterprise key: daily quota under concurrency not judged: 1 of its requests failed (9 accepted of 6 sent over 4 connections at once in 0.10 s)',
      ]);
      expect(ids(c.dailyQuota.run(ev({ parallelSkipped: 'no room' })))).toEqual(['rl-daily-quota:observation']);
    });
  });
});

describe('observations', () => {
  it('rl-ban-observed and rl-401-rate-limited never fail', () => {
    const ban = c.banObserved.run({
      plan: 'free',
      reason: '403 after it had worked',
      exchanges: [exchange({ status: 403 })],
    });
    expect(ids(ban)).toEqual(['rl-ban-observed:observation']);
    const unauth = c.unauthenticatedRateLimited.run({
      exchanges: [exchange({ status: 401, keyPlan: 'invalid' }), exchange({ status: 429, keyPlan: 'invalid' })],
    });
    expect(ids(unauth)).toEqual(['rl-401-rate-limited:observation']);
    expect(unauth[0]?.message).toContain('got 401, 429; 2 carried X-RateLimit headers (Limit 60); 1 were 429');
  });
});

describe('headers that describe the day window ("the limit in force" may be the day\'s)', () => {
  /** Accepted responses whose headers describe the Free plan's day window: Limit 1000, Reset hours ahead. */
  const dayAt = (remaining: number) => at(remaining, NOW_S + 5 * 3600, { headers: { 'x-ratelimit-limit': '1000' } });
  const dayKnown = { known: dayAt(900), knownRemaining: 900 };

  it("a minute 429 after about L accepted is no violation: Remaining 900 is not the minute window's", () => {
    expect(c.burstEnforced.run(burst(60, dayKnown))).toEqual([]);
    expect(c.burstEnforced.run(burst(12, dayKnown))).toEqual([]);
  });
  it('only the plan bounds it: beyond L is an observation (a window boundary may be crossed), beyond 2 × L fails', () => {
    const soft = c.burstEnforced.run(burst(70, dayKnown));
    expect(ids(soft)).toEqual(['rl-burst-enforced:observation']);
    expect(soft[0]?.message).toContain("its headers describe another window (Limit 1000, not the plan's 60)");
    const [hard] = c.burstEnforced.run(burst(122, dayKnown));
    expect(hard?.level).toBe('violation');
    // 2 × 60, and the fraction of a token over 50 ms (see burstAllowance).
    expect(hard?.expected).toBe('429 after at most 121');
    expect(firstLine(hard)).toBe(
      "the free key's minute limit (60) not enforced: 122 accepted in 0.05 s before the first 429; its headers describe another window (Limit 1000, not the plan's 60), so it is judged against the plan only (refill allowance 1, a window boundary possibly crossed)",
    );
    // A limiter that never refuses still fails, and one within 2 × L without a 429 is only recorded.
    expect(ids(c.burstEnforced.run(burst(131, { ...dayKnown, rejection: null, cap: 131 })))).toEqual([
      'rl-burst-enforced:violation',
    ]);
    expect(ids(c.burstEnforced.run(burst(100, { ...dayKnown, rejection: null, cap: 100 })))).toEqual([
      'rl-burst-enforced:observation',
    ]);
  });
  it('no counting from a "rested" response whose Limit is the day\'s', () => {
    const account: c.WindowAccount = {
      rested: dayAt(999),
      by: 'headers',
      accepted: 30,
      rejection: limited(),
      spanMs: 900,
    };
    expect(c.notStricterThanPlan.run({ kind: 'window', plan: 'free', limit: 60, account })).toEqual([]);
    expect(c.burstEnforced.run(burst(20, { account: { ...account, accepted: 80 } }))).toEqual([]);
  });
});

describe("a daily 429 (or a ban) is not the minute limit's", () => {
  const longWait = limited(0, NOW_S + 30, { headers: { 'retry-after': '3600' } });
  const dayReset = limited(0, NOW_S + 4 * 3600, { headers: { 'retry-after': undefined } });
  const dayLimit = limited(0, NOW_S + 30, { headers: { 'x-ratelimit-limit': '1000' } });

  it("tells it by a wait or a Reset beyond one window (and its 5 s slack), or a Limit that is the day's", () => {
    expect(c.maxRetryAfterWaitMs(60)).toBe(65_000);
    expect(c.notMinuteRefusal(longWait, 60, 60, 1000)).toBe('Retry-After 3600 s, beyond one 60 s window');
    expect(c.notMinuteRefusal(limited(0, NOW_S + 30, { headers: { 'retry-after': '65' } }), 60, 60, 1000)).toBeNull();
    expect(c.notMinuteRefusal(limited(0, NOW_S + 30, { headers: { 'retry-after': '66' } }), 60, 60, 1000)).toContain(
      'Retry-After 66 s',
    );
    expect(c.notMinuteRefusal(dayReset, 60, 60, 1000)).toContain('X-RateLimit-Reset 14400 s ahead');
    expect(c.notMinuteRefusal(dayLimit, 60, 60, 1000)).toBe("X-RateLimit-Limit 1000, the plan's requests per day");
    // A Reset in milliseconds is the header oracle's violation, not a long wait; a minute 429 is none of these.
    expect(c.notMinuteRefusal(limited(0, NOW + 30_000), 60, 60, 1000)).toBeNull();
    expect(c.notMinuteRefusal(limited(), 60, 60, 1000)).toBeNull();
    expect(c.notMinuteRefusal(at(0), 60, 60, 1000)).toBeNull();
  });
  it('during a burst: an observation "daily quota exhausted", whatever the count', () => {
    for (const rejection of [longWait, dayReset, dayLimit]) {
      for (const accepted of [3, 20, 500]) {
        const f = c.burstEnforced.run(burst(accepted, { rejection }));
        expect(ids(f)).toEqual(['rl-burst-enforced:observation']);
        expect(f[0]?.message).toContain('daily quota exhausted');
      }
    }
  });
  it('while pacing: an observation, and so is a paced 429 from a key not shown rested', () => {
    const daily = c.notStricterThanPlan.run(paced(longWait));
    expect(ids(daily)).toEqual(['rl-not-stricter-than-plan:observation']);
    expect(daily[0]?.message).toContain('daily quota exhausted');
    const unrested = c.notStricterThanPlan.run(paced(limited(), false));
    expect(ids(unrested)).toEqual(['rl-not-stricter-than-plan:observation']);
    expect(unrested[0]?.message).toContain('not shown rested');
  });
});

describe('a 429 is judged once, by the response checks; the rate-limit checks judge counts and timing', () => {
  const LIM = { requestsPerMinute: 5, requestsPerDay: 8 };
  const daily = (over: ExchangeInit = {}) =>
    exchange({
      status: 429,
      ...over,
      headers: {
        'x-ratelimit-limit': '8',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW_S + 3600),
        'retry-after': '3600',
        ...over.headers,
      },
    });
  const quota = (rejection: ReturnType<typeof exchange>): c.DailyQuotaEvidence => ({
    plan: 'enterprise',
    limits: LIM,
    sent: 9,
    accepted: 8,
    rejection,
    known: null,
    acceptedAfterKnown: 0,
    minuteReset: NOW_S + 1,
    elapsedMs: 2000,
    stopped: null,
  });
  const recovery = (first429: ReturnType<typeof exchange>): c.RecoveryEvidence => ({
    plan: 'enterprise',
    limit: 5,
    first429,
    retryAfterMs: null,
    rejected: 1,
    attempts: [{ exchange: at(4, NOW_S + 90), waitedMs: 31_000 }],
    fixedLike: true,
  });
  /** Every check that sees this 429: the response checks, and each rate-limit check it is evidence for. */
  const judged = (ex: ReturnType<typeof exchange>) => [
    ...applyResponseChecks({ exchange: ex, plan: LIM }),
    ...c.shape429.run({ exchange: ex }),
    ...c.dailyQuota.run(quota(ex)),
    ...c.retryAfterHonoured.run(recovery(ex)),
    ...c.rejectedNotCounted.run(recovery(ex)),
  ];
  const violations = (ex: ReturnType<typeof exchange>) => ids(judged(ex).filter((f) => f.level === 'violation'));

  it('a conformant daily 429 yields nothing', () => {
    expect(violations(daily())).toEqual([]);
  });
  it('one malformed Retry-After on a 429 yields exactly one violation: retry-after-valid', () => {
    for (const value of ['0.25', 'soon', '-1'])
      expect(violations(daily({ headers: { 'retry-after': value } })), value).toEqual(['retry-after-valid:violation']);
    expect(violations(daily({ headers: { 'retry-after': undefined } }))).toEqual(['retry-after-valid:violation']);
  });
  it('a complete Error whose status is not 429 yields exactly one finding, a violation of error-status-matches (section 7 rule 1 binds every Error)', () => {
    const found = judged(daily({ body: '{"code":"q","message":"m","status":403}' }));
    expect(ids(found.filter((f) => f.level !== 'observation'))).toEqual(['error-status-matches:violation']);
    // JSON that is no complete Error (no message): the 429 body format is not shown, so a warning only.
    const partial = judged(daily({ body: '{"code":"q","status":403}' }));
    expect(violations(daily({ body: '{"code":"q","status":403}' }))).toEqual([]);
    expect(ids(partial.filter((f) => f.checkId === 'error-status-matches'))).toEqual(['error-status-matches:warning']);
    // A fractional status is not an Error either (error-body-429 warns too): never a violation on a 429.
    expect(violations(daily({ body: '{"code":"x","message":"m","status":429.5}' }))).toEqual([]);
    expect(violations(daily({ body: '{"code":"x","message":"m","status":429.0}' }))).toEqual([]);
  });
  it("a body whose format is not an Error is a warning of error-body-429 only (the 429 body's format is a gap)", () => {
    for (const b of [
      '{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded, retry in 1 minute"}',
      '{"status":"429"}',
      '[]',
    ]) {
      const found = judged(daily({ body: b })).filter((f) => f.level !== 'observation');
      expect(ids(found), b).toEqual(['error-body-429:warning']);
    }
  });
  it('missing rate-limit headers on a 429 yield exactly one violation: rate-limit-headers-present', () => {
    expect(violations(daily({ headers: { 'x-ratelimit-reset': undefined } }))).toEqual([
      'rate-limit-headers-present:violation',
    ]);
  });
});

describe('Retry-After rounding: only a wait beyond a whole second is evidence', () => {
  const first = limited(0, NOW_S + 30, { headers: { 'retry-after': '2' } });
  const ev = (waited: number, attempts: ReturnType<typeof exchange>[]): c.RecoveryEvidence => ({
    plan: 'free',
    limit: 60,
    first429: first,
    retryAfterMs: 2000,
    rejected: 3,
    attempts: attempts.map((exchange, i) => ({ exchange, waitedMs: i === 0 ? waited : 3000 })),
    fixedLike: true,
  });
  it('refused after Retry-After + 0.3 s: within rounding, an observation; after + 1 s: a violation', () => {
    const tooShort = [limited(0, NOW_S + 30, { headers: { 'retry-after': '1' } }), at(59, NOW_S + 90)];
    expect(ids(c.retryAfterHonoured.run(ev(2300, tooShort)))).toEqual(['rl-retry-after-honoured:observation']);
    expect(ids(c.retryAfterHonoured.run(ev(3000, tooShort)))).toEqual(['rl-retry-after-honoured:violation']);
  });
  it('a second refusal counts only if the second wait, too, went beyond its Retry-After by a second', () => {
    const a0 = limited(0, NOW_S + 90, { headers: { 'retry-after': '3' } });
    const twice = (w1: number): c.RecoveryEvidence => ({
      ...ev(3000, []),
      attempts: [
        { exchange: a0, waitedMs: 3000 },
        { exchange: limited(0, NOW_S + 150), waitedMs: w1 },
      ],
    });
    expect(ids(c.retryAfterHonoured.run(twice(3400)))).toEqual(['rl-retry-after-honoured:observation']);
    expect(ids(c.retryAfterHonoured.run(twice(4000)))).toEqual(['rl-retry-after-honoured:violation']);
  });
});

describe('rl-daily-quota: a run refused up front', () => {
  it('is an observation that says why', () => {
    const f = c.dailyQuota.run({
      plan: 'business',
      limits: BUSINESS,
      sent: 0,
      accepted: 0,
      rejection: null,
      known: null,
      acceptedAfterKnown: 0,
      minuteReset: null,
      elapsedMs: 0,
      stopped: 'too-long',
      note: 'would take about 111 min',
    });
    expect(ids(f)).toEqual(['rl-daily-quota:observation']);
    expect(f[0]?.message).toBe('business key: daily quota not measured: would take about 111 min');
  });
});
