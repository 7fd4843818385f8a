/**
 * Header parsing for checks. Every function takes whatever the target sent and returns data or null, never throws:
 * a garbage header is something to report, not a crash. Repeated headers arrive as arrays (see http/exchange.ts).
 */
import type { RecordedResponse } from '../http/exchange.js';
import { readHeader } from '../http/header-read.js';
import { Recent } from '../http/recent.js';

/** The media type (type/subtype, lower-cased, parameters dropped) or null when the value is not one. */
export function mediaType(value: string | undefined | null): string | null {
  // A target sends the same Content-Type again and again: the last one read is remembered.
  return typeof value === 'string' ? lastMediaType.of(value, essenceOf) : null;
}
const lastMediaType = new Recent<string, string | null>(1);

function essenceOf(value: string): string | null {
  const essence = value.split(';', 1)[0]!.trim().toLowerCase();
  return /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(essence) ? essence : null;
}

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
  const ms = lastDate.of(h.value, Date.parse);
  return Number.isFinite(ms) ? ms : null;
}
const lastDate = new Recent<string, number>(1);

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
