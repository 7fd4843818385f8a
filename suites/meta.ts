/** What the conformance suites hand to reporters through vitest's task.meta. */
import type { Finding } from '../checks/check.js';
import type { Exchange, RecordedResponse } from '../http/exchange.js';
import type { HarnessErrorCode } from '../config/errors.js';
import type { OperationStats } from '../runner/findings.js';

export interface SuiteMeta {
  readonly suite: string;
  readonly stats: Readonly<Record<string, OperationStats>>;
  readonly occurrences: Readonly<Record<string, number>>;
  readonly exchanges: number;
  readonly durationMs: number;
  readonly aborted: { readonly code: HarnessErrorCode; readonly message: string } | null;
  readonly seed: number;
  readonly observations: readonly Finding[];
  /** Per-plan numbers of the rate-limit and quota suites (runner/scenarios/rate-limit.ts, quota.ts). */
  readonly rateLimits: readonly unknown[];
}

/** An exchange as data that survives the trip to the reporters (the parsed body is left behind: it is re-derivable). */
export type ExchangeData = Omit<Exchange, 'response'> & { readonly response: Omit<RecordedResponse, 'json'> | null };

export function exchangeData(ex: Exchange): ExchangeData {
  if (!ex.response) return ex;
  const { json: _json, ...response } = ex.response;
  return { ...ex, response };
}

declare module '@vitest/runner' {
  interface TaskMeta {
    findings?: readonly Finding[];
    suite?: SuiteMeta;
    /** Every exchange of the suite, when the run asked for them (--har). */
    exchanges?: readonly ExchangeData[];
  }
}
