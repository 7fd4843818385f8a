/**
 * What the CLI hands the suite workers, through vitest's `provide`/`inject`: a plain, structured-clone-safe copy of
 * the resolved configuration. Keys cross the boundary as strings only because an ApiKey will not serialize; the worker
 * wraps them again at once, so nothing past `workerSettings` ever holds a bare key.
 */
import type { PlanKey } from '../config/config.js';
import { ApiKey, registerSecret } from '../http/redact.js';
import type { TransportSettings } from '../http/transport.js';
import type { SuiteName } from '../config/config.js';
import type { RunSettings } from '../runner/context.js';
import { type LimitSettings, UNLIMITED } from '../runner/limits.js';
import type { PlanLimits, PlanName } from '../spec/contract.js';

export interface WorkerConfig {
  readonly target: string;
  readonly keys: readonly { readonly plan: PlanName; readonly value: string; readonly limits: PlanLimits | null }[];
  /** Plan of the key the functional suites use. */
  readonly functionalPlan: PlanName;
  readonly seed: number;
  readonly runs: number;
  readonly strict: boolean;
  readonly windowSeconds: number;
  /** Whether the suites hand every exchange to the reporters (for --har). */
  readonly recordExchanges: boolean;
  /** The run's limits: deadline (epoch ms), requests the suites may send, creations. */
  readonly limits: LimitSettings;
  readonly namePrefix: string;
  /** TLS trust, proxies and Accept-Encoding, as the CLI resolved them (plain data: strings and booleans). */
  readonly transport: TransportSettings;
  /** The suites of the run (the run schedules them: runner/run.ts). */
  readonly suites: readonly SuiteName[];
  /** Requests in flight at most, suites and properties side by side (--concurrency, or the default from the key's limits). */
  readonly concurrency: number;
  /** The channel on which the CLI stops the run (a signal: suites/stop-channel.ts); none when not given. */
  readonly stopChannel?: string;
  /** The target is the embedded server, on this host; false when not given. */
  readonly embedded?: boolean;
}

declare module 'vitest' {
  interface ProvidedContext {
    petstore: WorkerConfig;
  }
}

export function toWorkerConfig(
  c: Omit<WorkerConfig, 'keys' | 'functionalPlan' | 'limits' | 'namePrefix' | 'suites' | 'concurrency'> & {
    keys: readonly PlanKey[];
    functionalKey: PlanKey;
    /** The run's limits; none when not given. */
    limits?: LimitSettings;
    /** Marks the names of created pets; none when not given. */
    namePrefix?: string;
    /** The run's suites; none when not given. */
    suites?: readonly SuiteName[];
    /** Suites side by side at most; 1 when not given. */
    concurrency?: number;
  },
): WorkerConfig {
  return {
    target: c.target,
    keys: c.keys.map((k) => ({ plan: k.plan, value: k.key.reveal(), limits: k.limits })),
    functionalPlan: c.functionalKey.plan,
    seed: c.seed,
    runs: c.runs,
    strict: c.strict,
    windowSeconds: c.windowSeconds,
    recordExchanges: c.recordExchanges,
    limits: c.limits ?? UNLIMITED,
    namePrefix: c.namePrefix ?? '',
    transport: c.transport,
    suites: [...(c.suites ?? [])],
    concurrency: c.concurrency ?? 1,
    ...(c.stopChannel !== undefined && { stopChannel: c.stopChannel }),
    ...(c.embedded !== undefined && { embedded: c.embedded }),
  };
}

/** The worker's side: keys back inside ApiKey (registered, so any text leaving the worker is scrubbed of them). */
export function workerSettings(w: WorkerConfig): Omit<RunSettings, 'onWait'> {
  const keys: PlanKey[] = w.keys.map((k) => ({
    plan: k.plan,
    key: registerSecret(new ApiKey(k.value, k.plan)),
    limits: k.limits,
  }));
  const key = keys.find((k) => k.plan === w.functionalPlan);
  if (!key) throw new Error(`worker config: no ${w.functionalPlan} key for the functional suites`);
  return {
    target: w.target,
    keys,
    key,
    seed: w.seed,
    runs: w.runs,
    strict: w.strict,
    windowSeconds: w.windowSeconds,
    namePrefix: w.namePrefix,
    transport: w.transport,
    embedded: w.embedded === true,
  };
}
