/** The terminal report reads a finding's suite and key plan as data: never guessed from a check id or a message. */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../checks/check.js';
import { dailyQuota } from '../../checks/rate-limit.js';
import { ApiKey } from '../../http/redact.js';
import { buildConformanceReport } from '../../reports/conformance-report.js';
import { replayLine, renderTerminalSummary } from '../../reports/conformance-text.js';
import { RunContext } from '../../runner/context.js';
import type { SuiteMeta } from '../../suites/meta.js';
import { exchange, NOW_S } from '../checks/fixtures.js';

const LIMITS = { requestsPerMinute: 5, requestsPerDay: 8 };

/** Findings as a suite records them: through a run context that knows its suite. */
async function recorded(suite: string, record: (ctx: RunContext) => void): Promise<Finding[]> {
  const key = { plan: 'enterprise' as const, key: new ApiKey('k', 'enterprise'), limits: LIMITS };
  const ctx = new RunContext(
    { target: 'http://127.0.0.1:9/v1', keys: [key], key, seed: 1, runs: 1, strict: false },
    suite,
  );
  try {
    record(ctx);
    return [...ctx.log.all()];
  } finally {
    await ctx.close();
  }
}

function reportOf(suite: string, findings: Finding[], rateLimits: unknown[] = []) {
  const meta: SuiteMeta = {
    suite,
    stats: { listPets: { exchanges: 9, checksApplied: 9, cases: 1 } },
    occurrences: {},
    exchanges: 9,
    durationMs: 1,
    aborted: null,
    seed: 7,
    observations: [],
    rateLimits,
  };
  return buildConformanceReport({
    tool: { name: 'petstore-conformance', version: '0' },
    target: { url: 'http://127.0.0.1:9/v1', embedded: false },
    seed: 7,
    runs: 3,
    strict: false,
    startedAt: new Date(0),
    durationMs: 1,
    outcomes: [{ meta, findings, failedTests: 1 }],
    errors: [],
    notes: [],
  });
}

describe('findings carry their suite and key plan', () => {
  it("the replay line of rl-daily-quota names the quota suite, and the quota row is marked failed for the key's plan", async () => {
    const findings = await recorded('quota', (ctx) =>
      ctx.judge(dailyQuota, {
        plan: 'enterprise',
        limits: LIMITS,
        sent: 20,
        accepted: 20,
        rejection: null,
        known: null,
        acceptedAfterKnown: 0,
        minuteReset: NOW_S + 1,
        elapsedMs: 2000,
        stopped: 'requests',
      }),
    );
    expect(findings.map((f) => [f.checkId, f.level, f.suite, f.keyPlan])).toEqual([
      ['rl-daily-quota', 'violation', 'quota', 'enterprise'],
    ]);
    const report = reportOf('quota', findings, [
      { suite: 'quota', plan: 'enterprise', requestsPerDay: 8, accepted: 20, sent: 20 },
    ]);
    expect(replayLine(report, findings[0]!)).toBe(
      'petstore-conformance run --target http://127.0.0.1:9/v1 --seed 7 --runs 3 --suite quota',
    );
    const text = renderTerminalSummary(report);
    expect(text).toContain('--suite quota');
    expect(text).toContain('✗ enterprise daily quota 8');
  });

  it('a finding of a response check names the suite whose request provoked it, not one guessed from its operation', async () => {
    const [f] = await recorded('auth', (ctx) => ctx.check(exchange({ operation: 'getPet', status: 500 })));
    expect(f).toMatchObject({ checkId: 'no-5xx', suite: 'auth', operation: 'getPet' });
    expect(replayLine(reportOf('auth', [f!]), f!)).toMatch(/--suite auth$/);
  });
});
