/**
 * Hostile targets: for each way a target can misbehave on the wire, a suite runs in-process with short client limits
 * and must end — no crash, no unhandled rejection (vitest fails on those), within a bound — with a finding that names
 * the problem. The wall time of each case is printed as a table at the end (the closing note).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuiteName } from '../../config/config.js';
import { preflight } from '../../cli/preflight.js';
import { keyVariable, loadConfig, type Env } from '../../config/config.js';
import { HarnessError } from '../../config/errors.js';
import type { Finding } from '../../checks/check.js';
import { planKeys, startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { RunSettings } from '../../runner/context.js';
import { runSuite } from '../../runner/suites.js';
import { closedPort, runAgainst, tempEnvFile } from '../cli/support.js';
import { startHostileServer, startRecorder, type HostileMode, type HostileOptions } from './hostile-server.js';
import { DEEP_LEVELS, LARGE_BODY_BYTES } from '../../generators/robustness.js';
import { robustnessCoverage } from '../../runner/scenarios/robustness.js';

/** Client limits for these tests: short, so a stalling target costs little; far above loopback latency. */
const LIMITS = {
  connectTimeoutMs: 1_000,
  headersTimeoutMs: 150,
  bodyTimeoutMs: 150,
  maxBodyBytes: 1024 * 1024,
} as const;
/** No case may come near this (each request is bounded by LIMITS, and a suite sends a few dozen). */
const CASE_BOUND_MS = 15_000;

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

function settings(target: string, seed = 11): RunSettings {
  const keys = planKeys(upstream.keys);
  return {
    target,
    keys,
    key: keys.find((k) => k.plan === 'enterprise')!,
    seed,
    runs: 1,
    strict: false,
    shrinkBudget: 2,
    ...LIMITS,
  };
}

interface Outcome {
  findings: readonly Finding[];
  exchanges: number;
  errors: string[];
}

/** Runs `suite` against `target`, timing it into the table under `mode`. */
async function timed(
  mode: string,
  suite: SuiteName,
  target: string,
  expectCheck: string,
  extra?: (o: Outcome) => void,
): Promise<Outcome> {
  const t0 = performance.now();
  let outcome: Outcome | undefined;
  let handled = false;
  try {
    const errors: string[] = [];
    const r = await runSuite(suite, {
      ...settings(target),
      exchangeSink: {
        push: (ex) => {
          if (ex.error) errors.push(ex.error.code);
        },
      },
    });
    outcome = {
      findings: r.findings,
      exchanges: r.exchanges,
      errors,
    };
    const named = r.findings.filter((f) => f.checkId === expectCheck && f.level === 'violation');
    expect(
      named.length,
      `a ${expectCheck} violation; got ${[...new Set(r.findings.map((f) => f.checkId))].join(', ')}`,
    ).toBeGreaterThan(0);
    extra?.(outcome);
    expect(performance.now() - t0).toBeLessThan(CASE_BOUND_MS);
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

  // Every stalled request costs a full timeout, and undici's timers round sub-second timeouts up to about 1 s: so the
  // suite meets a target stalling its first requests, and preflight meets one that stalls every request.
  it.each([
    ['stall-headers', 'UND_ERR_HEADERS_TIMEOUT'],
    ['stall-body', 'UND_ERR_BODY_TIMEOUT'],
  ] as const)(
    '%s: stalled requests end in %s findings; a target stalling from the start blocks the run (exit 3)',
    async (mode, code) => {
      await withHostile({ mode, stallFirst: 2 }, async (url) => {
        await timed(mode, 'getPet', url, 'transport-ok', (o) => {
          expect(codes(o)).toEqual(new Set([code]));
          expect(o.errors).toHaveLength(2);
        });
      });
      await withHostile({ mode }, async (url) => {
        const t0 = performance.now();
        const pro = upstream.keys.find((k) => k.plan === 'pro')!;
        const config = loadConfig({ target: url }, { [keyVariable('pro')]: pro.key } as Env);
        const err = await preflight(config, config.keys[0]!, ['getPet'], LIMITS).then(
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
      await timed('slower', 'getPet', url, 'transport-ok', (o) => {
        expect(codes(o)).toEqual(new Set(['UND_ERR_HEADERS_TIMEOUT']));
        // One or two time out (a request may be sent before the target notices the first give-up), never all of them.
        expect(o.errors.length).toBeGreaterThanOrEqual(1);
        expect(o.errors.length).toBeLessThanOrEqual(3);
        // The early answers, and those after the target recovered, came through.
        expect(o.exchanges - o.errors.length).toBeGreaterThan(5);
      });
    });
  });
});
