/**
 * Hostile targets: for each way a target can misbehave on the wire, a suite runs in-process and must end (a hang fails
 * at vitest's test timeout) with no crash and no unhandled rejection (vitest fails on those), with a finding that
 * names the problem. The wall time of each case is measured and printed as a table at the end, never asserted: how
 * fast a case ends depends on the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuiteName } from '../../config/config.js';
import { preflight } from '../../cli/preflight.js';
import { keyVariable, loadConfig, type Env } from '../../config/config.js';
import { HarnessError } from '../../errors/catalogue.js';
import type { Finding } from '../../checks/check.js';
import { planKeys, startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { RunSettings } from '../../runner/context.js';
import { runSuite } from '../../runner/run.js';
import { closedPort, runAgainst, tempEnvFile } from '../cli/support.js';
import { startHostileServer, startRecorder, type HostileMode, type HostileOptions } from './hostile-server.js';
import { DEEP_LEVELS, LARGE_BODY_BYTES } from '../../generators/robustness.js';
import { robustnessCoverage } from '../../runner/scenarios/robustness.js';

type ClientLimits = Required<
  Pick<RunSettings, 'connectTimeoutMs' | 'headersTimeoutMs' | 'bodyTimeoutMs' | 'maxBodyBytes'>
>;

/**
 * Client limits where no timeout is the point: far beyond any loopback answer, however busy the machine, so the only
 * failures are the ones the target makes.
 */
const PATIENT: ClientLimits = {
  connectTimeoutMs: 30_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  maxBodyBytes: 1024 * 1024,
};
/**
 * Client limits for the targets that stall or slow down: short, so each stalled request costs a second. A sane answer
 * slower than this on a busy machine is a timeout too, so those cases assert what the stalls cause, not exact counts.
 */
const SHORT: ClientLimits = { ...PATIENT, connectTimeoutMs: 1_000, headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000 };
const TIMEOUTS: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const timings: { mode: string; ms: number; exchanges: number; handled: boolean; finding: string }[] = [];
let upstream: ReferenceServer;

beforeAll(async () => {
  upstream = await startReferenceServer();
});
afterAll(async () => {
  await upstream?.close();
  const rows = timings.map(
    (t) =>
      `${t.mode.padEnd(16)} ${String(Math.round(t.ms)).padStart(6)} ms ${String(t.exchanges).padStart(5)} exchanges  ${t.handled ? 'handled' : 'NOT HANDLED'}  ${t.finding}`,
  );
  const handled = timings.filter((t) => t.handled).length;
  console.log(`hostile matrix: ${handled}/${timings.length} cases handled\n${rows.join('\n')}`);
});

function settings(target: string, limits: ClientLimits, seed = 11): RunSettings {
  const keys = planKeys(upstream.keys);
  return {
    target,
    keys,
    key: keys.find((k) => k.plan === 'enterprise')!,
    seed,
    runs: 1,
    strict: false,
    shrinkBudget: 2,
    ...limits,
  };
}

interface Outcome {
  findings: readonly Finding[];
  exchanges: number;
  errors: string[];
  /** Each exchange in the order sent: its transport error code, or null when an answer came. */
  sequence: (string | null)[];
}

/** Runs `suite` against `target`, timing it into the table under `mode`. */
async function timed(
  mode: string,
  suite: SuiteName,
  target: string,
  expectCheck: string,
  extra?: (o: Outcome) => void,
  limits: ClientLimits = PATIENT,
): Promise<Outcome> {
  const t0 = performance.now();
  let outcome: Outcome | undefined;
  let handled = false;
  try {
    const errors: string[] = [];
    const sequence: (string | null)[] = [];
    const r = await runSuite(suite, {
      ...settings(target, limits),
      exchangeSink: {
        push: (ex) => {
          if (ex.error) errors.push(ex.error.code);
          sequence.push(ex.error?.code ?? null);
        },
      },
    });
    outcome = {
      findings: r.findings,
      exchanges: r.exchanges,
      errors,
      sequence,
    };
    const named = r.findings.filter((f) => f.checkId === expectCheck && f.level === 'violation');
    expect(
      named.length,
      `a ${expectCheck} violation; got ${[...new Set(r.findings.map((f) => f.checkId))].join(', ')}`,
    ).toBeGreaterThan(0);
    extra?.(outcome);
    handled = true;
    return outcome;
  } finally {
    const first = outcome?.findings.find((f) => f.checkId === expectCheck);
    timings.push({
      mode,
      ms: performance.now() - t0,
      exchanges: outcome?.exchanges ?? 0,
      handled,
      finding: first ? `${first.checkId}: ${first.message.split('\n')[0]!.slice(0, 90)}` : '(none)',
    });
  }
}

async function withHostile(
  o: Omit<HostileOptions, 'upstream'>,
  fn: (url: string, h: Awaited<ReturnType<typeof startHostileServer>>) => Promise<void>,
): Promise<void> {
  const h = await startHostileServer({ ...o, upstream: upstream.url });
  try {
    await fn(h.url, h);
  } finally {
    await h.close();
  }
}

const codes = (o: Outcome) => new Set(o.errors);

describe('hostile targets', () => {
  it('refuse: a closed port gives transport-ok findings, and `run` exits 3 naming the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const o = await timed('refuse', 'getPet', url, 'transport-ok');
    expect(codes(o)).toEqual(new Set(['ECONNREFUSED']));
    const { code, stderr } = await runAgainst(url, tempEnvFile('psc-hostile-', upstream.keys));
    expect(code).toBe(3);
    expect(stderr).toContain(`target unreachable: ${url} (ECONNREFUSED`);
  });

  const cases: [HostileMode, SuiteName, string, (o: Outcome) => void][] = [
    ['reset', 'getPet', 'transport-ok', (o) => expect(codes(o)).toContain('ECONNRESET')],
    ['invalid-json', 'getPet', 'json-parses', (o) => expect(o.errors).toEqual([])],
    ['length-over', 'getPet', 'transport-ok', (o) => expect(o.errors.length).toBeGreaterThan(0)],
    ['length-under', 'getPet', 'json-parses', () => {}],
    ['chunked-garbage', 'getPet', 'transport-ok', (o) => expect(codes(o)).toEqual(new Set(['HTTPParserError']))],
  ];
  it.each(cases)('%s', async (mode, suite, check, extra) => {
    await withHostile({ mode }, async (url) => {
      await timed(mode, suite, url, check, extra);
    });
  });

  // Every stalled request costs a full timeout: so the suite meets a target stalling its first two requests, and
  // preflight meets one that stalls every request.
  it.each([
    ['stall-headers', 'UND_ERR_HEADERS_TIMEOUT'],
    ['stall-body', 'UND_ERR_BODY_TIMEOUT'],
  ] as const)(
    '%s: stalled requests end in %s findings; a target stalling from the start blocks the run (exit 3)',
    async (mode, code) => {
      await withHostile({ mode, stallFirst: 2 }, async (url) => {
        await timed(
          mode,
          'getPet',
          url,
          'transport-ok',
          (o) => {
            // Both stalled requests ended in their timeout; nothing but a timeout went wrong (a sane answer slower
            // than the limit on a busy machine is one too); the suite went on and got answers after the stalls.
            expect(o.errors.filter((c) => c === code).length, o.errors.join(', ')).toBeGreaterThanOrEqual(2);
            expect(o.errors.filter((c) => !TIMEOUTS.has(c))).toEqual([]);
            expect(o.sequence.slice(o.sequence.indexOf(code) + 1)).toContain(null);
          },
          SHORT,
        );
      });
      await withHostile({ mode }, async (url) => {
        const t0 = performance.now();
        const pro = upstream.keys.find((k) => k.plan === 'pro')!;
        const config = loadConfig({ target: url }, { [keyVariable('pro')]: pro.key } as Env);
        const err = await preflight(config, config.keys[0]!, ['getPet'], SHORT).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(HarnessError);
        expect((err as HarnessError).exitCode).toBe(3);
        expect((err as HarnessError).message).toContain(`target stalled: ${url}`);
        expect((err as HarnessError).message).toContain(code);
        timings.push({
          mode: `${mode} (preflight)`,
          ms: performance.now() - t0,
          exchanges: 1,
          handled: true,
          finding: `exit 3: ${(err as HarnessError).message.slice(0, 90)}`,
        });
      });
    },
  );

  it('huge-body: a 100 MB body is read up to maxBodyBytes only, and the server stops streaming', async () => {
    await withHostile({ mode: 'huge-body' }, async (url, h) => {
      const o = await timed('huge-body', 'getPet', url, 'json-parses');
      const capped = o.findings.find((f) => f.checkId === 'json-parses')!;
      expect(capped.message).toMatch(/read capped/);
      // Each response stops at the cap plus what sits in socket buffers; nowhere near 100 MB each.
      expect(h.hugeBytesWritten() / Math.max(1, h.requests())).toBeLessThan(16 * 1024 * 1024);
    });
  });

  it('redirect: a 307 to another host is a finding, and the key never reaches that host', async () => {
    const other = await startRecorder('127.0.0.2');
    try {
      await withHostile({ mode: 'redirect', redirectTo: other.url }, async (url) => {
        await timed('redirect', 'getPet', url, 'status-documented');
      });
      for (const a of other.arrivals) expect(a.headers.authorization).toBeUndefined();
      expect(other.arrivals).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('close-after-n: a target that drops every connection after N requests gives transport-ok findings', async () => {
    await withHostile({ mode: 'close-after-n', n: 12 }, async (url) => {
      await timed('close-after-n', 'getPet', url, 'transport-ok', (o) => {
        expect(o.exchanges - o.errors.length).toBeGreaterThanOrEqual(12);
        expect(o.errors.length).toBeGreaterThan(0);
      });
    });
  });

  it('close-on-deep: a target whose parser dies on deep nesting (the connection closed) gives transport-ok findings, and the catalogue goes on', async () => {
    await withHostile({ mode: 'close-on-deep' }, async (url) => {
      await timed('close-on-deep', 'robustness', url, 'transport-ok', (o) => {
        const dropped = o.findings.filter((f) => f.checkId === 'transport-ok');
        // Both deep bodies (in an unknown member, and as the whole body), each its own defect, and nothing else.
        expect(dropped.map((f) => f.caseClass).sort()).toEqual([
          `robustness: nesting ${DEEP_LEVELS} deep as the whole body`,
          `robustness: nesting ${DEEP_LEVELS} deep in an unknown member`,
        ]);
        // Every case of the catalogue was still sent.
        expect(o.exchanges).toBe(robustnessCoverage());
      });
    });
  });

  it('stall-huge-request: a target that never reads nor answers a huge body gives a transport-ok finding, and the catalogue goes on', async () => {
    await withHostile({ mode: 'stall-huge-request' }, async (url) => {
      await timed('stall-huge-request', 'robustness', url, 'transport-ok', (o) => {
        const stalled = o.findings.filter((f) => f.checkId === 'transport-ok');
        expect(stalled.map((f) => f.caseClass)).toEqual([`robustness: a body of ${LARGE_BODY_BYTES / 1024 / 1024} MB`]);
        expect(o.exchanges).toBe(robustnessCoverage());
      });
    });
  });

  it('slower: a target slowing down progressively ends in header timeouts, not a hang', async () => {
    await withHostile({ mode: 'slower', stepMs: 4 }, async (url) => {
      await timed(
        'slower',
        'getPet',
        url,
        'transport-ok',
        (o) => {
          // Answers slow down (8 ms, 16 ms, ... doubling) until one outlasts the limit and times out; never all of
          // them: the early answers, and those after the target recovered, came through.
          expect(codes(o)).toEqual(new Set(['UND_ERR_HEADERS_TIMEOUT']));
          const first = o.sequence.indexOf('UND_ERR_HEADERS_TIMEOUT');
          expect(first).toBeGreaterThan(0);
          expect(o.sequence.slice(0, first)).toContain(null);
          expect(o.sequence.slice(first + 1)).toContain(null);
        },
        SHORT,
      );
    });
  });
});
