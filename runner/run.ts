/**
 * A run: built once (per worker, from the worker's configuration; or by a test), it owns what every suite of the run
 * shares: the limits (runner/limits.ts), the ledger of what was spent (runner/ledger.ts), the latency trend, the pacer
 * (which counts each key's requests in flight), the request lanes (--concurrency) and where the exchanges go. It is the
 * one scheduler of suites, for the command and the project's tests alike: the functional suites side by side up to
 * the concurrency (one at a time when a tight request budget is shared out per suite), then the rate-limit suite,
 * then the quota suite, each alone with bursts of its own. Results are returned, not pushed anywhere: each suite's
 * findings, counts and per-key numbers, and the run's totals.
 */
import { isFunctionalSuite, SUITES, type SuiteName } from '../config/config.js';
import { type HarnessErrorCode, KeyBlockedError, TargetStalledError } from '../errors/catalogue.js';
import type { Finding } from '../checks/check.js';
import { KeyFlights } from '../http/in-flight.js';
import { Pacer } from '../http/pacing.js';
import { sleep } from '../http/waits.js';
import { planRun, rateLimitNeed } from './budget.js';
import { RunContext, type RunSettings } from './context.js';
import type { EvidenceCount, OperationStats } from './findings.js';
import { type Lanes, lanesOf } from './lanes.js';
import { Ledger, type LedgerSnapshot } from './ledger.js';
import { isRunStopped, type LimitSettings, RunLimits, type Stop, UNLIMITED } from './limits.js';
import type { RateLimitResult } from './rate-limit-results.js';
import type { ExchangeSink } from './request-path.js';
import { RATE_LIMIT_MINIMUM, suiteDefinition } from './suites.js';
import { RestGate } from './rest.js';
import { LatencyTrend } from './trend.js';

/** The run's totals, as the reports read them: what was sent and created, per key, what was left out, the stop. */
export interface RunSnapshot extends LedgerSnapshot {
  readonly sent: number;
  readonly creates: number;
  readonly stop: Stop | null;
}

export interface SuiteResult {
  readonly suite: SuiteName;
  readonly findings: readonly Finding[];
  readonly stats: Readonly<Record<string, OperationStats>>;
  readonly occurrences: Readonly<Record<string, number>>;
  /** What each check applied to and passed, per clause and operation (counters: reports/evidence.ts). */
  readonly evidence: readonly EvidenceCount[];
  readonly exchanges: number;
  readonly rateLimits: readonly RateLimitResult[];
  readonly durationMs: number;
  /** Set when the suite could not finish (e.g. the key was blocked); the findings so far are kept. */
  readonly aborted: { readonly code: HarnessErrorCode; readonly message: string } | null;
  /** Set when the run's limits (time, requests, creations, a slowing target) stopped the suite; findings are kept. */
  readonly stopped: Stop | null;
}

/** A suite that did not run to a result: a harness error, never a finding. */
export interface SuiteError {
  readonly suite: SuiteName;
  readonly message: string;
}

export interface RunResult {
  /** The suites that ran, in the order they were scheduled. */
  readonly results: readonly SuiteResult[];
  readonly errors: readonly SuiteError[];
  readonly snapshot: RunSnapshot;
}

export interface RunOptions {
  /** The run's limits (deadline, request budget and its shares, creations); none by default. */
  readonly limits?: LimitSettings;
  /** Requests in flight at most, suites and properties side by side (--concurrency); 1 by default. */
  readonly concurrency?: number;
  /** Where a suite's exchanges go (closed when the suite ends); by default `settings.exchangeSink`, or nowhere. */
  readonly sinkFor?: (suite: SuiteName) => (ExchangeSink & { close?(): Promise<void> }) | undefined;
  /** The clock of the deadline (tests). */
  readonly now?: () => number;
  /** Sees each suite's context as the suite ends (the project's test that a run's memory stays bounded). */
  readonly inspect?: (ctx: RunContext) => void;
  /** Told as each suite starts and ends (the run's progress: suites/progress-feed.ts). */
  readonly onSuite?: (suite: SuiteName, event: 'start' | 'end') => void;
}

/**
 * The order of a run's suites: the functional ones (which may run side by side) in the order of SUITES, then the
 * rate-limit and quota suites, one after the other, alone.
 */
export function schedule(names: readonly SuiteName[]): { sideBySide: SuiteName[]; alone: SuiteName[] } {
  const ordered = SUITES.filter((s) => names.includes(s));
  return { sideBySide: ordered.filter(isFunctionalSuite), alone: ordered.filter((s) => !isFunctionalSuite(s)) };
}

export class Run {
  readonly ledger = new Ledger();
  readonly limits: RunLimits;
  readonly trend: LatencyTrend;
  /** The run's rest, while the trend looks again at a target that seemed to slow down (runner/rest.ts). */
  readonly rest = new RestGate();
  readonly pacer: Pacer;
  /** Each key's requests in flight, whichever suite sent them: the rate-limit readings wait for a quiet key. */
  readonly flights = new KeyFlights();
  /** The request lanes of the functional suites; the rate-limit suites run alone, with bursts of their own. */
  readonly lanes: Lanes;

  constructor(
    readonly settings: RunSettings,
    private readonly options: RunOptions = {},
  ) {
    this.limits = new RunLimits(options.limits ?? UNLIMITED, options.now ?? Date.now, this.ledger);
    this.trend = new LatencyTrend({ embedded: settings.embedded === true });
    // Every wait of the pacer ends at once when a signal stops the run (RunLimits.interrupted).
    const interrupted = this.limits.interrupted;
    this.pacer = new Pacer({
      sleep: (ms) => sleep(ms, interrupted),
      onWait: (ms, reason, plan) => this.waiting(ms, reason, plan ?? null),
    });
    this.lanes = lanesOf(options.concurrency ?? 1);
  }

  /** A wait of the run (a Retry-After, a spent window): on the ledger's traffic, and told to whoever counts down. */
  waiting(ms: number, reason: string, plan: string | null): void {
    this.ledger.waited(plan, ms, reason);
    this.settings.onWait?.(ms, reason);
  }

  /** A context for `suite` outside any scheduled suite (a test recording findings as a suite would). */
  context(suite: string | null): RunContext {
    return new RunContext(this, { suite });
  }

  /** Runs one suite in its own scope of the limits, with the run's lanes when it is a functional suite. */
  async suite(name: SuiteName): Promise<SuiteResult> {
    const def = suiteDefinition(name);
    const sink = this.options.sinkFor?.(name);
    const scope = { suite: this.limits.beginSuite(name), part: null };
    const ctx = new RunContext(this, {
      suite: name,
      scope,
      sink: sink ?? null,
      lanes: isFunctionalSuite(name) ? this.lanes : null,
    });
    this.options.onSuite?.(name, 'start');
    const t0 = performance.now();
    let aborted: SuiteResult['aborted'] = null;
    let stopped: SuiteResult['stopped'] = null;
    let rateLimits: readonly RateLimitResult[] = [];
    try {
      const returned = await def.run(ctx);
      rateLimits = returned?.rateLimits ?? [];
      if (returned?.ended !== undefined) throw returned.ended;
    } catch (e) {
      // A blocked key or a stalled target stops the suite; what it found so far still counts. So does a run limit.
      if (isRunStopped(e)) stopped = { code: e.code, message: e.message };
      else if (e instanceof KeyBlockedError || e instanceof TargetStalledError)
        aborted = { code: e.code, message: e.message };
      else throw e;
    } finally {
      await ctx.close();
      await sink?.close?.();
      this.options.inspect?.(ctx);
      this.options.onSuite?.(name, 'end');
    }
    return {
      suite: name,
      findings: ctx.log.all(),
      stats: Object.fromEntries(ctx.log.stats),
      occurrences: Object.fromEntries(ctx.log.occurrences),
      evidence: ctx.log.evidence(),
      exchanges: ctx.exchangeCount,
      rateLimits,
      durationMs: performance.now() - t0,
      aborted,
      // A scenario may have swallowed the stop (a property's remaining cases pass): the limits know.
      stopped: stopped ?? scope.suite.stop ?? this.limits.stop,
    };
  }

  /**
   * Runs the suites: the functional ones side by side, up to the concurrency (their checks allow for others' traffic
   * on the target), or one at a time when the request budget is shared out per suite; then the rate-limit and quota
   * suites, alone (they measure a key's counters, which any other traffic would disturb).
   */
  async suites(names: readonly SuiteName[]): Promise<RunResult> {
    const { sideBySide, alone } = schedule(names);
    const results = new Map<SuiteName, SuiteResult>();
    const errors: SuiteError[] = [];
    const attempt = async (name: SuiteName) => {
      try {
        results.set(name, await this.suite(name));
      } catch (e) {
        errors.push({ suite: name, message: (e as Error)?.message ?? String(e) });
      }
    };
    const side = this.options.limits?.suiteEstimates ? 1 : this.lanes.size;
    const suiteLanes = lanesOf(side);
    await Promise.all(sideBySide.map((name) => suiteLanes.run(() => attempt(name))));
    for (const name of alone) await attempt(name);
    return {
      results: [...sideBySide, ...alone].flatMap((s) => results.get(s) ?? []),
      errors,
      snapshot: this.snapshot(),
    };
  }

  snapshot(): RunSnapshot {
    return {
      sent: this.limits.requests,
      creates: this.limits.created,
      stop: this.limits.stop,
      ...this.ledger.snapshot(),
    };
  }
}

/** One suite in a run of its own (the project's tests of a scenario). */
export function runSuite(name: SuiteName, settings: RunSettings, options: RunOptions = {}): Promise<SuiteResult> {
  return new Run(settings, options).suite(name);
}

export interface PlannedRunResult extends RunResult {
  /** --runs as the budget planned it. */
  readonly runs: number;
  readonly notes: readonly string[];
}

/**
 * Plans a request budget over the suites (runner/budget.ts planRun: every case class of every suite first, then the
 * rate-limit suite's minimum when it is asked for, left out with why when it does not fit) and runs them, the way the
 * command (cli/run-engine.ts conductRun) plans its run: for the project's tests and the bench.
 */
export async function runPlanned(
  names: readonly SuiteName[],
  settings: RunSettings,
  limits: Omit<LimitSettings, 'suiteEstimates'> = UNLIMITED,
  options: Omit<RunOptions, 'limits'> = {},
): Promise<PlannedRunResult> {
  const need = names.includes('rate-limit')
    ? rateLimitNeed(settings.keys, RATE_LIMIT_MINIMUM)
    : { total: 0, perKey: [] };
  const plan = planRun(names.map(suiteDefinition), settings.runs, limits.maxRequests, need);
  const run = new Run(
    { ...settings, runs: plan.runs },
    {
      ...options,
      limits: {
        ...limits,
        ...(plan.shares && { suiteEstimates: plan.shares }),
        ...(plan.reserved > 0 && { reserved: plan.reserved }),
      },
    },
  );
  const planned = plan.leftOut === null ? names : names.filter((s) => s !== 'rate-limit');
  return {
    ...(await run.suites(planned)),
    runs: plan.runs,
    notes: plan.leftOut === null ? plan.notes : [plan.leftOut, ...plan.notes],
  };
}
