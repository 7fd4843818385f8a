/**
 * The run's limits, enforced where every request passes: an overall deadline (--max-duration), a hard cap on requests
 * (--budget) and on creations (--max-creates), and a stop when the target slows down progressively. A request that
 * would break a limit is never sent: `beforeSend` throws a RunStoppedError instead, which ends the suite with every
 * finding so far kept. The guard also keeps what the reports need: requests per key, what the rate-limit headers say
 * is left, and every id the run created.
 */
import type { Finding } from '../checks/check.js';
import { latencyTrend, median } from '../checks/run.js';
import { ExitCode, exitCodeFor, HarnessError } from '../config/errors.js';
import type { OutgoingRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitNumber } from '../http/rate-limit-headers.js';

export interface GuardLimits {
  /** Epoch ms after which no request is sent (null: none). */
  readonly deadline: number | null;
  /** Most requests the guard lets through (null: no cap). */
  readonly maxRequests: number | null;
  /** Most pets created: createPet answers in 2xx (or with no answer), counting those in flight (null: no cap). */
  readonly maxCreates: number | null;
  /**
   * Requests each suite is expected to need, for the suites that share the budget: its coverage phase (each case class
   * once) and its random exploration. The coverage of every suite is reserved first; what is left is shared among the
   * explorations in proportion, so the first suites cannot spend what the later ones need to cover their classes (a
   * suite absent here takes what is left).
   */
  readonly suiteEstimates?: Readonly<Record<string, SuiteEstimate>>;
}

/** Requests a suite needs: its coverage phase, which must run whole, and its random exploration, which can shrink. */
export interface SuiteEstimate {
  readonly coverage: number;
  readonly explore: number;
}

export const UNLIMITED: GuardLimits = Object.freeze({ deadline: null, maxRequests: null, maxCreates: null });

/**
 * Why a run stopped early. Budget and creation caps are the user's choice: what they left out is reported and the
 * verdict stands on what ran. A deadline, a slowing target, or a TLS or proxy failure after the first request (the
 * configuration's problem, not the target's) block the run (exit 3); so does a signal (SIGINT, SIGTERM: cli/interrupt.ts),
 * with the signal's exit code.
 */
export type StopCode =
  | 'PSC_BUDGET'
  | 'PSC_MAX_CREATES'
  | 'PSC_MAX_DURATION'
  | 'PSC_TARGET_SLOWING'
  | 'PSC_TLS'
  | 'PSC_PROXY'
  | 'PSC_SIGINT'
  | 'PSC_SIGTERM';

/** Whether a stop blocks the run (exit 3, or a signal's code), as the error catalogue says. */
export function blocksRun(code: StopCode): boolean {
  const exit = exitCodeFor(code);
  return exit !== ExitCode.conformant && exit !== ExitCode.violations;
}

export class RunStoppedError extends HarnessError {
  declare readonly code: StopCode;
  constructor(code: StopCode, message: string) {
    super(code, message);
    this.name = 'RunStoppedError';
  }
}

export function isRunStopped(e: unknown): e is RunStoppedError {
  return e instanceof RunStoppedError || (e as { name?: string } | null)?.name === 'RunStoppedError';
}

/** What one key spent and what the target's rate-limit headers last said about it. */
export interface KeySpend {
  sent: number;
  /** X-RateLimit-Limit / -Remaining / -Reset as last seen on an answer to this key (null: not sent). */
  headerLimit: number | null;
  headerRemaining: number | null;
  headerReset: number | null;
}

export interface GuardSnapshot {
  readonly sent: number;
  readonly creates: number;
  readonly createdIds: readonly string[];
  readonly byKey: Readonly<Record<string, KeySpend>>;
  readonly stop: { readonly code: StopCode; readonly message: string } | null;
  readonly trend: Finding | null;
  /** What the request budget left out inside suites: a phase cut short, a random exploration that ended early. */
  readonly leftOut: readonly string[];
  /** Requests each suite sent in its coverage phase (before its first random part). */
  readonly coverage: Readonly<Record<string, number>>;
}

/**
 * Progressive slow-down: answers are gathered in windows of TREND_WINDOW, and at the end of each window (from the
 * second on) the latency-trend check judges the first window, the latest and the medians so far (checks/run.ts).
 */
export const TREND_WINDOW = 15;

export class LatencyTrend {
  private readonly first: Exchange[] = [];
  private readonly recent: Exchange[] = [];
  private readonly medians: number[] = [];
  private count = 0;

  /** Records an answer; returns a warning finding once the slow-down is established. */
  add(ex: Exchange): Finding | null {
    if (!ex.response) return null;
    this.count++;
    if (this.first.length < TREND_WINDOW) this.first.push(ex);
    this.recent.push(ex);
    if (this.recent.length > TREND_WINDOW) this.recent.shift();
    if (this.count < 2 * TREND_WINDOW || this.count % TREND_WINDOW !== 0) return null;
    this.medians.push(median(this.recent.map((e) => e.durationMs)));
    const found = latencyTrend.run({
      first: this.first,
      recent: this.recent,
      medians: this.medians,
      answers: this.count,
    });
    return found.find((f) => f.level !== 'observation') ?? null;
  }
}

/** A suite's own state in the guard: its share of the budget, what it sent, its stop, what it is doing. */
export interface SuiteState {
  readonly name: string;
  readonly cap: number | null;
  sent: number;
  stop: GuardSnapshot['stop'];
  phase: string | null;
}

/** A part of a suite's exploration with its own share of the budget (see RunGuard.part). */
export interface Part {
  readonly label: string;
  readonly cap: number | null;
  sent: number;
  stopped: boolean;
}

/**
 * Where a request belongs: its suite and the part of that suite's exploration. Suites and properties side by side
 * (--concurrency) share one guard, so each context passes its own scope (runner/context.ts); a caller running suites
 * one at a time may leave it out: the suite begun last is then the one.
 */
export interface GuardScope {
  readonly suite: SuiteState | null;
  readonly part: Part | null;
}

export class RunGuard {
  private sent = 0;
  private creates = 0;
  private pendingCreates = 0;
  private readonly createdIds: string[] = [];
  private readonly byKey: Record<string, KeySpend> = {};
  private stop: GuardSnapshot['stop'] = null;
  private trendFinding: Finding | null = null;
  private readonly latency = new LatencyTrend();
  private readonly begun = new Set<string>();
  /** The scope of a caller that names none: the suite begun last. */
  private fallback: GuardScope = { suite: null, part: null };
  private readonly left: string[] = [];
  private readonly coverage: Record<string, number> = {};

  constructor(
    readonly limits: GuardLimits = UNLIMITED,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A TLS or proxy failure (runner/reach.ts), whenever it comes, is the configuration's, never the target's: it stops
   * the run (exit 3) with its cause and remedy, and throws so that no check judges the exchange.
   */
  transportFailed(failure: HarnessError<'PSC_TLS' | 'PSC_PROXY'>): never {
    this.halt(failure.code, failure.message);
    throw new RunStoppedError(failure.code, failure.message);
  }

  /** The latency-trend warning, once a slow-down stopped the run. */
  get trend(): Finding | null {
    return this.trendFinding;
  }

  /** Whether nothing more may be sent in this scope: the run, its suite or its part of the exploration stopped. */
  isStopped({ suite, part }: GuardScope = this.fallback): boolean {
    return this.stop !== null || (suite?.stop ?? null) !== null || (part?.stopped ?? false);
  }

  /**
   * A suite starts. Its share of the request budget: its own coverage phase, plus a part of what is left once the
   * coverage of every suite still to run is reserved, in proportion to its exploration. When what is left cannot even
   * cover every suite's classes, the coverage is cut in proportion (the report names what was left out).
   */
  beginSuite(name: string): SuiteState {
    const { maxRequests, suiteEstimates } = this.limits;
    const own = suiteEstimates?.[name];
    let cap: number | null = null;
    if (maxRequests !== null && suiteEstimates && own !== undefined) {
      this.begun.add(name);
      const rest = Object.entries(suiteEstimates)
        .filter(([s]) => s === name || !this.begun.has(s))
        .map(([, e]) => e);
      const coverage = rest.reduce((n, e) => n + e.coverage, 0);
      const explore = rest.reduce((n, e) => n + e.explore, 0);
      const left = Math.max(0, maxRequests - this.sent);
      if (left < coverage) cap = coverage > 0 ? Math.floor((left * own.coverage) / coverage) : 0;
      else cap = own.coverage + (explore > 0 ? Math.floor(((left - coverage) * own.explore) / explore) : 0);
    }
    const suite: SuiteState = { name, cap, sent: 0, stop: null, phase: null };
    this.fallback = { suite, part: null };
    return suite;
  }

  /** Names what the suite is doing (e.g. 'coverage: invalid bodies'), for the report when a limit stops it there. */
  phase(label: string | null, { suite }: GuardScope = this.fallback): void {
    if (suite) suite.phase = label;
  }

  /**
   * Runs `fn` as a part of the suite's random exploration that may spend at most `fraction` of what the suite has
   * left (with no request budget, no cap). A part that spends its share ends (its remaining cases pass: `stopped` is
   * true inside it), and the suite goes on with its next part; what the cut left out is reported. `fn` sends in the
   * part's own scope.
   */
  async part<T>(
    label: string,
    fraction: number,
    fn: (scope: GuardScope) => Promise<T>,
    { suite }: GuardScope = this.fallback,
  ): Promise<T> {
    const cap =
      suite?.cap === null || suite === null
        ? null
        : Math.max(0, Math.floor((suite.cap - suite.sent) * Math.min(1, Math.max(0, fraction))));
    const part: Part = { label, cap, sent: 0, stopped: false };
    if (suite && !(suite.name in this.coverage)) this.coverage[suite.name] = suite.sent;
    try {
      return await fn({ suite, part });
    } finally {
      if (part.stopped && suite)
        this.left.push(`${suite.name}: ${label} ended at its share of the request budget (${part.sent} requests)`);
    }
  }

  /** Throws, without sending, when the request would break a limit or the run has already stopped. */
  beforeSend(req: OutgoingRequest, { suite, part }: GuardScope = this.fallback): void {
    if (!this.stop) {
      const { deadline, maxRequests, maxCreates } = this.limits;
      if (deadline !== null && this.now() >= deadline)
        this.halt('PSC_MAX_DURATION', 'the run reached its time budget (--max-duration)');
      else if (maxRequests !== null && this.sent >= maxRequests)
        this.halt('PSC_BUDGET', 'the run spent its request budget (--budget)');
      else if (maxCreates !== null && req.operation === 'createPet' && this.creates + this.pendingCreates >= maxCreates)
        this.halt('PSC_MAX_CREATES', `the run made its ${maxCreates} creations (--max-creates)`);
    }
    if (this.stop) throw new RunStoppedError(this.stop.code, this.stop.message);
    if (suite && !suite.stop && suite.cap !== null && suite.sent >= suite.cap)
      suite.stop = {
        code: 'PSC_BUDGET',
        message:
          `${suite.name} spent its share of the request budget (${suite.cap} requests of --budget)` +
          (suite.phase ? ` during ${suite.phase}` : ''),
      };
    if (suite?.stop) throw new RunStoppedError(suite.stop.code, suite.stop.message);
    if (part && part.cap !== null && part.sent >= part.cap) part.stopped = true;
    if (part?.stopped) throw new RunStoppedError('PSC_BUDGET', `${part.label} spent its share of the request budget`);
    if (part) part.sent++;
    if (suite) suite.sent++;
    // Counted before the send: requests sent side by side each see the others, so the cap is never exceeded.
    this.sent++;
    if (req.operation === 'createPet') this.pendingCreates++;
    const plan = req.auth.keyPlan;
    this.byKey[plan] ??= { sent: 0, headerLimit: null, headerRemaining: null, headerReset: null };
    this.byKey[plan].sent++;
  }

  afterSend(ex: Exchange): void {
    const spend = this.byKey[ex.keyPlan];
    if (spend && ex.response) {
      spend.headerLimit = rateLimitNumber(ex, 'limit') ?? spend.headerLimit;
      spend.headerRemaining = rateLimitNumber(ex, 'remaining') ?? spend.headerRemaining;
      spend.headerReset = rateLimitNumber(ex, 'reset') ?? spend.headerReset;
    }
    if (ex.operation === 'createPet') {
      this.pendingCreates = Math.max(0, this.pendingCreates - 1);
      const created = ex.response !== null && ex.response.status >= 200 && ex.response.status < 300;
      // A body the target refused created nothing; one with no answer may have: it counts.
      if (created || !ex.response) this.creates++;
      const id = created ? (ex.response!.json as { id?: unknown } | null | undefined)?.id : undefined;
      if (id !== undefined && id !== null && typeof id !== 'object') this.createdIds.push(String(id));
      else if (id !== undefined && id !== null && typeof (id as { value?: unknown }).value === 'string')
        this.createdIds.push((id as { value: string }).value);
    }
    const trend = this.stop ? null : this.latency.add(ex);
    if (trend) {
      this.trendFinding = trend;
      this.halt('PSC_TARGET_SLOWING', trend.message.split('\n')[0]!);
    }
  }

  /** Before a wait (Retry-After): one that would run past the deadline ends the run now instead. */
  beforeWait(ms: number, scope: GuardScope = this.fallback): void {
    const { deadline } = this.limits;
    if (deadline !== null && this.now() + ms >= deadline)
      this.halt(
        'PSC_MAX_DURATION',
        `the run would reach its time budget (--max-duration) waiting ${Math.ceil(ms / 1000)} s`,
      );
    this.throwIfStopped(scope);
  }

  throwIfStopped({ suite }: GuardScope = this.fallback): void {
    const stop = this.stop ?? suite?.stop ?? null;
    if (stop) throw new RunStoppedError(stop.code, stop.message);
  }

  /** Ends the run where it stands: the next request throws. */
  halt(code: StopCode, message: string): void {
    this.stop ??= { code, message };
  }

  snapshot(): GuardSnapshot {
    return {
      sent: this.sent,
      creates: this.creates,
      createdIds: [...this.createdIds],
      byKey: structuredClone(this.byKey),
      stop: this.stop,
      trend: this.trendFinding,
      leftOut: [...this.left],
      coverage: { ...this.coverage },
    };
  }
}

/** The guard as one context sees it: the run's limits, and its own suite's and part's shares (see GuardScope). */
export class ScopedGuard {
  /** With no scope, the suite the run's guard began last (a caller running suites one at a time). */
  constructor(
    readonly run: RunGuard,
    readonly scope?: GuardScope,
  ) {}

  get stopped(): boolean {
    return this.run.isStopped(this.scope);
  }

  phase(label: string | null): void {
    this.run.phase(label, this.scope);
  }

  throwIfStopped(): void {
    this.run.throwIfStopped(this.scope);
  }

  beforeSend(req: OutgoingRequest): void {
    this.run.beforeSend(req, this.scope);
  }

  beforeWait(ms: number): void {
    this.run.beforeWait(ms, this.scope);
  }
}
