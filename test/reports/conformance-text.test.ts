/** The terminal report reads a finding's suite and key plan as data: never guessed from a check id or a message. */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../checks/check.js';
import { dailyQuota } from '../../checks/rate-limit.js';
import { ApiKey } from '../../http/redact.js';
import { buildConformanceReport } from '../../reports/conformance-report.js';
import { allChecks, canFail } from '../../checks/registry.js';
import { renderMarkdown, renderTerminalSummary, replayLine } from '../../reports/conformance-text.js';
import { renderJunit } from '../../reports/junit.js';
import type { RunContext } from '../../runner/context.js';
import { Run } from '../../runner/run.js';
import { invalidCase } from '../../runner/scenarios/create-pet.js';
import { queryCase } from '../../runner/scenarios/list-pets.js';
import type { ListQuery } from '../../generators/index.js';
import type { SuiteMeta } from '../../runner/outcome.js';
import type { EvidenceCount } from '../../runner/findings.js';
import type { RateLimitResult } from '../../runner/rate-limit-results.js';
import { exchange, NOW_S } from '../checks/fixtures.js';

const LIMITS = { requestsPerMinute: 5, requestsPerDay: 8 };

/** Findings as a suite records them: through a run context that knows its suite. */
async function recorded(suite: string, record: (ctx: RunContext) => void): Promise<Finding[]> {
  return (await judged(suite, record)).findings;
}

/** The findings, and what the checks applied to and passed (the table of evidence's counts), as a suite records them. */
async function judged(
  suite: string,
  record: (ctx: RunContext) => void,
): Promise<{ findings: Finding[]; evidence: EvidenceCount[] }> {
  const key = { plan: 'enterprise' as const, key: new ApiKey('k', 'enterprise'), limits: LIMITS };
  const ctx = new Run({ target: 'http://127.0.0.1:9/v1', keys: [key], key, seed: 1, runs: 1, strict: false }).context(
    suite,
  );
  try {
    record(ctx);
    return { findings: [...ctx.log.all()], evidence: ctx.log.evidence() };
  } finally {
    await ctx.close();
  }
}

function reportOf(
  suite: string,
  findings: Finding[],
  rateLimits: RateLimitResult[] = [],
  evidence: EvidenceCount[] = [],
) {
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
    evidence,
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
      {
        suite: 'quota',
        plan: 'enterprise',
        requestsPerDay: 8,
        requestsPerMinute: 5,
        windowSeconds: 60,
        accepted: 20,
        sent: 20,
        dailyRetryAfterSeconds: null,
        dailyReset: null,
        waitedMs: 0,
        durationMs: 1,
        stopped: null,
      },
    ]);
    // Without the invocation recorded, the README's way of starting the tool; with it, exactly that.
    expect(replayLine(report, findings[0]!)).toBe(
      'npx petstore-conformance run --target http://127.0.0.1:9/v1 --seed 7 --runs 3 --suite quota',
    );
    const installed = { ...report, tool: { ...report.tool, invocation: 'node bin/petstore-conformance.js' } };
    expect(replayLine(installed, findings[0]!)).toBe(
      'node bin/petstore-conformance.js run --target http://127.0.0.1:9/v1 --seed 7 --runs 3 --suite quota',
    );
    const text = renderTerminalSummary(report);
    expect(text).toContain('--suite quota');
    expect(text).toContain('✗ enterprise daily quota 8');
  });

  it('a finding of a response check names the suite whose request provoked it, not one guessed from its operation', async () => {
    const [f] = await recorded('auth', (ctx) => ctx.check(exchange({ operation: 'getPet', status: 500 })));
    expect(f).toMatchObject({ checkId: 'no-5xx', suite: 'auth', operation: 'getPet' });
    expect(replayLine(reportOf('auth', [f!]), f!)).toMatch(/--suite auth$/);
    const report = reportOf('auth', [f!]);
    expect(renderTerminalSummary(report)).toMatch(/^ {4}reproduce: curl /m);
    // Against the embedded server, which stopped with the run, the curl line is not offered as a way to reproduce.
    const embedded = renderTerminalSummary({ ...report, target: { ...report.target, embedded: true } });
    expect(embedded).not.toMatch(/reproduce: curl/);
    expect(embedded).toMatch(
      /^ {4}request: curl .*\(the embedded server stopped with this run: the replay line reruns it\)$/m,
    );
  });
});

describe('defects', () => {
  const f = (over: Partial<Finding> & Pick<Finding, 'checkId'>, seq: number): Finding => ({
    clause: '7-no-5xx',
    level: 'violation',
    operation: 'createPet',
    suite: 'createPet',
    keyPlan: 'free',
    caseClass: null,
    case: null,
    causes: [],
    message: `received something\nthe spec documents something else`,
    exchanges: [{ ...exchangeRef, seq }],
    ...over,
  });
  const exchangeRef = {
    seq: 0,
    method: 'POST',
    path: '/pets',
    status: 500,
    error: null,
    curl: 'curl -X POST …',
    request: { method: 'POST', path: '/pets', headers: {}, bodyBase64: null },
  };

  it('groups findings by check, operation and case class (for checks whose case tells defects apart)', () => {
    const findings = [
      f({ checkId: 'no-5xx', caseClass: 'invalid body: name null' }, 1),
      f({ checkId: 'no-5xx', caseClass: 'invalid body: name null' }, 2),
      f({ checkId: 'no-5xx', caseClass: 'invalid body: categoryId of type string' }, 3),
      // A header missing is one defect of the operation whatever was sent.
      f({ checkId: 'www-authenticate', level: 'warning', clause: '5-www-authenticate', caseClass: 'auth: missing' }, 4),
      f({ checkId: 'www-authenticate', level: 'warning', clause: '5-www-authenticate', caseClass: 'auth: bad key' }, 5),
    ];
    const report = reportOf('createPet', findings);
    expect(report.defects.map((d) => [d.signature, d.level, d.occurrences, d.findings])).toEqual([
      ['no-5xx · createPet · invalid body: name null', 'violation', 2, [0, 1]],
      ['no-5xx · createPet · invalid body: categoryId of type string', 'violation', 1, [2]],
      ['www-authenticate · createPet', 'warning', 2, [3, 4]],
    ]);
    const text = renderTerminalSummary(report);
    expect(text).toContain('Violations: 2 defects (2 signatures) in 3 exchanges');
    expect(text.split('\n').filter((l) => /^[✗!] /.test(l))).toHaveLength(3);
    expect(text).toContain(
      '✗ createPet › no-5xx [clause 7-no-5xx] · case: invalid body: name null · status 500 · seen 2 times',
    );
  });

  it('the shrunk counterexample is the example; an echo is folded into the block of its root, still listed', () => {
    const shrunk = f({ checkId: 'no-5xx', caseClass: 'invalid body: name null' }, 2);
    shrunk.repro = { seed: 1, path: '3:0', counterexample: '{"name":null}', shrinks: 2 };
    const findings = [
      f({ checkId: 'no-5xx', caseClass: 'invalid body: name null' }, 1),
      shrunk,
      f({ checkId: 'create-201', clause: '4.2-create-201', caseClass: 'invalid body: name null' }, 1),
    ];
    const report = reportOf('createPet', findings);
    expect(report.defects).toHaveLength(1);
    const [root] = report.defects;
    expect(root?.findings[0]).toBe(1);
    expect(root?.alsoSeenAs).toEqual([
      expect.objectContaining({ checkId: 'create-201', signature: 'create-201 · createPet · invalid body: name null' }),
    ]);
    const text = renderTerminalSummary(report);
    expect(text).toContain('smallest failing input: {"name":null} (shrunk 2×)');
    expect(text).toContain(
      'also seen as: create-201 · createPet · invalid body: name null — the 5xx explains whatever else is wrong with it',
    );
    expect(text).toContain('1 defect (2 signatures) in 2 exchanges');
    const md = renderMarkdown(report);
    expect(md).toContain('| ✗ | `no-5xx` | createPet | invalid body: name null | 2 | 2 | received something |');
    expect(md.split('\n').length).toBeLessThan(40);
  });
});

describe('case classes', () => {
  const q = (kind: string): ListQuery => ({ raw: '', valid: false, kind });
  it('a broken query is classed by what is wrong with its value, not by the value', () => {
    expect(['limit 1.5', 'limit 99.5', 'limit -0.5'].map((k) => queryCase(q(k)).name)).toEqual([
      'query: limit a fraction',
      'query: limit a fraction',
      'query: limit a fraction',
    ]);
    expect(['limit 0', 'limit 101', 'limit -1'].map((k) => queryCase(q(k)).name)).toEqual(
      Array(3).fill('query: limit out of range'),
    );
    expect(['limit abc', 'limit  5', 'limit +5', 'limit 0x10'].map((k) => queryCase(q(k)).name)).toEqual(
      Array(4).fill('query: limit not a number'),
    );
    expect(['limit empty', 'repeated limit', 'unknown status'].map((k) => queryCase(q(k)).name)).toEqual([
      'query: limit empty',
      'query: repeated limit',
      'query: unknown status',
    ]);
    expect(queryCase({ raw: '?limit=5', limit: 5, valid: true, kind: 'valid' }).name).toBe('query: limit');
  });
  it('an invalid body is classed by its kind, values left out', () => {
    const inv = (reason: string) => ({ reason, body: null, marker: null, family: 'body-int64-edge' as const });
    expect(invalidCase(inv('categoryId 9223372036854775808')).name).toBe(
      invalidCase(inv('categoryId 9223372036854775809')).name,
    );
    expect(invalidCase(inv('unknown status "lost"')).name).toBe('invalid body: unknown status');
  });
});

describe('JUnit: one test case per defect', () => {
  const cases = (xml: string) => [...xml.matchAll(/<testcase classname="[^"]*" name="([^"]*)"/g)].map((m) => m[1]!);
  const silentChecks = allChecks.filter(canFail);

  it('a defect seen on many exchanges is one failing case; every check that reported nothing is a case of its own', async () => {
    const findings = await recorded('getPet', (ctx) => {
      for (let i = 0; i < 5; i++) ctx.check(exchange({ operation: 'getPet', status: 500 }));
      ctx.check(exchange({ operation: 'listPets', headers: { 'x-ratelimit-limit': undefined } }));
    });
    const report = reportOf('getPet', findings);
    const xml = renderJunit(report);
    const names = cases(xml);
    const signatures = report.defects.map((d) => d.signature);
    expect(signatures.length).toBeGreaterThanOrEqual(2);
    // Each signature once, and no other failing case.
    for (const s of signatures) expect(names.filter((n) => n.startsWith(`${s} [`))).toHaveLength(1);
    const failing = report.defects.filter((d) => d.level === 'violation').length;
    expect(xml).toContain(`failures="${failing}"`);
    expect((xml.match(/<failure /g) ?? []).length).toBe(failing);
    const reported = new Set(report.defects.map((d) => d.checkId));
    expect(names.length).toBe(signatures.length + silentChecks.filter((c) => !reported.has(c.id)).length);
    expect(xml).toMatch(/no-5xx · getPet/);
  });

  it('a clean run is one case per check: passing where it applied and passed, skipped saying why where it judged nothing', async () => {
    const { findings, evidence } = await judged('listPets', (ctx) =>
      ctx.check(exchange({ operation: 'getPet', status: 404 })),
    );
    const xml = renderJunit(reportOf('listPets', findings, [], evidence));
    expect(cases(xml)).toHaveLength(silentChecks.length);
    expect(xml).toContain('failures="0"');
    // The 404 was judged by status-documented, and passed; no 429 came, so nothing about 429 answers passed.
    expect(xml).toMatch(/<testcase classname="petstore-conformance.checks" name="status-documented \[[^\]]+\]"\/>/);
    for (const id of ['retry-after-valid', 'error-body-429-json', 'error-body-429'])
      expect(xml).toMatch(
        new RegExp(`name="${id} \\[[^\\]]+\\]">\\n\\s+<skipped message="not exercised: it applies to 429 answers`),
      );
    expect(xml).toMatch(
      /name="www-authenticate \[[^\]]+\]">\n\s+<skipped message="not exercised: it applies to 401 answers/,
    );
    // Without the counts, a report proves nothing: every check is skipped, none passes.
    const bare = renderJunit(reportOf('listPets', findings));
    expect(bare).not.toMatch(/name="status-documented \[[^\]]+\]"\/>/);
  });

  it('escapes what the target sent and drops what XML cannot carry', async () => {
    const findings = await recorded('getPet', (ctx) =>
      ctx.check(exchange({ operation: 'getPet', status: 404, body: '<b>&"\u0001</b>' })),
    );
    const xml = renderJunit(reportOf('getPet', findings));
    expect(xml).not.toMatch(/[\u0000-\u0008]/);
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
    // What the target sent reaches the defect's block through the parser's message: escaped, never raw markup.
    expect(xml).toContain("got '&lt;' at position 0");
    const text = xml.replace(/<[^<>]*>/g, '');
    expect(text).not.toMatch(/[<>]/);
  });
});
