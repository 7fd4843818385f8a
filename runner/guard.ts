/**
 * The run's limits, enforced where every request passes: an overall deadline (--max-duration), a hard cap on requests
 * (--budget) and on creations (--max-creates), and a stop when the target slows down progressively. A request that
 * would break a limit is never sent: `beforeSend` throws a RunStoppedError instead, which ends the suite with every
 * finding so far kept. The guard also keeps what the reports need: requests per key, what the rate-limit headers say
 * is left, and every id the run created.
 */
import { type Finding, refOf } from '../checks/check.js';
import { ExitCode, exitCodeFor, HarnessError } from '../config/errors.js';
import type { OutgoingRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';

export interface GuardLimits {
  /** Epoch ms after which no request is sent (null: none). */
  readonly deadline: number | null;
  /** Most requests the guard lets through (null: no cap). */
  readonly maxRequests: number | null;
  /** Most pets created: createPet answers in 2xx (or with no answer), counting those in flight (null: no cap). */
  readonly maxCreates: number | null;
  /**
   * Requests each suite is expected to need, for the suites that share the budget: each gets a share of what is left
   * in proportion, so the first suites cannot spend what the later ones need (a suite absent here takes what is left).
   */
  readonly suiteEstimates?: Readonly<Record<string, number>>;
}

export const UNLIMITED: GuardLimits = Object.freeze({ deadline: null, maxRequests: null, maxCreates: null });

/**
 * Why a run stopped early. Budget and creation caps are the user's choice: what they left out is reported and the
 * verdict stands on what ran. A deadline or a slowing target block the run (exit 3).
 */
export type StopCode = 'PSC_BUDGET' | 'PSC_MAX_CREATES' | 'PSC_MAX_DURATION' | 'PSC_TARGET_SLOWING';

/** Whether a stop blocks the run (exit 3), as the error catalogue says. */
export function blocksRun(code: StopCode): boolean {
  return exitCodeFor(code) === ExitCode.blocked;
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
}

/**
 * Progressive slow-down: the median of a sliding window of answers against the median of the first window. The run
 * stops once the latest median is both TREND_RATIO times the first and TREND_MIN_GROWTH_MS above it, and the last
 * three window medians rose in turn: a slow target (constant latency) or a spike never stops a run.
 */
export const TREND_WINDOW = 15;
export const TREND_RATIO = 4;
export const TREND_MIN_GROWTH_MS = 250;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export class LatencyTrend {
  private readonly first: { ms: number; ex: Exchange }[] = [];
  private readonly recent: { ms: number; ex: Exchange }[] = [];
  private readonly medians: number[] = [];
  private count = 0;

  /** Records an answer; returns a warning finding once the slow-down is established. */
  add(ex: Exchange): Finding | null {
    if (!ex.response) return null;
    const sample = { ms: ex.durationMs, ex };
    this.count++;
    if (this.first.length < TREND_WINDOW) this.first.push(sample);
    this.recent.push(sample);
    if (this.recent.length > TREND_WINDOW) this.recent.shift();
    if (this.count < 2 * TREND_WINDOW || this.count % TREND_WINDOW !== 0) return null;
    const last = median(this.recent.map((s) => s.ms));
    this.medians.push(last);
    const firstMedian = median(this.first.map((s) => s.ms));
    const rising = this.medians.length >= 3 && this.medians.slice(-3).every((m, i, a) => i === 0 || m > a[i - 1]!);
    if (!rising || last < firstMedian * TREND_RATIO || last - firstMedian < TREND_MIN_GROWTH_MS) return null;
    const r = (n: number) => Math.round(n * 10) / 10;
    return {
      checkId: 'latency-trend',
      clause: 'harness-time-budget',
      level: 'warning',
      operation: null,
      // The run's, not one suite's: the guard spans every suite.
      suite: null,
      keyPlan: ex.keyPlan,
      caseClass: null,
      message:
        `the target slowed down progressively: median latency ${r(firstMedian)} ms over the first ${TREND_WINDOW} answers, ` +
        `${r(last)} ms over the last ${TREND_WINDOW} (after ${this.count})\nthe run stopped rather than spend its time budget waiting`,
      expected: `latency that does not keep growing (first median ${r(firstMedian)} ms)`,
      actual: `last median ${r(last)} ms`,
      exchanges: [refOf(this.first[0]!.ex), refOf(this.recent[this.recent.length - 1]!.ex)],
    };
  }
}

export class RunGuard {
  private sent = 0;
  private creates = 0;
  private pendingCreates = 0;
  private readonly createdIds: string[] = [];
  private readonly byKey: Record<string, KeySpend> = {};
  private stop: GuardSnapshot['stop'] = null;
  private trendFinding: Finding | null = null;
  private readonly trend = new LatencyTrend();
  private readonly begun = new Set<string>();
  private suite: { name: string; cap: number | null; sent: number; stop: GuardSnapshot['stop'] } | null = null;

  constructor(
    readonly limits: GuardLimits = UNLIMITED,
    private readonly now: () => number = Date.now,
  ) {}

  get stopped(): boolean {
    return this.stop !== null || (this.suite?.stop ?? null) !== null;
  }

  /** A suite starts: its share of the request budget is what is left, in proportion to its estimate. */
  beginSuite(name: string): void {
    const { maxRequests, suiteEstimates } = this.limits;
    const estimate = suiteEstimates?.[name];
    let cap: number | null = null;
    if (maxRequests !== null && suiteEstimates && estimate !== undefined) {
      this.begun.add(name);
      const rest = Object.entries(suiteEstimates)
        .filter(([s]) => s === name || !this.begun.has(s))
        .reduce((n, [, e]) => n + e, 0);
      cap = rest > 0 ? Math.floor(((maxRequests - this.sent) * estimate) / rest) : 0;
    }
    this.suite = { name, cap, sent: 0, stop: null };
  }

  /** Why the current suite stopped on its share of the budget, if it did (the run goes on with the next suite). */
  suiteStop(): GuardSnapshot['stop'] {
    return this.suite?.stop ?? null;
  }

  /** Throws, without sending, when the request would break a limit or the run has already stopped. */
  beforeSend(req: OutgoingRequest): void {
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
    const suite = this.suite;
    if (suite && !suite.stop && suite.cap !== null && suite.sent >= suite.cap)
      suite.stop = {
        code: 'PSC_BUDGET',
        message: `${suite.name} spent its share of the request budget (${suite.cap} requests of --budget)`,
      };
    if (suite?.stop) throw new RunStoppedError(suite.stop.code, suite.stop.message);
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
      const h = (n: string) => {
        const v = ex.response!.headers[n];
        const t = Array.isArray(v) ? v[0] : v;
        return t !== undefined && /^\s*\d+\s*$/.test(t) ? Number(t) : null;
      };
      spend.headerLimit = h('x-ratelimit-limit') ?? spend.headerLimit;
      spend.headerRemaining = h('x-ratelimit-remaining') ?? spend.headerRemaining;
      spend.headerReset = h('x-ratelimit-reset') ?? spend.headerReset;
    }
    if (ex.operation === 'createPet') {
      this.pendingCreates = Math.max(0, this.pendingCreates - 1);
      // A body the target refused created nothing; one with no answer may have: it counts.
      if (!ex.response || (ex.response.status >= 200 && ex.response.status < 300)) this.creates++;
    }
    if (ex.operation === 'createPet' && ex.response && ex.response.status >= 200 && ex.response.status < 300) {
      const id = (ex.response.json as { id?: unknown } | null | undefined)?.id;
      if (id !== undefined && id !== null && typeof id !== 'object') this.createdIds.push(String(id));
      else if (id !== undefined && id !== null && typeof (id as { value?: unknown }).value === 'string')
        this.createdIds.push((id as { value: string }).value);
    }
    const trend = this.stop ? null : this.trend.add(ex);
    if (trend) {
      this.trendFinding = trend;
      this.halt('PSC_TARGET_SLOWING', trend.message.split('\n')[0]!);
    }
  }

  /** Before a wait (Retry-After): one that would run past the deadline ends the run now instead. */
  beforeWait(ms: number): void {
    const { deadline } = this.limits;
    if (deadline !== null && this.now() + ms >= deadline)
      this.halt(
        'PSC_MAX_DURATION',
        `the run would reach its time budget (--max-duration) waiting ${Math.ceil(ms / 1000)} s`,
      );
    this.throwIfStopped();
  }

  throwIfStopped(): void {
    const stop = this.stop ?? this.suite?.stop ?? null;
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
    };
  }
}
