/**
 * The slice of autocannon 8's programmatic API this project uses, typed here because @types/autocannon lags (it lacks
 * onResponse, setupRequest, statusCodeStats and skipAggregateResult).
 */
import type { EventEmitter } from 'node:events';
import autocannonModule from 'autocannon';

export type RawHeaders = Record<string, string | string[] | undefined>;
export type RequestContext = Record<string, unknown>;

export interface AcRequestParams {
  method?: 'GET' | 'POST';
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface AcRequest extends AcRequestParams {
  setupRequest?: (req: AcRequestParams, context: RequestContext) => AcRequestParams;
  onResponse?: (status: number, body: string, context: RequestContext, headers: RawHeaders) => void;
}

export interface AcOptions {
  url: string;
  connections: number;
  duration: number;
  /** Bound on requests over all connections; must be ≥ connections (a connection's share of 0 means unbounded). */
  maxOverallRequests?: number;
  overallRate?: number;
  /** Required with any rate: autocannon's correction assumes a 1 ms interval whatever the rate. */
  ignoreCoordinatedOmission?: boolean;
  timeout?: number;
  /** Sampling interval in ms (default 1000); autocannon also checks for its end at this tick. */
  sampleInt?: number;
  headers?: Record<string, string>;
  requests?: AcRequest[];
  skipAggregateResult?: boolean;
  excludeErrorStats?: boolean;
}

/** The raw (skipAggregateResult) result: JSON-safe, histograms as compressed base64 HDR. */
export interface AcRawResult {
  latencies: string;
  requests: string;
  throughput: string;
  totalCompletedRequests: number;
  totalRequests: number;
  totalBytes: number;
  samples: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  resets: number;
  duration: number;
  start: Date | string;
  finish: Date | string;
}

export interface AcInstance extends EventEmitter, PromiseLike<AcRawResult> {
  stop(): void;
}

export const autocannon = autocannonModule as unknown as (options: AcOptions) => AcInstance;
