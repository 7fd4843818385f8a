/**
 * What the CLI hands the suite workers, through vitest's `provide`/`inject`: a plain, structured-clone-safe copy of
 * the resolved configuration. Keys cross the boundary as strings only because an ApiKey will not serialize; the worker
 * wraps them again at once, so nothing past `workerSettings` ever holds a bare key.
 */
import type { PlanKey } from '../config/config.js';
import { ApiKey, registerSecret } from '../http/redact.js';
import type { TransportSettings } from '../http/transport.js';
import type { RunSettings } from '../runner/context.js';
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
  /** TLS trust, proxies and Accept-Encoding, as the CLI resolved them (plain data: strings and booleans). */
  readonly transport: TransportSettings;
}

declare module 'vitest' {
  interface ProvidedContext {
    petstore: WorkerConfig;
  }
}

export function toWorkerConfig(
  c: Omit<WorkerConfig, 'keys' | 'functionalPlan'> & { keys: readonly PlanKey[]; functionalKey: PlanKey },
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
    transport: c.transport,
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
    transport: w.transport,
  };
}
