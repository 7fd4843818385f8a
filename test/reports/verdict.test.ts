/** The one verdict (reports/verdict.ts) and the plan that decides what fits a budget (runner/budget.ts). */
import { describe, expect, it } from 'vitest';
import {
  durationWords,
  estimateRequests,
  fitDefault,
  fitRateLimit,
  planRun,
  planTime,
  rateLimitNeed,
} from '../../runner/budget.js';
import { RATE_LIMIT_MINIMUM, suiteDefinition } from '../../runner/suites.js';
import { decideVerdict, verdictExitCode } from '../../reports/verdict.js';
import { FUNCTIONAL_SUITES } from '../../config/config.js';

const violation = { level: 'violation' as const, signature: 'body-schema · listPets' };
const warning = { level: 'warning' as const, signature: 'www-authenticate · listPets' };
const base = { defects: [], strict: false, blocked: false, failedTests: 0, leftOut: [] };
const baseline = (known: string[], added: string[] = []) => ({
  file: 'b.yaml',
  updated: false,
  known,
  new: added,
  fixed: [],
  newEvidence: [],
});

describe('decideVerdict', () => {
  it('gives each outcome its word and exit code, the most serious first', () => {
    expect(decideVerdict(base)).toBe('conformant');
    expect(decideVerdict({ ...base, defects: [warning] })).toBe('conformant');
    expect(decideVerdict({ ...base, defects: [warning], strict: true })).toBe('violations');
    expect(decideVerdict({ ...base, defects: [violation] })).toBe('violations');
    expect(decideVerdict({ ...base, leftOut: ['rate-limit: not run'] })).toBe('incomplete');
    // A failure is said before what was left out; a blocked run before everything.
    expect(decideVerdict({ ...base, defects: [violation], leftOut: ['x'] })).toBe('violations');
    expect(decideVerdict({ ...base, defects: [violation], blocked: true })).toBe('blocked');
    // With a baseline, only defects it does not list fail; listed ones leave the run "known defects".
    expect(decideVerdict({ ...base, defects: [violation], baseline: baseline([violation.signature]) })).toBe(
      'known-defects',
    );
    expect(decideVerdict({ ...base, defects: [violation], baseline: baseline([], [violation.signature]) })).toBe(
      'violations',
    );
    expect(
      decideVerdict({ ...base, defects: [violation], baseline: baseline([violation.signature]), leftOut: ['x'] }),
    ).toBe('incomplete');
  });
  it('maps to exit codes: --require-complete makes an incomplete run exit 3', () => {
    expect(verdictExitCode('conformant')).toBe(0);
    expect(verdictExitCode('known-defects', true)).toBe(0);
    expect(verdictExitCode('incomplete')).toBe(0);
    expect(verdictExitCode('incomplete', true)).toBe(3);
    expect(verdictExitCode('violations', true)).toBe(1);
    expect(verdictExitCode('blocked')).toBe(3);
  });
  it('an interrupted run (blocked) exits with its signal’s code, whatever --require-complete says', () => {
    expect(verdictExitCode('blocked', false, 'PSC_SIGINT')).toBe(130);
    expect(verdictExitCode('blocked', true, 'PSC_SIGTERM')).toBe(143);
  });
});

describe('fitRateLimit: coverage first, then each key’s rate limits, then the random phases', () => {
  const functional = FUNCTIONAL_SUITES.map(suiteDefinition);
  const coverage = functional.reduce((n, s) => n + (s.estimate?.(100).coverage ?? 0), 0);
  const free = rateLimitNeed(
    [{ plan: 'free', limits: { requestsPerMinute: 60, requestsPerDay: 1000 } }],
    RATE_LIMIT_MINIMUM,
  );

  it('needs about one window per key, nothing for a key too large to burst, 3 requests without a key', () => {
    // 128 for the window's burst and recovery, 24 for every other Authorization form (issue 31).
    expect(free.perKey).toEqual([{ label: 'free', requests: 152 }]);
    expect(free.total).toBe(155);
    const big = rateLimitNeed(
      [{ plan: 'enterprise', limits: { requestsPerMinute: 100_000, requestsPerDay: 1e8 } }],
      RATE_LIMIT_MINIMUM,
    );
    expect(big.total).toBe(0);
  });
  it('reserves it when it fits after the coverage, and says plainly why not, with the budget it needs', () => {
    // The budget it names: the preflight, the coverage, the minimum (155) and one random case.
    expect(fitRateLimit(functional, 100, null, free)).toEqual({ reserve: 0 });
    expect(fitRateLimit(functional, 100, coverage + 155, free)).toEqual({ reserve: 155 });
    const short = fitRateLimit(functional, 100, 249, free, 'the request budget (250)');
    expect('leftOut' in short && short.leftOut).toBe(
      `rate-limit: not run: its keys need about 155 requests (free ≈ 152, and 3 without a key), but the request budget (250) leaves ${249 - coverage} after the functional suites' coverage phases (${coverage}); give --budget ${estimateRequests(functional, 10) + 156} or more, or --suite without rate-limit to leave it out on purpose`,
    );
  });
});

describe('fitDefault: a default budget keeps whole suites with random phases of 10 runs, never scales them to nothing', () => {
  const functional = FUNCTIONAL_SUITES.map(suiteDefinition);
  const free = rateLimitNeed(
    [{ plan: 'free', limits: { requestsPerMinute: 60, requestsPerDay: 1000 } }],
    RATE_LIMIT_MINIMUM,
  );
  const at10 = (names: readonly string[]) =>
    estimateRequests(
      functional.filter((s) => names.includes(s.name)),
      10,
    );

  it('a Free key’s quarter-day (250): the rate-limit minimum, then the suites in order while each fits whole', () => {
    const fit = fitDefault(functional, 100, 249, free, 'the default request budget (250)');
    expect(fit.rateLimit).toBe(true);
    // The rate-limit minimum (155, every Authorization form included since issue 31) leaves room for auth only.
    expect(fit.functional).toEqual(['auth']);
    expect(155 + at10(fit.functional)).toBeLessThanOrEqual(249);
    // The next suite in order would not have fitted.
    expect(155 + at10([...fit.functional, 'listPets'])).toBeGreaterThan(249);
    expect(fit.leftOut.map((l) => l.split(':')[0])).toEqual([
      'listPets',
      'createPet',
      'getPet',
      'stateful',
      'robustness',
    ]);
    for (const l of fit.leftOut)
      expect(l).toContain(`give --budget ${1 + at10(FUNCTIONAL_SUITES) + 155} for the whole run`);
    // What is kept, planned, gets random phases of 10 runs or more.
    const kept = functional.filter((s) => fit.functional.includes(s.name));
    expect(planRun(kept, 100, 249, free).runs).toBeGreaterThanOrEqual(10);
  });
  it('keeps everything when everything fits at 10 runs, and when there is no budget', () => {
    const room = at10(FUNCTIONAL_SUITES) + 155;
    expect(fitDefault(functional, 100, room, free, 'b')).toEqual({
      functional: [...FUNCTIONAL_SUITES],
      rateLimit: true,
      leftOut: [],
    });
    expect(fitDefault(functional, 100, null, free, 'b').leftOut).toEqual([]);
  });
  it('a budget too small for the rate-limit minimum leaves it out, named, and still fits suites', () => {
    const fit = fitDefault(functional, 100, 100, free, 'the default request budget (101)');
    expect(fit.rateLimit).toBe(false);
    expect(fit.leftOut[0]).toMatch(/^rate-limit: not run: its keys need about 155 requests/);
    expect(fit.functional.length).toBeGreaterThan(0);
  });
});

describe('planTime: window waits said before the run', () => {
  it('the functional key’s windows beyond the first, and about 1 + 2 windows a rate-limit key', () => {
    expect(planTime(60, 0, 60, 60, 0)).toEqual({ seconds: 1, waitingSeconds: 0 });
    expect(planTime(110, 131, 60, 60, 1).waitingSeconds).toBe((1 + 3) * 60);
    expect(planTime(500, 0, null, 60, 0).waitingSeconds).toBe(0);
    expect(durationWords(250)).toBe('4 min 10 s');
    expect(durationWords(45)).toBe('45 s');
  });
});
