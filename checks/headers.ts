/**
 * Header parsing for checks. Every function takes whatever the target sent and returns data or null, never throws:
 * a garbage header is something to report, not a crash. Repeated headers arrive as arrays (see http/exchange.ts).
 */
import type { RecordedResponse } from '../http/exchange.js';
import { readHeader } from '../http/header-read.js';

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
