/**
 * Reading one response header whatever the target sent: never throws (a garbage header is something to report, not
 * a crash). Repeated headers arrive as arrays (see exchange.ts); identical repeats collapse, as proxies duplicate
 * headers. The one reader for the checks, the rate-limit headers and the pacing.
 */
import type { RecordedResponse } from './exchange.js';

export type HeaderRead =
  | { readonly kind: 'absent' }
  | { readonly kind: 'value'; readonly value: string }
  /** Repeated with values that differ: no single value can be judged. */
  | { readonly kind: 'conflict'; readonly values: readonly string[] };

/** The values of a response header, one per occurrence; [] when absent. */
export function headerValues(ex: { response: RecordedResponse | null }, name: string): string[] {
  try {
    const headers = ex.response?.headers as Record<string, unknown> | undefined;
    if (!headers || typeof headers !== 'object') return [];
    const v = headers[name.toLowerCase()];
    if (v === undefined || v === null) return [];
    return (Array.isArray(v) ? v : [v]).map((x) => String(x));
  } catch {
    return [];
  }
}

/** A header as one value (trimmed): identical repeats collapse, differing ones are a conflict. */
export function readHeader(ex: { response: RecordedResponse | null }, name: string): HeaderRead {
  // The common case, read on every exchange by several checks: one occurrence, as a string.
  let one: unknown;
  try {
    one = (ex.response?.headers as Record<string, unknown> | undefined)?.[name];
  } catch {
    one = undefined;
  }
  if (typeof one === 'string' && name === name.toLowerCase()) return { kind: 'value', value: one.trim() };
  const values = headerValues(ex, name).map((v) => v.trim());
  if (values.length === 0) return { kind: 'absent' };
  const distinct = [...new Set(values)];
  if (distinct.length === 1) return { kind: 'value', value: distinct[0]! };
  return { kind: 'conflict', values };
}

/** The header's one value, or null when it is absent or repeated with values that differ. */
export function singleHeader(ex: { response: RecordedResponse | null }, name: string): string | null {
  const h = readHeader(ex, name);
  return h.kind === 'value' ? h.value : null;
}
