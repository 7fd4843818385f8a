// The preflight's answer is judged like every other exchange: at the moment it was answered, not when the run ends
// and its outcome is written (issue 28: a fixed window's first Reset failed in every run longer than that window).
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../http/redact.js';
import { preflightOutcome } from '../../runner/preflight-outcome.js';
import { exchange, FREE } from '../checks/fixtures.js';

const key = { plan: 'free' as const, key: new ApiKey('k-preflight-outcome', 'free'), limits: FREE };

describe('preflightOutcome', () => {
  // The service of the issue: no Date header, its window ending 3 s after it answered; the run went on for 10 minutes.
  const answeredAt = Date.now() - 600_000;
  const preflight = (reset: number) =>
    preflightOutcome(
      exchange({
        headers: { date: undefined, 'x-ratelimit-reset': String(reset) },
        startedAt: answeredAt - 12,
        durationMs: 12,
      }),
      key,
      1,
    );
  const ids = (o: ReturnType<typeof preflightOutcome>) => [...o.findings, ...o.meta.observations].map((f) => f.checkId);

  it('a Reset right when it was answered passes, however long ago that was', () => {
    expect(ids(preflight(Math.floor(answeredAt / 1000) + 3))).toEqual([]);
  });

  it('a Reset already in the past when it was answered is caught', () => {
    const o = preflight(Math.floor(answeredAt / 1000) - 30);
    expect(ids(o)).toEqual(['rate-limit-reset-epoch']);
    expect(o.findings[0]!.message).toMatch(/30 s in the past .*the local clock when it was answered/);
  });
});
