/**
 * The run's limits, checked where every request passes (runner/request-path.ts): an overall deadline
 * (--max-duration), a hard cap on requests (--budget) and on creations (--max-creates), the request budget's shares per
 * suite and per part of a suite's exploration, and the stop: a request that would break a limit is never sent
 * (`beforeSend` throws a RunStoppedError instead, which ends the suite with every finding so far kept). Other steps stop
 * the run through `halt` (a TLS failure, a target slowing down). What the run spent is the ledger's (runner/ledger.ts).
 */
import { setMaxListeners } from 'node:events';
import { ExitCode, exitCodeFor, HarnessError } from '../errors/catalogue.js';
import type { OutgoingRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import type { Ledger } from './ledger.js';

export interface LimitSettings {
  /** Epoch ms after which no request is sent (null: none). */
  readonly deadline: number | null;
  /** Most requests the run lets through (null: no cap). */
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
  /**
   * Requests kept for the suites that run after those of `suiteEstimates` (the rate-limit suite's minimum): the shares
   * of the suites with estimates are cut from what is left beyond it.
   */
  readonly reserved?: number;
}

/** Requests a suite needs: its coverage phase, which must run whole, and its random exploration, which can shrink. */
export interface SuiteEstimate {
  readonly coverage: number;
  readonly explore: number;
}

export const UNLIMITED: LimitSettings = Object.freeze({ deadline: null, maxRequests: null, maxCreates: null });

/**
 * Why a run stopped early. Budget and creation caps are the user's choice: what they left out is reported and the
 * verdict stands on what ran. A deadline, a slowing target, or a TLS or proxy failure after the first request (the
 * configuration's problem, not the target's) block the run (exit 3); so does a signal (SIGINT, SIGTERM:
 * cli/interrupt.ts), with the signal's exit code.
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

export interface Stop {
  readonly code: StopCode;
  readonly message: string;
}

/** Whether a stop blocks the run (exit 3, or a signal's code), as the error catalogue says. */
export function blocksRun(code: StopCode): boolean {
  const exit = exitCodeFor(code);
  return exit !== ExitCode.conformant && exit !== ExitCode.violations;
}

/** Whether a stop is a signal's (SIGINT, SIGTERM): the stop the user or a CI runner asked for, not a limit met. */
export function isInterruption(code: StopCode): code is 'PSC_SIGINT' | 'PSC_SIGTERM' {
  return code === 'PSC_SIGINT' || code === 'PSC_SIGTERM';
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

/** A suite's own state in the limits: its share of the budget, what it sent, its stop, what it is doing. */
export interface SuiteState {
  readonly name: string;
  readonly cap: number | null;
  sent: number;
  stop: Stop | null;
  phase: string | null;
}

/** A part of a suite's exploration with its own share of the budget (see RunLimits.part). */
export interface Part {
  readonly label: string;
  readonly cap: number | null;
  sent: number;
  stopped: boolean;
}

/**
 * Where a request belongs: its suite and the part of that suite's exploration. Suites and properties side by side
 * (--concurrency) share one RunLimits, so each context passes its own scope (runner/context.ts); a caller running
 * suites one at a time may leave it out: the suite begun last is then the one.
 */
export interface LimitScope {
  readonly suite: SuiteState | null;
  readonly part: Part | null;
}

/** A controller whose signal any number of waits and clients may listen to (no MaxListeners warning). */
function abortController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}

export class RunLimits {
  private sent = 0;
  private creates = 0;
  private pendingCreates = 0;
  private stopped: Stop | null = null;
  private readonly interruption = abortController();
  private readonly begun = new Set<string>();
  /** The scope of a caller that names none: the suite begun last. */
  private fallback: LimitScope = { suite: null, part: null };

  /** `ledger` is told what the budget left out (a part cut short) and what each suite's coverage phase sent. */
  constructor(
    readonly settings: LimitSettings = UNLIMITED,
    private readonly now: () => number = Date.now,
    private readonly ledger: Pick<Ledger, 'leftOut' | 'coverageSent'> | null = null,
  ) {}

  /** Requests let through so far, and pets created (answered in 2xx, or not answered). */
  get requests(): number {
    return this.sent;
  }
  get created(): number {
    return this.creates;
  }
  /** What stopped the run, if anything has. */
  get stop(): Stop | null {
    return this.stopped;
  }

  /**
   * Aborted when a signal stops the run (`halt` with PSC_SIGINT or PSC_SIGTERM): every wait of the run ends at once
   * (http/waits.ts) and the requests still under way are aborted a grace later (http/client.ts), so that the reports
   * are written within the few seconds a CI runner gives between SIGTERM and SIGKILL.
   */
  get interrupted(): AbortSignal {
    return this.interruption.signal;
  }

  /** Whether nothing more may be sent in this scope: the run, its suite or its part of the exploration stopped. */
  isStopped({ suite, part }: LimitScope = this.fallback): boolean {
    return this.stopped !== null || (suite?.stop ?? null) !== null || (part?.stopped ?? false);
  }

  /**
   * A suite starts. Its share of the request budget: its own coverage phase, plus a part of what is left once the
   * coverage of every suite still to run is reserved, in proportion to its exploration. When what is left cannot even
   * cover every suite's classes, the coverage is cut in proportion (the report names what was left out).
   */
  beginSuite(name: string): SuiteState {
    const { maxRequests, suiteEstimates } = this.settings;
    const own = suiteEstimates?.[name];
    let cap: number | null = null;
    if (maxRequests !== null && suiteEstimates && own !== undefined) {
      this.begun.add(name);
      const rest = Object.entries(suiteEstimates)
        .filter(([s]) => s === name || !this.begun.has(s))
        .map(([, e]) => e);
      const coverage = rest.reduce((n, e) => n + e.coverage, 0);
      const explore = rest.reduce((n, e) => n + e.explore, 0);
      const left = Math.max(0, maxRequests - this.sent - (this.settings.reserved ?? 0));
      if (left < coverage) cap = coverage > 0 ? Math.floor((left * own.coverage) / coverage) : 0;
      else cap = own.coverage + (explore > 0 ? Math.floor(((left - coverage) * own.explore) / explore) : 0);
    }
    const suite: SuiteState = { name, cap, sent: 0, stop: null, phase: null };
    this.fallback = { suite, part: null };
    return suite;
  }

  /** Names what the suite is doing (e.g. 'coverage: invalid bodies'), for the report when a limit stops it there. */
  phase(label: string | null, { suite }: LimitScope = this.fallback): void {
    if (suite) suite.phase = label;
  }

  /**
   * Runs `fn` as a part of the suite's random exploration that may spend at most `fraction` of what the suite has
   * left (with no request budget, no cap). A part that spends its share ends (its remaining cases pass: `stopped` is
   * true inside it), and the suite goes on with its next part; what the cut left out goes to the ledger. `fn` sends in
   * the part's own scope.
   */
  async part<T>(
    label: string,
    fraction: number,
    fn: (scope: LimitScope) => Promise<T>,
    { suite }: LimitScope = this.fallback,
  ): Promise<T> {
    const cap =
      suite?.cap === null || suite === null
        ? null
        : Math.max(0, Math.floor((suite.cap - suite.sent) * Math.min(1, Math.max(0, fraction))));
    const part: Part = { label, cap, sent: 0, stopped: false };
    if (suite) this.ledger?.coverageSent(suite.name, suite.sent);
    try {
      return await fn({ suite, part });
    } finally {
      if (part.stopped && suite)
        this.ledger?.leftOut(
          `${suite.name}: ${label} ended at its share of the request budget (${part.sent} requests)`,
        );
    }
  }

  /** Throws, without sending, when the request would break a limit or the run has already stopped. */
  beforeSend(req: OutgoingRequest, { suite, part }: LimitScope = this.fallback): void {
    if (!this.stopped) {
      const { deadline, maxRequests, maxCreates } = this.settings;
      if (deadline !== null && this.now() >= deadline)
        this.halt('PSC_MAX_DURATION', 'the run reached its time budget (--max-duration)');
      else if (maxRequests !== null && this.sent >= maxRequests)
        this.halt('PSC_BUDGET', 'the run spent its request budget (--budget)');
      else if (maxCreates !== null && req.operation === 'createPet' && this.creates + this.pendingCreates >= maxCreates)
        this.halt('PSC_MAX_CREATES', `the run made its ${maxCreates} creations (--max-creates)`);
    }
    if (this.stopped) throw new RunStoppedError(this.stopped.code, this.stopped.message);
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
  }

  /** A create answered: no longer in flight, and counted when it may have made a pet. */
  afterSend(ex: Exchange): void {
    if (ex.operation !== 'createPet') return;
    this.pendingCreates = Math.max(0, this.pendingCreates - 1);
    const created = ex.response !== null && ex.response.status >= 200 && ex.response.status < 300;
    // A body the target refused created nothing; one with no answer may have: it counts.
    if (created || !ex.response) this.creates++;
  }

  /** Before a wait (Retry-After): one that would run past the deadline ends the run now instead. */
  beforeWait(ms: number, scope: LimitScope = this.fallback): void {
    const { deadline } = this.settings;
    if (deadline !== null && this.now() + ms >= deadline)
      this.halt(
        'PSC_MAX_DURATION',
        `the run would reach its time budget (--max-duration) waiting ${Math.ceil(ms / 1000)} s`,
      );
    this.throwIfStopped(scope);
  }

  throwIfStopped({ suite }: LimitScope = this.fallback): void {
    const stop = this.stopped ?? suite?.stop ?? null;
    if (stop) throw new RunStoppedError(stop.code, stop.message);
  }

  /**
   * Ends the run where it stands: the next request throws. A signal (cli/interrupt.ts, carried to the worker by
   * suites/stop-channel.ts) is one more reason, which also ends the waits and the requests under way (`interrupted`).
   */
  halt(code: StopCode, message: string): void {
    this.stopped ??= { code, message };
    if (isInterruption(code)) this.interruption.abort(new RunStoppedError(code, message));
  }

  /**
   * A TLS or proxy failure (runner/reach.ts), whenever it comes, is the configuration's, never the target's: it stops
   * the run (exit 3) with its cause and remedy, and throws so that no check judges the exchange.
   */
  transportFailed(failure: HarnessError<'PSC_TLS' | 'PSC_PROXY'>): never {
    this.halt(failure.code, failure.message);
    throw new RunStoppedError(failure.code, failure.message);
  }
}

/** The limits as one context sees them: the run's, and its own suite's and part's shares (see LimitScope). */
export class ScopedLimits {
  /** With no scope, the suite the run's limits began last (a caller running suites one at a time). */
  constructor(
    readonly run: RunLimits,
    readonly scope?: LimitScope,
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
