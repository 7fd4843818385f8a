/**
 * Header parsing for checks. Every function takes whatever the target sent and returns data or null, never throws:
 * a garbage header is something to report, not a crash. Repeated headers arrive as arrays (see http/exchange.ts).
 */
import type { RecordedResponse } from '../http/exchange.js';

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

/** A header as one value: identical repeats collapse (proxies duplicate headers), differing ones are a conflict. */
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

/** The media type (type/subtype, lower-cased, parameters dropped) or null when the value is not one. */
export function mediaType(value: string | undefined | null): string | null {
  if (typeof value !== 'string') return null;
  // A target sends the same Content-Type again and again: the last one read is remembered.
  if (value === lastMediaType.value) return lastMediaType.essence;
  const essence = value.split(';', 1)[0]!.trim().toLowerCase();
  lastMediaType = {
    value,
    essence: /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(essence) ? essence : null,
  };
  return lastMediaType.essence;
}
let lastMediaType: { value: string | null; essence: string | null } = { value: null, essence: null };

/** A non-negative decimal integer header (digits only, no sign, no fraction), exact; null otherwise. */
export function parseIntegerHeader(value: string | undefined | null): bigint | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return /^\d{1,40}$/.test(v) ? BigInt(v) : null;
}

export { isRetryAfter, parseHttpDate } from '../http/retry-after.js';

/** The response's Date header as epoch ms, or null when absent or unparseable (Date.parse is lenient on purpose). */
export function responseDate(ex: { response: RecordedResponse | null }): number | null {
  const h = readHeader(ex, 'date');
  if (h.kind !== 'value') return null;
  // A target's Date changes once a second: the last text parsed is nearly always the one asked for again.
  if (h.value !== lastDate.text) lastDate = { text: h.value, ms: Date.parse(h.value) };
  return Number.isFinite(lastDate.ms) ? lastDate.ms : null;
}
let lastDate = { text: '', ms: Number.NaN };

/** RFC 9745 Deprecation: a structured date `@<epoch seconds>`; returns epoch seconds or null. */
export function parseDeprecation(value: string | undefined | null): number | null {
  if (typeof value !== 'string') return null;
  const m = /^@(-?\d{1,15})$/.exec(value.trim());
  return m ? Number(m[1]) : null;
}

/** Whether a WWW-Authenticate value offers a Bearer challenge; scheme names are case-insensitive (RFC 9110 §11.1). */
export function hasBearerChallenge(value: string | undefined | null): boolean {
  if (typeof value !== 'string') return false;
  // Quoted strings may contain commas and words: blank them before looking for challenge starts.
  const unquoted = value.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return /(?:^|,)\s*bearer(?:\s|,|$)/i.test(unquoted);
}
