/**
 * Small facts about an exchange that many checks read: the operation's label, what it documents, the status when
 * there is one. Each tolerates a malformed exchange (no response, odd JSON) so checks stay simple and never throw.
 */
import { contract, type OperationId, type OperationSpec } from '../spec/contract.js';
import type { Exchange } from '../http/exchange.js';
import { exactInteger, isLosslessNumber } from '../http/lossless.js';

export function opSpec(id: OperationId | null | undefined): OperationSpec | null {
  return id ? (contract.operations.get(id) ?? null) : null;
}

/** `POST /pets` from the contract, or the request line's method and path (no query) for unknown operations. */
export function opLabel(ex: Exchange): string {
  const op = opSpec(ex.operation);
  if (op) return `${op.method} ${op.path}`;
  const path = String(ex.request?.path ?? '').split('?', 1)[0];
  return `${ex.request?.method ?? '?'} ${path}`;
}

/** The statuses the operation documents, ascending (429 included: the contract documents it everywhere). */
export function documentedStatuses(id: OperationId | null | undefined): readonly number[] {
  const op = opSpec(id);
  return op ? [...op.responses.keys()].sort((a, b) => a - b) : [];
}

/** The HTTP status, or null when the exchange ended in a transport error. */
export function statusOf(ex: Exchange | null | undefined): number | null {
  if (!ex || ex.error || !ex.response) return null;
  const s = ex.response.status;
  return typeof s === 'number' && Number.isFinite(s) ? s : null;
}

/** 429 is documented everywhere and makes any behavioural expectation inconclusive. */
export function isRateLimited(ex: Exchange | null | undefined): boolean {
  return statusOf(ex) === 429;
}

/** An HTTP answer other than 429: what a check can judge (a 429 answers nothing of the request it refused). */
export function isAnswered(ex: Exchange | null | undefined): boolean {
  const status = statusOf(ex);
  return status !== null && status !== 429;
}

/** The lossless JSON body, or undefined when there is none or it did not parse. */
export function jsonOf(ex: Exchange | null | undefined): unknown {
  if (!ex || ex.error || !ex.response) return undefined;
  return ex.response.json;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);
}

/** The exact integer of a JSON number or of a digits string the harness recorded; null otherwise. */
export function exactId(v: unknown): bigint | null {
  if (typeof v === 'string') return /^-?\d{1,400}$/.test(v.trim()) ? BigInt(v.trim()) : null;
  try {
    return exactInteger(v);
  } catch {
    return null;
  }
}

/** The query of a request's path, or null when it cannot be read. */
export function queryOf(ex: Exchange): URLSearchParams | null {
  try {
    const path = String(ex.request.path);
    const i = path.indexOf('?');
    return new URLSearchParams(i < 0 ? '' : path.slice(i + 1));
  } catch {
    return null;
  }
}
