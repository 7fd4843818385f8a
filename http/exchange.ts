/** An exchange is one request and what came back: the unit every check reads. Plain data, never I/O. */
import type { OperationId, PlanName } from '../spec/contract.js';

export interface RecordedRequest {
  readonly method: string;
  /** Full URL as sent. */
  readonly url: string;
  /** Path and query relative to the base address, e.g. /pets?limit=5. */
  readonly path: string;
  /** Headers as sent, names lower-cased. The Authorization value is stored redacted (see http/redact.ts). */
  readonly headers: Readonly<Record<string, string>>;
  /** Raw body bytes as sent, or null when there was none. */
  readonly body: Uint8Array | null;
  /** The request-target as sent when it was given verbatim (OutgoingRequest.rawTarget: dot segments kept). */
  readonly rawTarget?: string;
  /** Header lines sent after `headers`: a repeated field's later lines (a second Authorization, AuthSpec.repeated). */
  readonly laterLines?: readonly (readonly [name: string, value: string])[];
}

export interface RecordedResponse {
  readonly status: number;
  /** Header names lower-cased; a repeated header is an array. */
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** Body as received, decoded when it carried a Content-Encoding (possibly truncated at the read cap). */
  readonly body: Uint8Array;
  readonly bodyText: string;
  readonly truncated: boolean;
  /** Parsed JSON with numbers kept as exact digits (LosslessNumber); undefined when not JSON. */
  readonly json: unknown;
  /** Why the body did not parse as JSON, when it did not. */
  readonly jsonError: string | null;
  /** The Content-Encoding the body was decoded from (e.g. "gzip"), when it had one. */
  readonly contentEncoding?: string;
}

export interface TransportError {
  /** Stable code, e.g. ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, UND_ERR_BODY_TIMEOUT, ECONNRESET. */
  readonly code: string;
  readonly message: string;
}

/** Whether a keyPlan names no key: a request sent without one ('none') or with a deliberately bad one ('invalid'). */
export function isUnkeyedPlan(plan: string): boolean {
  return plan === 'none' || plan === 'invalid';
}

export interface Exchange {
  readonly seq: number;
  readonly operation: OperationId | null;
  /** Which configured key was sent, by plan; 'none' for requests sent without (or with a deliberately bad) key. */
  readonly keyPlan: PlanName | 'none' | 'invalid';
  readonly request: RecordedRequest;
  readonly response: RecordedResponse | null;
  readonly error: TransportError | null;
  /** Epoch ms when the request started, and how long until the body was read. */
  readonly startedAt: number;
  readonly durationMs: number;
}
