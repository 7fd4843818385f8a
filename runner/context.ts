/**
 * What a scenario sees of the run: `send` (the request path, runner/request-path.ts), `judge`, the case it is in,
 * `capture`, `part`, the keys and new pets. It is built by the run (runner/run.ts) for a suite, and by `part` for a
 * part of that suite; the run's limits, ledger, pacer and lanes stay the run's.
 */
import type { PlanKey } from '../config/config.js';
import { HttpClient, type AuthSpec, type OutgoingRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { DEFAULT_TRANSPORT, type TransportSettings } from '../http/transport.js';
import { sleep } from '../http/waits.js';
import { type Check, type Finding, failsRun } from '../checks/check.js';
import { applyResponseChecks, responseChecks } from '../checks/registry.js';
import type fc from 'fast-check';
import type { CaseRef } from '../generators/case.js';
import { type GeneratedPet, validNewPet } from '../generators/new-pet.js';
import { FindingLog } from './findings.js';
import type { Lanes } from './lanes.js';
import { isRunStopped, type LimitScope, ScopedLimits } from './limits.js';
import { type ExchangeSink, flightKey, requestPath, type Send, type SendOptions } from './request-path.js';
import type { Run } from './run.js';

export type { ExchangeSink, SendOptions } from './request-path.js';

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
  /** Told of every finding as it is recorded (the run's progress counts defects: suites/progress-feed.ts). */
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
  /** Where every exchange of the run goes as it is recorded (the contexts keep none); none by default. */
  readonly exchangeSink?: ExchangeSink;
  /** Marks the names of the pets the run creates, wherever the case allows (--name-prefix); none by default. */
  readonly namePrefix?: string;
  /** The target is the embedded server, on this host: a slow-down is the host's (runner/trend.ts). */
  readonly embedded?: boolean;
}

/** Exchanges a part of a suite may number before the next part's numbers begin (see RunContext.part). */
export const PART_SEQ_STRIDE = 1_000_000;

/** What every context of one suite run shares, whichever part of it they run. */
interface SuiteShared {
  /** Exchanges recorded so far (they go to the sink, not kept here: memory stays bounded). */
  exchanges: number;
  /** Parts forked so far: the next one numbers its exchanges after theirs. */
  parts: number;
  readonly sink: ExchangeSink | null;
  /** Requests in flight at most, shared with the suites side by side; null for the suites that run alone. */
  readonly lanes: RunLanes;
  /** What the scenario's shared steps keep for the whole suite run (see `suiteState`), by the step's name. */
  readonly states: Map<string, unknown>;
}

/** A piece of state a shared step keeps for a whole suite run, every part of it included (see RunContext.suiteState). */
export interface SuiteStateKey<S> {
  /** The step's name, one per step. */
  readonly name: string;
  readonly init: () => S;
}

type RunLanes = Lanes | null;

/** Where a context stands in its run: the suite, its scope in the limits, and the context it is a part of. */
export interface ContextPlace {
  readonly suite: string | null;
  readonly scope?: LimitScope;
  readonly parent?: RunContext;
  /** A suite's own sink and lanes (a part takes its suite's). */
  readonly sink?: ExchangeSink | null;
  readonly lanes?: RunLanes;
}

export class RunContext {
  private readonly client: HttpClient;
  readonly log = new FindingLog();
  readonly settings: RunSettings;
  readonly suite: string | null;
  private scope: Finding[] | null = null;
  /** The case being sent (see inCase), stamped on what it provokes. */
  private case: CaseRef | null = null;
  /** The run's limits as this context sees them: the run's, and its own suite's and part's shares. */
  readonly guard: ScopedLimits;
  private readonly shared: SuiteShared;
  private readonly path: Send;

  constructor(
    private readonly run: Run,
    { suite, scope, parent, sink, lanes }: ContextPlace,
  ) {
    this.settings = run.settings;
    this.suite = suite;
    this.guard = new ScopedLimits(run.limits, scope);
    const settings = run.settings;
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
        // A signal's stop aborts what is still under way a grace later (http/client.ts).
        stop: run.limits.interrupted,
      });
      this.shared = {
        exchanges: 0,
        parts: 0,
        sink: sink ?? settings.exchangeSink ?? null,
        lanes: lanes ?? null,
        states: new Map(),
      };
    }
    this.path = requestPath({
      client: this.client,
      target: settings.target,
      transport: settings.transport ?? DEFAULT_TRANSPORT,
      runLimits: run.limits,
      limits: this.guard,
      ledger: run.ledger,
      trend: run.trend,
      rest: run.rest,
      pacer: run.pacer,
      flights: run.flights,
      lanes: this.shared.lanes,
      sink: this.shared.sink,
      counted: (ex) => {
        this.shared.exchanges++;
        this.log.count(ex.operation, 'exchanges');
      },
      judged: (ex) => this.check(ex),
      // The run's warning, as the check made it (no case class of this context's): it joins this suite's findings.
      slowing: (f) => this.log.add([f]),
    });
  }

  /** Exchanges the suite recorded so far, every part of it included. */
  get exchangeCount(): number {
    return this.shared.exchanges;
  }

  /** Requests in flight at most for this suite (1: one at a time). */
  get laneCount(): number {
    return this.shared.lanes?.size ?? 1;
  }

  /** The state `key`'s step keeps for this suite run (its parts share it), made on first use. */
  suiteState<S>(key: SuiteStateKey<S>): S {
    if (!this.shared.states.has(key.name)) this.shared.states.set(key.name, key.init());
    return this.shared.states.get(key.name) as S;
  }

  /**
   * Runs `fn` as a part of the suite's exploration that may spend at most `fraction` of what the suite has left of the
   * request budget (RunLimits.part), in a context of its own: its own finding log, case state and exchange numbers
   * (from the part's place in the suite times PART_SEQ_STRIDE), so that parts side by side record the same whatever
   * the interleaving. Its findings join this context's log once `absorb` takes them, in an order the caller fixes.
   */
  async part<T>(label: string, fraction: number, fn: (ctx: RunContext) => Promise<T>): Promise<PartRun<T>> {
    let own: RunContext | undefined;
    try {
      const value = await this.run.limits.part(
        label,
        fraction,
        (scope) => {
          own = new RunContext(this.run, { suite: this.suite, scope, parent: this });
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
   * Records findings, stamped with what this context knows and the check could not: the suite, and the case that
   * provoked them (a check that knows the case better keeps its own). The case class is the case's printed name.
   */
  record(findings: readonly Finding[]): void {
    const stamped = findings.map((f) => stampCase({ ...f, suite: f.suite ?? this.suite }, this.case));
    if (this.scope) this.scope.push(...stamped);
    else this.log.add(stamped);
    // The run's progress counts defects as they are found (the CLI groups the findings it is sent) (issue 22).
    this.settings.onRecord?.(stamped);
  }

  /** Runs `fn` as one case: the findings of what it sends carry it (its name is their case class, in their signature). */
  async inCase<T>(c: CaseRef, fn: () => Promise<T>): Promise<T> {
    const outer = this.case;
    this.case = c;
    try {
      return await fn();
    } finally {
      this.case = outer;
    }
  }

  /** Runs a behavioural check on its evidence and records what it finds (as findings of case `c`, when given). */
  judge<E>(check: Check<E>, evidence: E, c?: CaseRef): Finding[] {
    const found = check.run(evidence);
    this.log.judged(check.id, check.applies(evidence), check.operationOf(evidence), found.length === 0);
    this.record(c === undefined ? found : found.map((f) => stampCase(f, c)));
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

  /** Applies every response check to an exchange and records what they find. */
  check(ex: Exchange): void {
    this.record(
      applyResponseChecks({ exchange: ex, plan: this.planOf(ex) }, (check, applies, passed) =>
        this.log.judged(check.id, applies, ex.operation, passed),
      ),
    );
    this.log.count(ex.operation, 'checksApplied', responseChecks.length);
  }

  /**
   * Sends a request the suites mean to judge, along the request path (runner/request-path.ts): paced, held to the
   * run's limits and lanes, every response checked; a 429 is waited out and the request resent (a few times at most),
   * and the exchange returned is the last one.
   */
  send(req: OutgoingRequest, options: SendOptions = {}): Promise<Exchange> {
    return this.path(req, options);
  }

  /**
   * Resolves once no request of the run with `auth`'s key is in flight (whichever suite sent it): a Remaining read
   * after that counts every request the run sent on the key (http/in-flight.ts). At once for a request without a key.
   */
  quiet(auth: AuthSpec): Promise<void> {
    const key = flightKey({ auth });
    return key === null ? Promise.resolve() : this.run.flights.quiet(key);
  }

  /**
   * Waits out a key's limit (a Retry-After, a window): recorded on the run's traffic and told to the countdown, then
   * slept like `sleep`.
   */
  waitFor(ms: number, reason: string, plan: string | null): Promise<void> {
    this.run.waiting(ms, reason, plan);
    return this.sleep(ms);
  }

  /** Waits `ms` (a scenario's pause, a window it waits out), or less when a signal stops the run. */
  sleep(ms: number): Promise<void> {
    return sleep(ms, this.run.limits.interrupted);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** A part of a suite as it ended (RunContext.part): its context, and its value or what ended it. */
export type PartRun<T> =
  | { readonly ctx: RunContext; readonly value: T }
  | { readonly ctx: RunContext; readonly error: unknown };

/**
 * A finding stamped with the case that provoked it, unless it names one of its own: its case and, as its case class,
 * the case's printed name (so signatures and baselines read as before).
 */
export function stampCase(f: Finding, c: CaseRef | null): Finding {
  if (c === null || f.case != null || f.caseClass != null) return f;
  return { ...f, case: c, caseClass: c.name };
}
