// The run's guard on its own: hard caps that concurrent sends cannot overrun, and a deadline (the trend that stops a
// target that keeps slowing down: test/runner/trend.test.ts).
import { FUNCTIONAL_SUITES } from '../../config/config.js';
import { describe, expect, it } from 'vitest';
import type { OutgoingRequest } from '../../http/client.js';
import type { Exchange } from '../../http/exchange.js';
import { estimateRequests, planBudget } from '../../runner/budget.js';
import { blocksRun, isRunStopped, type LimitScope, type LimitSettings, type SuiteState } from '../../runner/limits.js';
import { Run } from '../../runner/run.js';
import { suiteDefinition, suiteEstimate } from '../../runner/suites.js';

const req = (operation: OutgoingRequest['operation'] = 'listPets'): OutgoingRequest => ({
  operation,
  method: operation === 'createPet' ? 'POST' : 'GET',
  path: '/pets',
  auth: { template: null, key: null, keyPlan: 'free' },
});

let seq = 0;
const answer = (durationMs: number, status = 200, operation: Exchange['operation'] = 'listPets'): Exchange => ({
  seq: ++seq,
  operation,
  keyPlan: 'free',
  request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets', path: '/pets', headers: {}, body: null },
  response: {
    status,
    headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '41', 'x-ratelimit-reset': '1900000000' },
    body: new Uint8Array(),
    bodyText: '',
    truncated: false,
    // Ids beyond 2^53 arrive as exact digits (http/lossless.ts); short ones as numbers.
    json:
      status === 201 ? { id: { isLosslessNumber: true, value: '9007199254740993' } } : status === 202 ? { id: 7 } : [],
    jsonError: null,
  },
  error: null,
  startedAt: 0,
  durationMs,
});

/**
 * A run's limits and ledger as the request path drives them (runner/request-path.ts): the limits before a request is
 * sent, then the ledger; both once it is answered. The totals are the run's snapshot.
 */
class RunGuard {
  private readonly run: Run;
  constructor(limits?: LimitSettings, now?: () => number) {
    const key = { plan: 'free' as const, key: null as never, limits: null };
    this.run = new Run(
      { target: 'http://127.0.0.1:1/v1', keys: [key], key, seed: 1, runs: 1, strict: false },
      { ...(limits && { limits }), ...(now && { now }) },
    );
  }
  beforeSend(r: OutgoingRequest, scope?: LimitScope) {
    this.run.limits.beforeSend(r, scope);
    this.run.ledger.sent(r);
  }
  afterSend(ex: Exchange) {
    this.run.ledger.answered(ex);
    this.run.limits.afterSend(ex);
  }
  beginSuite(name: string) {
    return this.run.limits.beginSuite(name);
  }
  phase(label: string | null, scope?: LimitScope) {
    this.run.limits.phase(label, scope);
  }
  part<T>(label: string, fraction: number, fn: (scope: LimitScope) => Promise<T>) {
    return this.run.limits.part(label, fraction, fn);
  }
  isStopped(scope?: LimitScope) {
    return this.run.limits.isStopped(scope);
  }
  throwIfStopped() {
    this.run.limits.throwIfStopped();
  }
  beforeWait(ms: number) {
    this.run.limits.beforeWait(ms);
  }
  snapshot() {
    return this.run.snapshot();
  }
}

const tryCall = (g: RunGuard, r = req(), scope?: LimitScope) => {
  try {
    g.beforeSend(r, scope);
    return true;
  } catch (e) {
    if (isRunStopped(e)) return false;
    throw e;
  }
};

describe('RunGuard', () => {
  it('lets exactly maxRequests through, even when they are all in flight at once', () => {
    const g = new RunGuard({ deadline: null, maxRequests: 7, maxCreates: null });
    const passed = Array.from({ length: 20 }, () => tryCall(g)).filter(Boolean).length;
    expect(passed).toBe(7);
    expect(g.snapshot().stop?.code).toBe('PSC_BUDGET');
    expect(g.snapshot().byKey.free).toMatchObject({ sent: 7 });
  });

  it('counts creations the target made, refusals none, and in-flight ones as made', () => {
    const g = new RunGuard({ deadline: null, maxRequests: null, maxCreates: 2 });
    expect(tryCall(g, req('createPet'))).toBe(true);
    g.afterSend(answer(1, 400, 'createPet'));
    expect(tryCall(g, req('createPet'))).toBe(true);
    expect(tryCall(g, req('createPet'))).toBe(true);
    expect(tryCall(g, req('createPet'))).toBe(false);
    // Other operations stop too: the run ends where it stands.
    expect(tryCall(g)).toBe(false);
    g.afterSend(answer(1, 201, 'createPet'));
    g.afterSend(answer(1, 202, 'createPet'));
    expect(g.snapshot().createdIds).toEqual(['9007199254740993', '7']);
    expect(g.snapshot().stop?.code).toBe('PSC_MAX_CREATES');
  });

  it('shares the budget among suites in proportion to what each needs; unused shares pass on', () => {
    const g = new RunGuard({
      deadline: null,
      maxRequests: 100,
      maxCreates: null,
      suiteEstimates: {
        a: { coverage: 0, explore: 10 },
        b: { coverage: 0, explore: 30 },
        c: { coverage: 0, explore: 60 },
      },
    });
    const begun: SuiteState[] = [];
    const spend = (name: string, want: number) => {
      begun.push(g.beginSuite(name));
      let n = 0;
      while (n < want && tryCall(g)) n++;
      return n;
    };
    expect(spend('a', 1_000)).toBe(10);
    expect(begun.at(-1)?.stop?.code).toBe('PSC_BUDGET');
    expect(g.isStopped()).toBe(true);
    // b uses 5 of its 30; c then gets the rest.
    expect(spend('b', 5)).toBe(5);
    expect(g.isStopped()).toBe(false);
    expect(spend('c', 1_000)).toBe(85);
    expect(g.snapshot().sent).toBe(100);
    expect(spend('not-estimated', 1_000)).toBe(0);
    expect(g.snapshot().stop?.code).toBe('PSC_BUDGET');
  });

  it("reserves every suite's coverage phase first, and shares the rest among the random phases", () => {
    const limits = (maxRequests: number) => ({
      deadline: null,
      maxRequests,
      maxCreates: null,
      suiteEstimates: { a: { coverage: 10, explore: 100 }, b: { coverage: 20, explore: 0 } },
    });
    const spend = (g: RunGuard, name: string) => {
      g.beginSuite(name);
      let n = 0;
      while (n < 1_000 && tryCall(g)) n++;
      return n;
    };
    // 50: a gets its 10 and all the 20 left once both coverages are reserved; b its 20.
    const g = new RunGuard(limits(50));
    expect(spend(g, 'a')).toBe(30);
    expect(spend(g, 'b')).toBe(20);
    // 15 cannot cover both: the coverage is cut in proportion.
    const tight = new RunGuard(limits(15));
    expect(spend(tight, 'a')).toBe(5);
    expect(spend(tight, 'b')).toBe(10);
  });

  it('a part of the exploration spends at most its fraction of what the suite has left, then the suite goes on', async () => {
    const g = new RunGuard({
      deadline: null,
      maxRequests: 40,
      maxCreates: null,
      suiteEstimates: { a: { coverage: 0, explore: 40 } },
    });
    g.beginSuite('a');
    let inPart = 0;
    await g.part('first half', 1 / 2, async (scope) => {
      while (inPart < 100 && tryCall(g, req(), scope)) inPart++;
      expect(g.isStopped(scope)).toBe(true);
    });
    expect(inPart).toBe(20);
    expect(g.isStopped()).toBe(false);
    expect(() => g.throwIfStopped()).not.toThrow();
    let after = 0;
    while (after < 100 && tryCall(g)) after++;
    expect(after).toBe(20);
    expect(g.snapshot().leftOut).toEqual(['a: first half ended at its share of the request budget (20 requests)']);
    expect(g.snapshot().coverage).toEqual({ a: 0 });
  });

  it('suites side by side, each in its own scope, are counted, capped and named as themselves', async () => {
    const g = new RunGuard({
      deadline: null,
      maxRequests: 40,
      maxCreates: null,
      suiteEstimates: { a: { coverage: 10, explore: 0 }, b: { coverage: 30, explore: 0 } },
    });
    const a = g.beginSuite('a');
    const b = g.beginSuite('b');
    const tick = () => new Promise<void>((r) => setImmediate(r));
    // Interleaved: a names its phase, then both send in turns; only the suite over its own share stops.
    const run = async (suite: typeof a, phase: string, want: number) => {
      const scope = { suite, part: null };
      g.phase(phase, scope);
      let n = 0;
      while (n < want && tryCall(g, req(), scope)) {
        n++;
        await tick();
      }
      return n;
    };
    const [sentA, sentB] = await Promise.all([run(a, 'coverage: a', 100), run(b, 'coverage: b', 25)]);
    expect(sentA).toBe(10);
    expect(sentB).toBe(25);
    expect(a).toMatchObject({ sent: 10, stop: { code: 'PSC_BUDGET' } });
    expect(a.stop?.message).toMatch(/^a spent its share .* during coverage: a$/);
    expect(b).toMatchObject({ sent: 25, stop: null, phase: 'coverage: b' });
    expect(g.snapshot().sent).toBe(35);
  });

  it('sends nothing past the deadline', () => {
    let now = 1_000;
    const g = new RunGuard({ deadline: 2_000, maxRequests: null, maxCreates: null }, () => now);
    expect(tryCall(g)).toBe(true);
    now = 2_000;
    expect(tryCall(g)).toBe(false);
    expect(g.snapshot().stop?.code).toBe('PSC_MAX_DURATION');
  });

  it('refuses a wait that would outlast the deadline', () => {
    const g = new RunGuard({ deadline: 10_000, maxRequests: null, maxCreates: null }, () => 1_000);
    expect(() => g.beforeWait(5_000)).not.toThrow();
    expect(() => g.beforeWait(9_000)).toThrow(/time budget/);
    expect(g.snapshot().stop?.code).toBe('PSC_MAX_DURATION');
  });

  it('a signal is one more stop: nothing more is sent and every wait of the run ends at once; a limit met ends none', async () => {
    const key = { plan: 'free' as const, key: null as never, limits: null };
    const settings = { target: 'http://127.0.0.1:1/v1', keys: [key], key, seed: 1, runs: 1, strict: false };
    const deadline = new Run(settings);
    deadline.limits.halt('PSC_MAX_DURATION', 'the run reached its time budget (--max-duration)');
    expect(deadline.limits.interrupted.aborted).toBe(false);

    const run = new Run(settings);
    const ctx = run.context(null);
    // A window's wait and a scenario's pause, ten minutes each: past the test's timeout, unless the stop ends them.
    const waits = Promise.all([run.pacer.wait(600_000, "for the free key's window"), ctx.sleep(600_000)]);
    run.limits.halt('PSC_SIGTERM', 'the run was interrupted by SIGTERM after 1.0 s');
    await waits;
    await ctx.close();
    expect(run.limits.interrupted.aborted).toBe(true);
    expect(() => run.limits.beforeSend(req())).toThrow(/interrupted by SIGTERM/);
    expect(run.snapshot().stop).toEqual({
      code: 'PSC_SIGTERM',
      message: 'the run was interrupted by SIGTERM after 1.0 s',
    });
    expect(blocksRun('PSC_SIGTERM')).toBe(true);
  });

  it('keeps what the rate-limit headers last said per key', () => {
    const g = new RunGuard();
    tryCall(g);
    g.afterSend(answer(3));
    expect(g.snapshot().byKey.free).toEqual({ sent: 1, headerLimit: 60, headerRemaining: 41, headerReset: 1900000000 });
  });
});

describe('planBudget', () => {
  const FUNCTIONAL = FUNCTIONAL_SUITES.map(suiteDefinition);
  const coverage = FUNCTIONAL_SUITES.reduce((n, s) => n + suiteEstimate(s, 100)!.coverage, 0);

  it('with no budget, changes nothing', () => {
    const plan = planBudget(FUNCTIONAL, 100, null);
    expect(plan.runs).toBe(100);
    expect(plan.notes).toEqual([]);
    expect(plan.shares).toBeNull();
  });

  it('shares a budget out per suite only when the suites could come near it', () => {
    const needed = estimateRequests(FUNCTIONAL, 100);
    expect(planBudget(FUNCTIONAL, 100, 2 * needed).shares).toBeNull();
    const tight = planBudget(FUNCTIONAL, 100, 2 * needed - 1);
    expect(tight.runs).toBe(100);
    expect(tight.shares).toEqual(tight.suiteEstimates);
    expect(Object.keys(tight.shares ?? {}).sort()).toEqual([...FUNCTIONAL_SUITES].sort());
  });

  it('reserves every case class first and scales --runs so the random phases fit what is left', () => {
    const room = coverage + 500;
    const plan = planBudget(FUNCTIONAL, 100, room);
    expect(plan.runs).toBeLessThan(100);
    const explore = FUNCTIONAL_SUITES.reduce((n, s) => n + plan.suiteEstimates[s]!.explore, 0);
    expect(coverage + explore).toBeLessThanOrEqual(room);
    expect(plan.notes.join('\n')).toMatch(new RegExp(`every case class first \\(${coverage} requests\\)`));
  });

  it("names each suite's coverage, the robustness catalogue's included, and the Free-key budget of 250 holds them all", () => {
    const plan = planBudget(FUNCTIONAL, 100, 249, 'the request budget (250)');
    const catalogue = suiteEstimate('robustness', 100)!;
    expect(catalogue.coverage).toBeGreaterThan(40);
    expect(catalogue.explore).toBe(0);
    expect(plan.notes.join('\n')).toContain(`robustness catalogue ${catalogue.coverage}`);
    expect(plan.notes.join('\n')).toContain(`= ${coverage} of the 249 requests left for the suites`);
    // The whole catalogue fits beside every other suite's coverage (249: a budget of 250 less the preflight).
    expect(coverage).toBeLessThanOrEqual(249);
    expect(plan.notes.join('\n')).not.toMatch(/less than the coverage phases need/);
  });

  it('says so when the budget cannot even cover every case class', () => {
    const plan = planBudget(FUNCTIONAL, 100, coverage - 1);
    expect(plan.notes.join('\n')).toMatch(/less than the coverage phases need .*the report names them/);
  });
});
