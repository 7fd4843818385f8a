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
  const values = headerValues(ex, name).map((v) => v.trim());
  if (values.length === 0) return { kind: 'absent' };
  const distinct = [...new Set(values)];
  if (distinct.length === 1) return { kind: 'value', value: distinct[0]! };
  return { kind: 'conflict', values };
}

/** The media type (type/subtype, lower-cased, parameters dropped) or null when the value is not one. */
export function mediaType(value: string | undefined | null): string | null {
  if (typeof value !== 'string') return null;
  const essence = value.split(';', 1)[0]!.trim().toLowerCase();
  return /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(essence) ? essence : null;
}

/** A non-negative decimal integer header (digits only, no sign, no fraction), exact; null otherwise. */
export function parseIntegerHeader(value: string | undefined | null): bigint | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return /^\d{1,40}$/.test(v) ? BigInt(v) : null;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const LONG_DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | null {
  const mi = MONTHS.indexOf(month.toLowerCase());
  if (mi < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return null;
  const t = Date.UTC(year, mi, day, h, m, Math.min(s, 59));
  // Date.UTC rolls 31 Feb over to March: reject dates that do not exist.
  return new Date(t).getUTCDate() === day ? t : null;
}

/**
 * An HTTP-date (RFC 9110 §5.6.7) as epoch ms, or null. IMF-fixdate is the form senders must use; recipients must also
 * accept the obsolete RFC 850 and asctime forms, so this does too. Names are matched case-insensitively.
 */
export function parseHttpDate(value: string | undefined | null): number | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  let m = /^([a-z]{3}), (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i.exec(v);
  if (m && DAYS.includes(m[1]!.toLowerCase())) return utc(Number(m[4]), m[3]!, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  m = /^([a-z]+), (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i.exec(v);
  if (m && LONG_DAYS.includes(m[1]!.toLowerCase())) {
    // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
    const yy = Number(m[4]);
    const year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
    return utc(year, m[3]!, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  }
  m = /^([a-z]{3}) ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i.exec(v);
  if (m && DAYS.includes(m[1]!.toLowerCase())) return utc(Number(m[7]), m[2]!, Number(m[3]!.trim()), Number(m[4]), Number(m[5]), Number(m[6]));
  return null;
}

/** Whether a value is one of Retry-After's two forms (RFC 9110 §10.2.3): delta-seconds or an HTTP-date. */
export function isRetryAfter(value: string | undefined | null): boolean {
  if (typeof value !== 'string') return false;
  return /^\d+$/.test(value.trim()) || parseHttpDate(value) !== null;
}

/**
 * Retry-After as seconds to wait from `nowMs` (for a date form; pass the response's Date when known), or null when
 * it is neither form. A date in the past means no wait: 0.
 */
export function parseRetryAfter(value: string | undefined | null, nowMs: number): number | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const t = parseHttpDate(v);
  return t === null ? null : Math.max(0, Math.ceil((t - nowMs) / 1000));
}

/** The response's Date header as epoch ms, or null when absent or unparseable (Date.parse is lenient on purpose). */
export function responseDate(ex: { response: RecordedResponse | null }): number | null {
  const h = readHeader(ex, 'date');
  if (h.kind !== 'value') return null;
  const t = Date.parse(h.value);
  return Number.isFinite(t) ? t : null;
}

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
