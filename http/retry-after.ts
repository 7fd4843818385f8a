/**
 * HTTP-dates and Retry-After (RFC 9110 §5.6.7, §10.2.3), in one place for the pacing policy and the checks.
 * Retry-After is whole delta-seconds or an HTTP-date; anything else (e.g. "0.25") is invalid.
 */
import { Recent } from './recent.js';

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

// The same dates come again and again (a Sunset header on every answer; a 429's Retry-After read with its Date):
// the last two read are remembered.
const lastDate = new Recent<string, number | null>(2);

/**
 * An HTTP-date (RFC 9110 §5.6.7) as epoch ms, or null. IMF-fixdate is the form senders must use; recipients must also
 * accept the obsolete RFC 850 and asctime forms, so this does too. Names are matched case-insensitively.
 */
export function parseHttpDate(value: string | undefined | null): number | null {
  return typeof value === 'string' ? lastDate.of(value, readHttpDate) : null;
}

function readHttpDate(value: string): number | null {
  const v = value.trim();
  let m = /^([a-z]{3}), (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/i.exec(v);
  if (m && DAYS.includes(m[1]!.toLowerCase()))
    return utc(Number(m[4]), m[3]!, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  m = /^([a-z]+), (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/i.exec(v);
  if (m && LONG_DAYS.includes(m[1]!.toLowerCase())) {
    // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
    const yy = Number(m[4]);
    const year = 2000 + yy > new Date().getUTCFullYear() + 50 ? 1900 + yy : 2000 + yy;
    return utc(year, m[3]!, Number(m[2]), Number(m[5]), Number(m[6]), Number(m[7]));
  }
  m = /^([a-z]{3}) ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i.exec(v);
  if (m && DAYS.includes(m[1]!.toLowerCase()))
    return utc(Number(m[7]), m[2]!, Number(m[3]!.trim()), Number(m[4]), Number(m[5]), Number(m[6]));
  return null;
}

/** Whether a value is one of Retry-After's two forms (RFC 9110 §10.2.3): delta-seconds or an HTTP-date. */
export function isRetryAfter(value: string | undefined | null): boolean {
  if (typeof value !== 'string') return false;
  return /^\d+$/.test(value.trim()) || parseHttpDate(value) !== null;
}

export type RetryAfter =
  | { readonly kind: 'seconds'; readonly ms: number }
  | { readonly kind: 'date'; readonly ms: number };

/** Retry-After as a wait in ms from `now`; an HTTP-date is measured from the response's Date header when it has one. */
export function parseRetryAfter(value: string | undefined, now: number, dateHeader?: string): RetryAfter | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return { kind: 'seconds', ms: Number(v) * 1000 };
  const at = parseHttpDate(v);
  if (at === null) return null;
  const origin = parseHttpDate(dateHeader) ?? now;
  return { kind: 'date', ms: Math.max(0, at - origin) };
}
