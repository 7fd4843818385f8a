/**
 * Retry-After (RFC 9110 §10.2.3): whole delta-seconds, or an HTTP-date. Anything else (e.g. "0.25") is invalid.
 * Returns the wait in milliseconds, or null when the value is not one of the two forms.
 */
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
// Obsolete forms a recipient must still accept (RFC 9110 §5.6.7): RFC 850 and asctime.
const RFC850 = /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

export function isHttpDate(value: string): boolean {
  const v = value.trim();
  return (IMF_FIXDATE.test(v) || RFC850.test(v) || ASCTIME.test(v)) && !Number.isNaN(Date.parse(v.replace(/-/g, ' ')));
}

export type RetryAfter = { readonly kind: 'seconds'; readonly ms: number } | { readonly kind: 'date'; readonly ms: number };

/** Parses Retry-After relative to `now` (epoch ms); `dateHeader` (the response's Date) is the origin for HTTP-dates. */
export function parseRetryAfter(value: string | undefined, now: number, dateHeader?: string): RetryAfter | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return { kind: 'seconds', ms: Number(v) * 1000 };
  if (isHttpDate(v)) {
    const at = Date.parse(v.replace(/-/g, ' '));
    const origin = dateHeader && !Number.isNaN(Date.parse(dateHeader)) ? Date.parse(dateHeader) : now;
    return { kind: 'date', ms: Math.max(0, at - origin) };
  }
  return null;
}
