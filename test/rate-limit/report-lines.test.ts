// The rate-limit results table: per key, what was proven and what could not be measured, and why.
import { expect, test } from 'vitest';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { rateLimitLines } from '../../reports/conformance-text.js';
import type { KeyRateLimitResult } from '../../runner/rate-limit-results.js';

test('each key shows its numbers, then one line per thing proven and per thing not measured', () => {
  const row: KeyRateLimitResult = {
    suite: 'rate-limit',
    plan: 'free',
    key: 'free#2',
    limit: 60,
    windowSeconds: 60,
    paced: { sent: 48, spanMs: 53_000, got429: false },
    burst: { fromRemaining: 11, accepted: 11, allowance: 0, first429AtRequest: 12 },
    retryAfterSeconds: 5,
    waitedMs: 6000,
    recovered: true,
    requests: 64,
    durationMs: 66_000,
    note: null,
    proven: ['paced 48 requests at 0.9 × 60 per 60 s without a 429'],
    unmeasured: ['isolation: no other key sent requests while it was observed at rest (it had the first turn)'],
  };
  const lines = rateLimitLines({ rateLimits: [row], findings: [] } as unknown as ConformanceReport);
  expect(lines[1]).toMatch(/^ {2}✓ free#2 limit 60\/60 s: paced 48 in 53\.0 s with no 429; burst from Remaining 11/);
  expect(lines.slice(2, 4)).toEqual([
    '      proven: paced 48 requests at 0.9 × 60 per 60 s without a 429',
    '      not measured: isolation: no other key sent requests while it was observed at rest (it had the first turn)',
  ]);
});

test('no ✓ for a key nothing measured: it says "not measured" and why, with the requests behind it', () => {
  const base = {
    suite: 'rate-limit' as const,
    windowSeconds: 60,
    paced: { sent: 0, spanMs: 0, got429: false },
    burst: null,
    retryAfterSeconds: null,
    waitedMs: 0,
    recovered: null,
    durationMs: 0,
    proven: [],
  };
  const rows: KeyRateLimitResult[] = [
    // The request budget ran out before the key's first request.
    {
      ...base,
      plan: 'free',
      key: 'free',
      limit: 60,
      requests: 0,
      note: 'left out: the run spent its request budget (--budget)',
      unmeasured: ['the rest of its phases: the run spent its request budget (--budget)'],
    },
    // A limit too large for a bounded burst.
    {
      ...base,
      plan: 'enterprise',
      key: 'enterprise',
      limit: 5000,
      requests: 0,
      note: 'not measured: limit too large for a bounded burst',
      unmeasured: ['limit too large for a bounded burst'],
    },
  ];
  const lines = rateLimitLines({ rateLimits: rows, findings: [] } as unknown as ConformanceReport);
  expect(lines.filter((l) => l.includes('✓'))).toEqual([]);
  expect(lines[1]).toBe(
    '  – free limit 60/60 s: not measured — left out: the run spent its request budget (--budget); 0 requests',
  );
  expect(lines).toContain(
    '  – enterprise limit 5000/60 s: not measured — limit too large for a bounded burst; 0 requests',
  );
});

test('a 429 without Retry-After reads as plain words, never "Retry-After - s"', () => {
  const row: KeyRateLimitResult = {
    suite: 'rate-limit',
    plan: 'free',
    key: 'free',
    limit: 60,
    windowSeconds: 60,
    paced: { sent: 48, spanMs: 53_000, got429: false },
    burst: { fromRemaining: 11, accepted: 11, allowance: 0, first429AtRequest: 12 },
    retryAfterSeconds: null,
    waitedMs: 6000,
    recovered: true,
    requests: 64,
    durationMs: 66_000,
    note: null,
    proven: [],
    unmeasured: [],
  };
  const lines = rateLimitLines({ rateLimits: [row], findings: [] } as unknown as ConformanceReport);
  expect(lines[1]).toMatch(/; no Retry-After, waited 6\.0 s, recovered true;/);
  expect(lines.join('\n')).not.toMatch(/Retry-After - s|Retry-After - /);
  const withIt = rateLimitLines({
    rateLimits: [{ ...row, retryAfterSeconds: 5 }],
    findings: [],
  } as unknown as ConformanceReport);
  expect(withIt[1]).toMatch(/; Retry-After 5 s, waited 6\.0 s/);
});
