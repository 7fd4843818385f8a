/**
 * A check is a small named pure function from evidence (one exchange, or the exchanges of one scenario) to findings.
 * It never does I/O and never throws for a misbehaving target: whatever the target sent is data to judge.
 */
import type { OperationId } from '../spec/contract.js';
import type { Exchange } from '../http/exchange.js';
import { toCurl } from '../http/curl.js';

/** violation fails the run; warning is should-level (fails with --strict); observation records a gap's behaviour. */
export type Level = 'violation' | 'warning' | 'observation';

export interface ExchangeRef {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly status: number | null;
  readonly error: string | null;
  /** Runnable curl line; keys appear only as $PETSTORE_API_KEY_<PLAN>. */
  readonly curl: string;
  /** The exact request, for replay files: headers carry key placeholders, the body its raw bytes. */
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly bodyBase64: string | null;
  };
}

export interface Repro {
  readonly seed: number;
  /** fast-check path of the shrunk counterexample within its property (with `seed`, fast-check replays exactly it). */
  readonly path?: string;
  /** The shrunk counterexample, as fast-check prints it. */
  readonly counterexample?: string;
  readonly shrinks?: number;
}

export interface Finding {
  readonly checkId: string;
  readonly clause: string;
  readonly level: Level;
  readonly operation: OperationId | null;
  /** Two lines at most: what was received, what is documented. */
  readonly message: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly exchanges: readonly ExchangeRef[];
  repro?: Repro;
}

export interface Check<E> {
  readonly id: string;
  readonly clause: string;
  /** The level of what this check finds. */
  readonly level: Level;
  /** Spec area the check belongs to (its file). */
  readonly area: 'response' | 'auth' | 'listPets' | 'createPet' | 'getPet' | 'stateful' | 'rate-limit';
  /** One line: what the check verifies. */
  readonly title: string;
  run(evidence: E): Finding[];
}

export function refOf(ex: Exchange): ExchangeRef {
  return {
    seq: ex.seq,
    method: ex.request.method,
    path: ex.request.path,
    status: ex.response?.status ?? null,
    error: ex.error ? `${ex.error.code}: ${ex.error.message}` : null,
    curl: toCurl(ex.request),
    request: {
      method: ex.request.method,
      path: ex.request.path,
      headers: ex.request.headers,
      bodyBase64: ex.request.body === null ? null : Buffer.from(ex.request.body).toString('base64'),
    },
  };
}

/** Builds a finding of `check` about the given exchanges. */
export function finding(
  check: Pick<Check<unknown>, 'id' | 'clause' | 'level'>,
  exchanges: Exchange | readonly Exchange[],
  message: string,
  detail: { expected?: string; actual?: string; operation?: OperationId | null } = {},
): Finding {
  const list = Array.isArray(exchanges) ? (exchanges as readonly Exchange[]) : [exchanges as Exchange];
  return {
    checkId: check.id,
    clause: check.clause,
    level: check.level,
    operation: detail.operation !== undefined ? detail.operation : (list[0]?.operation ?? null),
    message,
    ...(detail.expected !== undefined ? { expected: detail.expected } : {}),
    ...(detail.actual !== undefined ? { actual: detail.actual } : {}),
    exchanges: list.map(refOf),
  };
}

export function defineCheck<E>(check: Check<E>): Check<E> {
  return Object.freeze(check);
}

/** Short, safe rendering of a value for messages (bodies can be huge or binary). */
export function show(value: unknown, max = 200): string {
  let s: string;
  try {
    s =
      typeof value === 'string'
        ? JSON.stringify(value)
        : JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v?.isLosslessNumber ? v.value : v));
  } catch {
    s = String(value);
  }
  if (s === undefined) s = String(value);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}
