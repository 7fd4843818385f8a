/**
 * What a scenario needs to talk to a target: the HTTP client, the pacing policy, the finding log and the keys.
 * `send` is the one path of a request: pace, send, apply every response check, learn the rate-limit headers, and on a
 * 429 wait Retry-After and resend (each 429 is itself checked and recorded).
 */
import type { PlanKey } from '../config/config.js';
import { TargetStalledError } from '../config/errors.js';
import { HttpClient, type AuthSpec, type OutgoingRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { Pacer } from '../http/pacing.js';
import { DEFAULT_TRANSPORT, type TransportSettings } from '../http/transport.js';
import { type Check, type Finding, failsRun } from '../checks/check.js';
import { applyResponseChecks, responseChecks } from '../checks/registry.js';
import type fc from 'fast-check';
import { type GeneratedPet, validNewPet } from '../generators/new-pet.js';
import { FindingLog } from './findings.js';
import { type GuardScope, isRunStopped, RunGuard, ScopedGuard } from './guard.js';
import { RUN_STOPPED_CODE } from '../http/waits.js';
import type { Lanes } from './lanes.js';
import { reachFailure } from './reach.js';
import type { RateLimitResult } from './rate-limit-results.js';

export interface RunSettings {
  readonly target: string;
  readonly keys: readonly PlanKey[];
  /** The key the functional suites use. */
  readonly key: PlanKey;
  readonly seed: number;
  readonly runs: number;
  readonly strict: boolean;
  /** Most shrinking steps that resend requests, per failing property. */
  readonly shrinkBudget?: number;
  readonly onWait?: (ms: number, reason: string) => void;
  /** Told of every finding as it is recorded (the run's progress counts distinct defects: suites/progress-feed.ts). */
  readonly onRecord?: (findings: readonly Finding[]) => void;
  /** HTTP client limits (defaults in http/client.ts); tests against hostile targets shorten them. */
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  readonly maxBodyBytes?: number;
  /** TLS trust, proxies and Accept-Encoding (from the configuration); default: Node's roots, direct, gzip. */
  readonly transport?: TransportSettings;
  /** Length of the target's rate-limit "minute" window in seconds (60 per the spec; the embedded server's is shorter). */
  readonly windowSeconds?: number;
  /** Where every exchange goes as it is recorded (the context keeps none); none by default. */
  readonly exchangeSink?: ExchangeSink;
  /** The run's limits (deadline, request budget, creations), shared by every suite of the run; none by default. */
  readonly guard?: RunGuard;
  /** Marks the names of the pets the run creates, wherever the case allows (--name-prefix); none by default. */
  readonly namePrefix?: string;
  /** The rate-limit pacing shared by every suite of the run (suites side by side spend the same keys); own by default. */
  readonly pacer?: Pacer;
  /**
   * Requests in flight at most, shared by the contexts of the suites side by side (--concurrency); with more than one
   * lane, a suite's independent properties run side by side too. None by default: one property at a time.
   */
  readonly lanes?: Lanes;
}

/** Receives a run's exchanges as they are recorded, so that no part of the harness holds them all. */
export interface ExchangeSink {
  push(ex: Exchange): void;
  /** A promise while the sink holds as many as it may: the next request waits for it. Null otherwise. */
  backlog?(): Promise<void> | null;
}

/** How `send` treats a request; the defaults suit the functional suites. */
export interface SendOptions {
  /** Wait first when the key's headers show its window spent (default true). */
  readonly pace?: boolean;
  /** On a 429, wait Retry-After and resend (default true). Off where each 429 is itself the evidence. */
  readonly resendOn429?: boolean;
  /** One of a deliberate burst of overlapping requests (a race the scenario tests): not held to the run's lanes. */
  readonly burst?: boolean;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'PSC_REQUEST_DEADLINE',
]);
const MAX_TIMEOUTS_IN_A_ROW = 5;

/** Exchanges a part of a suite may number before the next part's numbers begin (see RunContext.part). */
export const PART_SEQ_STRIDE = 1_000_000;

/** What every context of one suite run shares, whichever part of it they run. */
interface SuiteShared {
  /** Exchanges recorded so far (they go to `settings.exchangeSink`, not kept here: memory stays bounded). */
  exchanges: number;
  /** Parts forked so far: the next one numbers its exchanges after theirs. */
  parts: number;
  /**
   * Large categoryIds (beyond 2^32) the target accepted in a 201: two distinct ones show it takes categories it cannot
   * have known before, so it does not require categories to exist (gap-2-category-record).
   */
  readonly acceptedCategories: Set<string>;
  /** Per-plan numbers of the rate-limit and quota suites (runner/scenarios/rate-limit.ts), for the reports. */
  readonly rateLimitResults: RateLimitResult[];
  /** Pauses left for a created pet that is not yet retrievable: a target whose retries keep failing is not lagging. */
  lagRetriesLeft: number;
}

export class RunContext {
  readonly client: HttpClient;
  readonly pacer: Pacer;
  readonly log = new FindingLog();
  private scope: Finding[] | null = null;
  /** The class of case being sent (see inCase), stamped on what it provokes. */
  private caseClass: string | null = null;
  /** The run's guard as this context sees it: the run's limits and its own suite's and part's shares. */
  readonly guard: ScopedGuard;
  private readonly shared: SuiteShared;

  /**
   * `suite` names the suite this context runs, stamped on every finding it records; `scope` is its place in the run's
   * guard (none: the suite the guard began last). A part of a suite (see `part`) passes the context it is part of.
   */
  constructor(
    readonly settings: RunSettings,
    readonly suite: string | null = null,
    scope?: GuardScope,
    parent?: RunContext,
  ) {
    const run = settings.guard ?? parent?.guard.run ?? new RunGuard();
    this.guard = new ScopedGuard(run, scope);
    if (parent) {
      this.shared = parent.shared;
      this.client = parent.client.fork(++this.shared.parts * PART_SEQ_STRIDE + 1);
    } else {
      const { connectTimeoutMs, headersTimeoutMs, bodyTimeoutMs, maxBodyBytes } = settings;
      this.client = new HttpClient({
        baseUrl: settings.target,
        ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
        ...(headersTimeoutMs !== undefined && { headersTimeoutMs }),
        ...(bodyTimeoutMs !== undefined && { bodyTimeoutMs }),
        ...(maxBodyBytes !== undefined && { maxBodyBytes }),
        ...(settings.transport !== undefined && { transport: settings.transport }),
      });
      this.shared = {
        exchanges: 0,
        parts: 0,
        acceptedCategories: new Set(),
        rateLimitResults: [],
        lagRetriesLeft: 3,
      };
    }
    // Suites side by side share the run's pacer (settings.pacer); alone, a context paces itself.
    this.pacer = parent?.pacer ?? settings.pacer ?? new Pacer(settings.onWait ? { onWait: settings.onWait } : {});
    // Every request of the run passes the guard, including those a scenario sends through `client` directly: a
    // request that would break a limit is never sent.
    const send = this.client.send.bind(this.client);
    const sink = settings.exchangeSink;
    const guarded = async (req: OutgoingRequest) => {
      this.guard.beforeSend(req);
      const ex = await send(req);
      // A TLS or proxy failure is the configuration's, never the target's: it stops the run before a check sees it.
      const failure = ex.error
        ? reachFailure(settings.target, settings.transport ?? DEFAULT_TRANSPORT, ex.error)
        : null;
      if (failure) run.transportFailed(failure);
      // HOOK (issue 22): a request the run's stop aborted (http/waits.ts) is not the target's doing: no check judges it.
      if (ex.error?.code === RUN_STOPPED_CODE) this.guard.throwIfStopped();
      return ex;
    };
    this.client.send = (req) => {
      const backlog = sink?.backlog?.();
      return backlog ? backlog.then(() => guarded(req)) : guarded(req);
    };
    this.client.onExchange((ex) => {
      this.shared.exchanges++;
      sink?.push(ex);
      this.log.count(ex.operation, 'exchanges');
      run.afterSend(ex);
    });
  }

  /** Exchanges the suite recorded so far, every part of it included. */
  get exchangeCount(): number {
    return this.shared.exchanges;
  }

  get acceptedCategories(): Set<string> {
    return this.shared.acceptedCategories;
  }

  get rateLimitResults(): RateLimitResult[] {
    return this.shared.rateLimitResults;
  }

  get lagRetriesLeft(): number {
    return this.shared.lagRetriesLeft;
  }
  set lagRetriesLeft(n: number) {
    this.shared.lagRetriesLeft = n;
  }

  /**
   * Runs `fn` as a part of the suite's exploration that may spend at most `fraction` of what the suite has left of the
   * request budget (RunGuard.part), in a context of its own: its own finding log, case state and exchange numbers
   * (from the part's place in the suite times PART_SEQ_STRIDE), so that parts side by side record the same whatever
   * the interleaving. Its findings join this context's log once `absorb` takes them, in an order the caller fixes.
   */
  async part<T>(label: string, fraction: number, fn: (ctx: RunContext) => Promise<T>): Promise<PartRun<T>> {
    let own: RunContext | undefined;
    try {
      const value = await this.guard.run.part(
        label,
        fraction,
        (scope) => {
          own = new RunContext(this.settings, this.suite, scope, this);
          return fn(own);
        },
        this.guard.scope,
      );
      return { ctx: own!, value };
    } catch (error) {
      if (own) return { ctx: own, error };
      throw error;
    }
  }

  /** Takes in what a part found (see `part`), then rethrows what ended it, if anything did. */
  absorb<T>(run: PartRun<T>): T {
    this.log.absorb(run.ctx.log);
    if ('error' in run) throw run.error;
    return run.value;
  }

  /** Valid new pets, their plain names marked with the run's prefix. */
  newPets(): fc.Arbitrary<GeneratedPet> {
    return validNewPet(undefined, { namePrefix: this.settings.namePrefix ?? '' });
  }

  get seed(): number {
    return this.settings.seed;
  }
  get runs(): number {
    return this.settings.runs;
  }
  get key(): PlanKey {
    return this.settings.key;
  }

  /** Authorization with the functional key; `template` defaults to the documented form. */
  auth(template = 'Bearer {key}', key: PlanKey = this.settings.key): AuthSpec {
    return { template, key: key.key, keyPlan: key.plan };
  }

  /** Whether a finding fails the run at this strictness. */
  fails(f: Finding): boolean {
    return failsRun(f.level, this.settings.strict);
  }

  /**
   * Records findings, stamped with what this context knows and the check could not: the suite, and the class of case
   * that provoked them (a check that knows the case class better keeps its own).
   */
  record(findings: readonly Finding[]): void {
    const stamped = findings.map((f) => ({
      ...f,
      suite: f.suite ?? this.suite,
      caseClass: f.caseClass ?? this.caseClass,
    }));
    if (this.scope) this.scope.push(...stamped);
    else this.log.add(stamped);
    // HOOK (issue 22): progress counts distinct defects as they are found.
    this.settings.onRecord?.(stamped);
  }

  /** Runs `fn` as one case of the given class: the findings of what it sends carry that class in their signature. */
  async inCase<T>(caseClass: string, fn: () => Promise<T>): Promise<T> {
    const outer = this.caseClass;
    this.caseClass = caseClass;
    try {
      return await fn();
    } finally {
      this.caseClass = outer;
    }
  }

  /** Runs a behavioural check on its evidence and records what it finds (as a case of `caseClass`, when given). */
  judge<E>(check: Check<E>, evidence: E, caseClass?: string): Finding[] {
    const found = check.run(evidence);
    this.record(caseClass === undefined ? found : found.map((f) => ({ ...f, caseClass: f.caseClass ?? caseClass })));
    return found;
  }

  /** Collects the findings `fn` produces instead of logging them (a property decides what to keep). */
  async capture(fn: () => Promise<void>): Promise<Finding[]> {
    const outer = this.scope;
    const mine: Finding[] = [];
    this.scope = mine;
    try {
      await fn();
    } catch (e) {
      // The run stopped mid-case: what the case saw before is still evidence, and a stopped run keeps every finding.
      this.scope = outer;
      if (isRunStopped(e)) this.record(mine);
      throw e;
    } finally {
      this.scope = outer;
    }
    return mine;
  }

  /** The plan limits of the key an exchange used (null when it used none or an invalid one). */
  private planOf(ex: Exchange): PlanKey['limits'] {
    return this.settings.keys.find((k) => k.plan === ex.keyPlan)?.limits ?? null;
  }

  check(ex: Exchange): void {
    this.record(applyResponseChecks({ exchange: ex, plan: this.planOf(ex), now: Date.now() }));
    this.log.count(ex.operation, 'checksApplied', responseChecks.length);
  }

  /**
   * Sends a request the suites mean to judge: paced, every response checked; a 429 is waited out and the request
   * resent (a few times at most), and the exchange returned is the last one.
   */
  async send(req: OutgoingRequest, options: SendOptions = {}): Promise<Exchange> {
    const label = req.auth.keyPlan;
    // Requests with a deliberately bad key are judged as they come: a 429 there is itself the answer.
    const keyed = label !== 'none' && label !== 'invalid';
    const paced = keyed && options.pace !== false;
    const resend = keyed && options.resendOn429 !== false;
    const lanes = options.burst ? undefined : this.settings.lanes;
    const dispatch =
      lanes && lanes.size > 1 ? () => lanes.run(() => this.client.send(req)) : () => this.client.send(req);
    for (;;) {
      let ex: Exchange;
      if (paced) {
        await this.pacer.before(label);
        try {
          ex = await dispatch();
        } finally {
          this.pacer.settle(label);
        }
      } else ex = await dispatch();
      this.check(ex);
      this.noteStall(ex);
      if (!resend) return ex;
      const wait = this.pacer.after(label, ex);
      if (wait === null) return ex;
      this.guard.beforeWait(wait);
      await this.pacer.wait(wait, `429 on ${req.method} ${req.path}`);
    }
  }

  private timeoutsInARow = 0;

  /** A target that keeps timing out would cost every remaining case a full timeout: stop the suite instead. */
  private noteStall(ex: Exchange): void {
    this.timeoutsInARow = ex.error && TIMEOUT_CODES.has(ex.error.code) ? this.timeoutsInARow + 1 : 0;
    if (this.timeoutsInARow >= MAX_TIMEOUTS_IN_A_ROW) {
      throw new TargetStalledError(
        `${this.timeoutsInARow} requests in a row timed out (${ex.error!.code}); the suite stopped rather than wait out every case`,
      );
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** A part of a suite as it ended (RunContext.part): its context, and its value or what ended it. */
export type PartRun<T> =
  | { readonly ctx: RunContext; readonly value: T }
  | { readonly ctx: RunContext; readonly error: unknown };
