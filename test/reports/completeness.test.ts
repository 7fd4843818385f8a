/** What a run left out (cli/completeness.ts), which makes the verdict INCOMPLETE, on synthetic outcomes. */
import { describe, expect, it } from 'vitest';
import { notMeasured, notMeasuredByDesign } from '../../reports/completeness.js';
import type { SuiteOutcome } from '../../reports/conformance-report.js';
import type { KeyRateLimitResult } from '../../runner/rate-limit-results.js';
import { suiteDefinition } from '../../runner/suites.js';
import type { SuiteName } from '../../config/config.js';

/** A suite's outcome that executed cases of each of its operations (unless `more` says otherwise). */
const outcome = (suite: string, exchanges: number, more: Record<string, unknown> = {}): SuiteOutcome =>
  ({
    meta: {
      suite,
      exchanges,
      stats: Object.fromEntries(
        suiteDefinition(suite as SuiteName).operations.map((op) => [op, { exchanges, checksApplied: 0, cases: 5 }]),
      ),
      rateLimits: [],
      stopped: null,
      aborted: null,
      ...more,
    },
    findings: [],
    failedTests: 0,
  }) as unknown as SuiteOutcome;

const key = (over: Partial<KeyRateLimitResult>): KeyRateLimitResult => ({
  suite: 'rate-limit',
  plan: 'free',
  key: 'free',
  limit: 60,
  windowSeconds: 60,
  paced: { sent: 40, spanMs: 40_000, got429: false },
  burst: { fromRemaining: 19, accepted: 19, allowance: 1, first429AtRequest: 20 },
  retryAfterSeconds: 5,
  waitedMs: 6000,
  recovered: true,
  requests: 65,
  durationMs: 70_000,
  note: null,
  proven: [],
  unmeasured: [],
  ...over,
});
const stopped = { code: 'PSC_BUDGET', message: 'the run spent its request budget (--budget)' };

describe('notMeasured', () => {
  it('nothing, when every suite asked for ran its coverage and a random phase, and every key was measured', () => {
    const outcomes = [outcome('listPets', 80), outcome('rate-limit', 70, { rateLimits: [key({})] })];
    expect(
      notMeasured({
        requested: ['listPets', 'rate-limit'],
        leftOutUpFront: [],
        outcomes,
        coverage: { listPets: 51 },
        randomCut: false,
      }),
    ).toEqual([]);
  });
  it('names a suite that did not run, one stopped in its coverage phase, and what a policy left out up front', () => {
    const outcomes = [outcome('listPets', 20, { stopped }), outcome('getPet', 30)];
    expect(
      notMeasured({
        requested: ['listPets', 'getPet', 'stateful', 'rate-limit'],
        leftOutUpFront: ['rate-limit: not run: the target is PETSTORE_PRODUCTION_URL'],
        outcomes,
        coverage: { getPet: 21 },
        randomCut: true,
      }),
    ).toEqual([
      'rate-limit: not run: the target is PETSTORE_PRODUCTION_URL',
      'listPets: stopped in its coverage phase after 20 requests (the run spent its request budget (--budget))',
      'stateful: did not run',
    ]);
  });
  it('an operation a suite executed no case of, unless a limit stopped the suite', () => {
    const noPet = { getPet: { exchanges: 4, checksApplied: 0, cases: 0 } };
    const input = { requested: ['getPet'], leftOutUpFront: [], coverage: { getPet: 21 }, randomCut: false };
    expect(notMeasured({ ...input, outcomes: [outcome('getPet', 4, { stats: noPet })] })).toEqual([
      'getPet: executed no case of getPet',
    ]);
    expect(notMeasured({ ...input, outcomes: [outcome('getPet', 25, { stats: noPet, stopped })] })).toEqual([]);
  });
  it('every random phase, only when a limit cut them (not a --runs too small to send one)', () => {
    const outcomes = [outcome('auth', 37), outcome('getPet', 21)];
    const input = { requested: ['auth', 'getPet'], leftOutUpFront: [], outcomes, coverage: { auth: 37, getPet: 21 } };
    expect(notMeasured({ ...input, randomCut: false })).toEqual([]);
    expect(notMeasured({ ...input, randomCut: true })).toEqual([
      'every random phase: no suite sent a random case beyond its coverage phase (auth, getPet)',
    ]);
  });
  it('a key a limit left out is named; a key the suite cannot measure by design is not, unless no key was measured', () => {
    const budgetCut = key({
      plan: 'pro',
      key: 'pro',
      limit: 300,
      requests: 0,
      burst: null,
      paced: { sent: 0, spanMs: 0, got429: false },
      note: 'left out: the run spent its request budget (--budget)',
    });
    const tooLarge = key({
      plan: 'enterprise',
      key: 'enterprise',
      limit: 5000,
      requests: 0,
      burst: null,
      paced: { sent: 0, spanMs: 0, got429: false },
      note: 'not measured: limit too large for a bounded burst',
    });
    const run = (rows: KeyRateLimitResult[]) =>
      notMeasured({
        requested: ['rate-limit'],
        leftOutUpFront: [],
        outcomes: [outcome('rate-limit', 70, { rateLimits: rows })],
        coverage: {},
        randomCut: false,
      });
    expect(run([key({}), budgetCut, tooLarge])).toEqual([
      "rate-limit: the pro key's limits (300 per 60 s): left out: the run spent its request budget (--budget)",
    ]);
    expect(run([tooLarge])).toEqual(['rate-limit: measured no key (enterprise: limit too large for a bounded burst)']);
  });

  it('a key whose burst met no refusal was not exercised: named with the rates, unless its burst failed', () => {
    const slow = key({
      plan: 'business',
      key: 'business',
      limit: 1000,
      burst: { fromRemaining: 999, accepted: 1510, allowance: 2000, first429AtRequest: null, elapsedMs: 120_000 },
      recovered: null,
      note: 'no refusal within the burst cap',
    });
    const run = (rows: KeyRateLimitResult[], findings: unknown[] = []) =>
      notMeasured({
        requested: ['rate-limit'],
        leftOutUpFront: [],
        outcomes: [{ ...outcome('rate-limit', 70, { rateLimits: rows }), findings } as unknown as SuiteOutcome],
        coverage: {},
        randomCut: false,
      });
    expect(run([key({}), slow])).toEqual([
      "rate-limit: the business key's enforcement (1000 per 60 s) was not exercised: no 429 within its burst of 1510 accepted requests; exceeding 1000 per 60 s within a window needs more than 17 requests/s; the target answered 1510 in 120.0 s, 13 requests/s",
    ]);
    // Its burst judged a violation (more accepted than any limiter may grant): the verdict is that violation's.
    expect(run([key({}), slow], [{ level: 'violation', keyPlan: 'business', checkId: 'rl-burst-enforced' }])).toEqual(
      [],
    );
  });

  it('a limit beyond a bounded burst is named as not measured by design, apart from what makes the run incomplete', () => {
    const enterprise = key({ plan: 'enterprise', key: 'enterprise', limit: 1_000_000, burst: null, requests: 0 });
    const outcomes = [outcome('rate-limit', 70, { rateLimits: [key({}), enterprise] })];
    expect(notMeasuredByDesign(outcomes)).toEqual([
      "rate-limit: the enterprise key's limits (1000000 per 60 s): beyond what a bounded burst measures (more than 2000 requests per window), by design",
    ]);
    expect(
      notMeasured({ requested: ['rate-limit'], leftOutUpFront: [], outcomes, coverage: {}, randomCut: false }),
    ).toEqual([]);
  });
});
