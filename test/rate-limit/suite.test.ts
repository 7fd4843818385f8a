/**
 * The rate-limit and quota suites against the reference server: the faultless server passes with each limiter
 * algorithm, spending about one plan's worth of requests per key (its wall time is measured by the bench).
 */
import { describe, expect, test } from 'vitest';
import { generateKeys, LIMITER_ALGORITHMS, type LimiterAlgorithm } from '../../reference/server.js';
import { PLANS, quotaOptions, runRateLimit, SEEDED_TIMEOUT_MS, SEEDS } from './support.js';
import { QUOTA_IN_FLIGHT } from '../../runner/scenarios/quota-parallel.js';
import type { QuotaResult } from '../../runner/rate-limit-results.js';

const WINDOW_S = 2;
const failing = (fs: readonly { level: string; checkId: string; message: string }[]) =>
  fs.filter((f) => f.level !== 'observation').map((f) => `${f.checkId}: ${f.message}`);

describe.concurrent('the faultless reference server passes', () => {
  for (const algorithm of ['fixed-window', 'sliding-window', 'token-bucket'] as LimiterAlgorithm[]) {
    test(
      `rate-limit suite, ${algorithm} limiter, ${WINDOW_S} s window, ${SEEDS.length} seeds`,
      async () => {
        const runs = await Promise.all(
          SEEDS.map((seed) => runRateLimit('rate-limit', { windowSeconds: WINDOW_S, algorithm, plans: PLANS, seed })),
        );
        runs.forEach((r, i) => {
          const seed = `seed ${SEEDS[i]}`;
          expect(r.aborted, seed).toBeNull();
          expect(failing(r.findings), seed).toEqual([]);
          const results = r.keyResults;
          expect(results.map((x) => x.plan).sort(), seed).toEqual(['business', 'free', 'pro']);
          for (const x of results) {
            const at = `${seed}, ${x.key}: ${x.unmeasured.join('; ')}`;
            // Every key was paced, burst to a 429, waited Retry-After and was accepted again.
            expect(x.paced.got429, at).toBe(false);
            expect(x.paced.sent, at).toBeGreaterThan(0);
            expect(x.recovered, at).toBe(true);
            expect(x.burst?.first429AtRequest, at).toBeGreaterThan(0);
            expect(x.burst!.accepted, at).toBeGreaterThanOrEqual(x.burst!.fromRemaining!);
            // About one plan's worth of requests: never more than twice the limit (a token bucket refills in the burst).
            expect(x.requests, at).toBeLessThanOrEqual(2 * x.limit + 50);
          }
          // What was proven, per key: the first key honoured Retry-After sending nothing; the others probed the other
          // operations; every key but the first to burst was observed at rest while another burst.
          const honour = results.find((x) => x.key === 'free')!;
          expect(honour.proven.join('\n'), seed).toMatch(
            /accepted after waiting Retry-After \d+ s, having sent nothing after its 429/,
          );
          for (const x of results.filter((y) => y.key !== 'free'))
            expect(x.proven.join('\n'), `${seed}, ${x.key}`).toMatch(/one counter across operations/);
          expect(
            results.filter((x) => x.proven.some((p) => p.startsWith('isolated from other keys'))).length,
            seed,
          ).toBeGreaterThanOrEqual(2);
          // Observations only: the 401 gap is recorded.
          expect(
            r.findings.some((f) => f.checkId === 'rl-401-rate-limited'),
            seed,
          ).toBe(true);
        });
      },
      SEEDED_TIMEOUT_MS,
    );
  }

  test(
    'quota suite: an Enterprise key with 5/min and 8/day gets 8, then a daily 429 at the day boundary',
    async () => {
      const waits: string[] = [];
      const r = await runRateLimit('quota', {
        windowSeconds: 1,
        dayWindowSeconds: 30,
        keys: generateKeys({ enterprise: { requestsPerMinute: 5, requestsPerDay: 8 } }),
        onWait: (_ms, reason) => waits.push(reason),
      });
      expect(r.aborted).toBeNull();
      expect(failing(r.findings)).toEqual([]);
      expect(r.rateLimitResults[0]).toMatchObject({ plan: 'enterprise', accepted: 8, sent: 9, stopped: null });
      // The run said how long it would take before it started.
      expect(waits[0]).toMatch(
        /^quota: spending the enterprise key's 8 requests per day at 4.5 per 1 s takes about 2 s$/,
      );
      // A minute limit of 5 leaves no room for requests at once: not measured under concurrency, and said so.
      expect(r.rateLimitResults[0]).not.toHaveProperty('parallel');
      expect(r.findings.filter((f) => f.checkId === 'rl-daily-quota').map((f) => `${f.level}: ${f.message}`)).toEqual([
        "observation: enterprise key: daily quota under concurrency not measured: the minute limit (5 per 1 s) leaves no room for 4 requests at once beside the day's last few",
      ]);
    },
    SEEDED_TIMEOUT_MS,
  );

  test(
    `quota suite: the day's last requests go ${QUOTA_IN_FLIGHT} at once from a quiet key and get exactly what its Remaining said, ${SEEDS.length} seeds, every minute limiter kind`,
    async () => {
      // Each seed with another kind of minute limiter: after the rest, none of them refuses (masks) the tail.
      const algorithm = (i: number) => LIMITER_ALGORITHMS[i % LIMITER_ALGORITHMS.length]!;
      const runs = await Promise.all(
        SEEDS.map((seed, i) => runRateLimit('quota', { ...quotaOptions([], seed), algorithm: algorithm(i) })),
      );
      runs.forEach((r, i) => {
        const seed = `seed ${SEEDS[i]}, ${algorithm(i)}`;
        expect(r.aborted, seed).toBeNull();
        expect(failing(r.findings), seed).toEqual([]);
        // Judged, not skipped: no observation of the quota check either.
        expect(
          r.findings.filter((f) => f.checkId === 'rl-daily-quota'),
          seed,
        ).toEqual([]);
        const q = r.rateLimitResults[0] as QuotaResult;
        expect(q, seed).toMatchObject({ accepted: 30, stopped: null });
        // The tail: from the Remaining read with nothing in flight, exactly that many accepted, then the daily 429.
        expect(q.parallel?.connections, seed).toBe(QUOTA_IN_FLIGHT);
        expect(q.parallel!.fromRemaining, seed).toBeGreaterThan(QUOTA_IN_FLIGHT);
        expect(q.parallel!.accepted, seed).toBe(q.parallel!.fromRemaining);
        // Within the client discipline: no more after the first 429 than were in flight with it (the last goes alone).
        expect(q.sent - q.accepted, seed).toBeLessThanOrEqual(QUOTA_IN_FLIGHT);
        // Several of the tail's requests were in flight together: each answered after another of them started.
        const tail = r.exchangeList.slice(-q.parallel!.sent);
        const overlapping = tail.filter((ex) =>
          tail.some((o) => o !== ex && o.startedAt < ex.startedAt + ex.durationMs && ex.startedAt < o.startedAt),
        );
        expect(overlapping.length, seed).toBeGreaterThan(1);
      });
    },
    SEEDED_TIMEOUT_MS,
  );
});

/** Twenty phases of the wall clock's second (Reset and Retry-After are whole seconds). */
const SEEDS_20 = Array.from({ length: 20 }, (_, i) => i + 1);

describe.concurrent('a token bucket whose Reset does not move and whose Remaining floors a fractional token', () => {
  // As a Go service over golang.org/x/time/rate may send: refill shows in Remaining only, a fraction never. Every bound
  // allows for what such a bucket grants (checks/rate-limit.ts burstAllowance): no violation on any seed.
  test(
    `the faultless bucket: no violation over ${SEEDS_20.length} seeds, ${WINDOW_S} s window`,
    async () => {
      const runs = await Promise.all(
        SEEDS_20.map((seed) =>
          runRateLimit('rate-limit', {
            windowSeconds: WINDOW_S,
            algorithm: 'token-bucket-static-reset',
            plans: PLANS,
            seed,
          }),
        ),
      );
      runs.forEach((r, i) => {
        const seed = `seed ${SEEDS_20[i]}`;
        expect(r.aborted, seed).toBeNull();
        expect(failing(r.findings), seed).toEqual([]);
        for (const x of r.keyResults) {
          // Measured, not skipped: each key burst to its 429 and recovered.
          expect(x.burst?.first429AtRequest, `${seed}, ${x.key}: ${x.unmeasured.join('; ')}`).toBeGreaterThan(0);
          expect(x.recovered, `${seed}, ${x.key}`).toBe(true);
        }
      });
    },
    SEEDED_TIMEOUT_MS,
  );

  test(
    `a bucket that never refuses is still caught on each of ${SEEDS.length} seeds`,
    async () => {
      const runs = await Promise.all(
        SEEDS.map((seed) =>
          runRateLimit('rate-limit', {
            windowSeconds: WINDOW_S,
            algorithm: 'token-bucket-static-reset',
            faults: ['rl-not-enforced'],
            plans: PLANS,
            seed,
          }),
        ),
      );
      runs.forEach((r, i) => {
        const caught = r.findings.filter((f) => f.checkId === 'rl-burst-enforced' && f.level === 'violation');
        expect(caught.length, `seed ${SEEDS[i]}: ${failing(r.findings).join('\n')}`).toBeGreaterThan(0);
      });
    },
    SEEDED_TIMEOUT_MS,
  );
});

describe.concurrent('targets the spec leaves room for: recorded, never failed', () => {
  test(
    'headers that describe the day window from the start, and a daily 429 in the burst: observations only',
    async () => {
      // 60 per minute but 30 per day: the reference's headers describe the day window (it has fewer left) throughout.
      const r = await runRateLimit('rate-limit', {
        windowSeconds: WINDOW_S,
        keys: generateKeys({ enterprise: { requestsPerMinute: 60, requestsPerDay: 30 } }),
        plans: ['enterprise'],
      });
      expect(r.aborted).toBeNull();
      expect(failing(r.findings)).toEqual([]);
      const daily = r.findings.filter((f) => f.checkId === 'rl-burst-enforced');
      expect(daily.map((f) => f.level)).toEqual(['observation']);
      expect(daily[0]?.message).toMatch(
        /^enterprise key: daily quota exhausted \(or the key banned\) after \d+ accepted in its burst: Retry-After \d+ s, beyond one 2 s window/,
      );
      // The key is not used after its daily 429: nothing waited, nothing sent after it.
      const res = r.keyResults[0]!;
      expect(res.waitedMs).toBe(0);
      const sent = r.exchangeList.filter((e) => e.keyPlan === 'enterprise');
      expect(sent.at(-1)?.response?.status).toBe(429);
      expect(sent.filter((e) => e.response?.status === 429).length).toBeLessThanOrEqual(4);
    },
    SEEDED_TIMEOUT_MS,
  );

  test(
    'a long ban after requests that followed a 429 is not waited out: recorded, the key dropped, never failed',
    async () => {
      // Any request sent while limited bans the key for 10 minutes: the second key's requests on the other operations,
      // just after its 429, do. The first key sends nothing after its 429 and is not banned.
      const r = await runRateLimit('rate-limit', {
        windowSeconds: WINDOW_S,
        banAfter: 0,
        banSeconds: 600,
        plans: ['free', 'pro'],
      });
      expect(r.aborted).toBeNull();
      expect(failing(r.findings)).toEqual([]);
      const ban = r.findings.filter((f) => f.checkId === 'rl-ban-observed');
      expect(ban.map((f) => f.level)).toEqual(['observation']);
      expect(ban[0]?.message).toMatch(
        /Retry-After 59\d s, beyond one 2 s window after waiting Retry-After, having sent 2 requests after its 429; stopped using the key/,
      );
      const pro = r.keyResults.find((x) => x.key === 'pro')!;
      expect(pro.recovered).toBe(false);
      expect(pro.unmeasured.join('\n')).toMatch(/but it had sent 2 requests after its 429 \(a ban may follow those\)/);
      expect(r.keyResults.find((x) => x.key === 'free')?.recovered).toBe(true);
    },
    SEEDED_TIMEOUT_MS,
  );

  test(
    'quota suite: a run projected beyond 50 min is refused before it sends anything, saying why',
    async () => {
      // 100 per day at 0.9 per minute: about 111 minutes.
      const r = await runRateLimit('quota', {
        windowSeconds: 60,
        keys: generateKeys({ enterprise: { requestsPerMinute: 1, requestsPerDay: 100 } }),
      });
      expect(r.aborted).toBeNull();
      expect(r.exchangeList).toEqual([]);
      const [f, ...rest] = r.findings.filter((x) => x.checkId === 'rl-daily-quota');
      expect(rest).toEqual([]);
      expect(f?.level).toBe('observation');
      expect(f?.message).toMatch(
        /^enterprise key: daily quota not measured: spending the enterprise key's 100 requests per day at 0\.9 per 60 s would take about 111 min \d+ s, more than the 50 min 0 s this suite allows/,
      );
      expect(r.rateLimitResults[0]).toMatchObject({ plan: 'enterprise', sent: 0, stopped: 'too-long' });
    },
    SEEDED_TIMEOUT_MS,
  );
});
