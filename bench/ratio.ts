/**
 * The bench's ratio section (issue 12): checked exchanges per second ÷ autocannon replaying the very same requests with
 * as many connections against the same server, at concurrency 1 and at the default concurrency.
 *
 * Each round makes five runs, each against a fresh reference server (bench/span-server.ts, the embedded target's
 * server that notes when requests arrive):
 * 1. the harness with --har, whose HAR file gives the exact requests to replay;
 * 2. its twin in the default configuration (no --har): same seed, same suites, a fresh server, so the same requests;
 * 3. autocannon replaying the HAR's requests, split round-robin over as many connections as the run's concurrency;
 * 4. undici's bare dispatch replaying them the same way (`replayedBy.undici`): the ceiling of any client built on
 *    undici, which the project keeps as its one HTTP library;
 * 5. the harness's own client (http/client.ts: sent, recorded, parsed, judged by no check; `replayedBy.harnessClient`).
 * Every rate is measured the same way, from the server's side: requests ÷ the span from the arrival of the first
 * request the report counts (the CLI's preflight request comes before the suites start, and is left out) to the end
 * of the last response. Start-up costs (vitest, autocannon's connections) are outside the span for every run alike
 * (this section used to time autocannon from the bench's side, its start-up included, which at one connection counts
 * it far slower than the target sees it, about 2,200/s against 3,800/s here: `autocannonPerSecWithStartup` keeps that
 * figure, to compare with older results only).
 * The headline ratio is the default configuration's (run 2 ÷ run 3); `withHar` gives run 1 ÷ run 3. Each is measured
 * for the default run and for a long one (LONG_RUNS). The ratios are
 * paired within a round and the median over rounds is reported (BENCH_RATIO_ROUNDS, default 3): this machine is noisy.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { type Dispatcher, Pool } from 'undici';
import { HttpClient } from '../http/client.js';
import { DEFAULT_RUNS_EMBEDDED, defaultConcurrency, keyEnv, roomiestKey } from '../config/config.js';
import { generateKeys, planKeys, type ReferenceKey, type ReferenceOptions } from '../reference/server.js';
import { FUNCTIONAL, runCli } from './cli.js';
import type { ConformanceReport } from '../reports/conformance-report.js';
import type { HarEntry } from '../reports/har.js';
import { median } from '../reports/thresholds.js';

const ROUNDS = Math.max(1, Number(process.env.BENCH_RATIO_ROUNDS ?? 3) || 3);
/** Cases per property: the default against the embedded target. */
const RUNS = DEFAULT_RUNS_EMBEDDED;
/**
 * Cases per property of the long runs (BENCH_RATIO_LONG_RUNS, default 1,500: about 10,000 exchanges; 0 skips them).
 * The default run's span is about 1.5 s, much of it spent while V8 still compiles the hot paths, the server's and
 * autocannon's too: the long run shows the rates and the ratio once everything has warmed up.
 */
const LONG_RUNS = Math.max(0, Number(process.env.BENCH_RATIO_LONG_RUNS ?? 1500) || 0);

interface SpanServer {
  readonly url: string;
  readonly keys: readonly ReferenceKey[];
  /** Stops the server; when each request arrived and when the last response ended (ms, the server's clock). */
  close(): Promise<{ starts: number[]; lastFinish: number | null }>;
}

async function spanServer(options: ReferenceOptions = { windowSeconds: 60 }): Promise<SpanServer> {
  const child = fileURLToPath(new URL('./span-server.js', import.meta.url));
  const proc = spawn(process.execPath, [child, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const l = await lines.next();
    if (l.done) throw new Error('the bench reference server exited early');
    return l.value;
  };
  const info = JSON.parse(await next()) as { url: string; keys: ReferenceKey[] };
  return {
    ...info,
    close: async () => {
      proc.stdin!.end();
      return JSON.parse(await next()) as { starts: number[]; lastFinish: number | null };
    },
  };
}

/** Requests per second over the span of the last `counted` requests the server saw (null when they do not add up). */
function rateOf(times: { starts: number[]; lastFinish: number | null }, counted: number) {
  const first = times.starts[times.starts.length - counted];
  if (counted <= 0 || first === undefined || times.lastFinish === null) return null;
  const spanSeconds = (times.lastFinish - first) / 1000;
  return { perSec: counted / spanSeconds, spanSeconds, requests: times.starts.length };
}

/** One harness run (functional suites, seed 7) against a fresh server: its report and rate. */
async function harness(dir: string, concurrency: number, runs: number, har: string | null) {
  const server = await spanServer();
  const out = join(dir, `ratio-${concurrency}-${runs}-${har ? 'har' : 'default'}.json`);
  const { code } = await runCli(
    [
      ...['run', '--target', server.url, '--seed', '7', '--suite', FUNCTIONAL],
      ...['--concurrency', String(concurrency), '--json', out, ...(har ? ['--har', har] : [])],
    ],
    { ...keyEnv(server.keys), PETSTORE_RUNS: String(runs) },
  );
  const times = await server.close();
  const report = JSON.parse(readFileSync(out, 'utf8')) as ConformanceReport;
  const rate = rateOf(times, report.totals.exchanges);
  if (rate === null) throw new Error(`ratio: the server saw ${times.starts.length} requests, fewer than the report`);
  return { code, report, ...rate };
}

/** How a replay sends: autocannon, undici's bare dispatch, or the harness's own HTTP client (http/client.ts). */
type Replayer = 'autocannon' | 'undici' | 'client';

interface ReplayRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** One undici request, its response read and dropped: the least any client built on undici does per exchange. */
function undiciOnce(pool: Pool, r: ReplayRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    pool.dispatch(
      { method: r.method as Dispatcher.HttpMethod, path: r.path, headers: r.headers, body: r.body ?? null },
      {
        onConnect: () => {},
        onHeaders: () => true,
        onData: () => true,
        onComplete: () => resolve(),
        onError: reject,
      },
    );
  });
}

/** Sends each shard's requests one after the other, all shards at once (as autocannon's clients do). */
async function replayShards(shards: ReplayRequest[][], origin: string, base: string, how: Replayer): Promise<void> {
  if (how === 'autocannon') {
    await Promise.all(
      shards.map((s) =>
        autocannon({
          url: origin,
          connections: 1,
          amount: s.length,
          requests: s.map((r) => ({ ...r, method: r.method as 'GET' })),
          timeout: 10,
        }),
      ),
    );
  } else if (how === 'undici') {
    const pool = new Pool(origin, { connections: shards.length });
    await Promise.all(
      shards.map(async (s) => {
        for (const r of s) await undiciOnce(pool, r);
      }),
    );
    await pool.close();
  } else {
    // Sent, recorded and parsed (exact int64) by the harness's client, but judged by no check.
    const client = new HttpClient({ baseUrl: base, connections: shards.length });
    const prefix = new URL(base).pathname.replace(/\/+$/, '');
    const auth = { template: null, key: null, keyPlan: 'none' } as const;
    await Promise.all(
      shards.map(async (s) => {
        for (const r of s) {
          const ex = await client.send({ ...r, path: r.path.slice(prefix.length), operation: null, auth });
          if (ex.error) throw new Error(`ratio: the client replay failed: ${ex.error.message}`);
        }
      }),
    );
    await client.close();
  }
}

/** Replays the requests split round-robin over `connections` clients at once, on a fresh server. */
async function replay(entries: HarEntry[], connections: number, how: Replayer) {
  const server = await spanServer();
  let times: Awaited<ReturnType<SpanServer['close']>>;
  let t0 = 0;
  let wallMs = 0;
  try {
    const keyOf = new Map(server.keys.map((k) => [k.plan.toUpperCase(), k.key]));
    const requests: ReplayRequest[] = entries.map(({ request: r }) => {
      const u = new URL(r.url);
      const headers = Object.fromEntries(
        r.headers
          // undici sets these itself (and refuses a Host header given as an option).
          .filter((h) => !['host', 'content-length', 'connection'].includes(h.name.toLowerCase()))
          .map((h) => [
            h.name,
            h.value.replace(/\$PETSTORE_API_KEY_([A-Z]+)/g, (_m, plan: string) => keyOf.get(plan) ?? ''),
          ]),
      );
      return {
        method: r.method,
        path: u.pathname + u.search,
        headers,
        ...(r.postData ? { body: r.postData.text } : {}),
      };
    });
    const shards = Array.from({ length: connections }, (_, i) => requests.filter((_r, j) => j % connections === i));
    t0 = performance.now();
    await replayShards(
      shards.filter((s) => s.length > 0),
      new URL(server.url).origin,
      server.url,
      how,
    );
    wallMs = performance.now() - t0;
  } finally {
    times = await server.close();
  }
  const rate = rateOf(times, entries.length);
  if (rate === null) throw new Error(`ratio: the ${how} replay sent fewer requests than the HAR holds`);
  return { ...rate, perSecWithStartup: entries.length / (wallMs / 1000) };
}

const r2 = (n: number) => +n.toFixed(2);

async function measure(dir: string, concurrency: number, runs: number) {
  const rounds: {
    code: number;
    codeHar: number;
    exchanges: number;
    sameCount: boolean;
    perSec: number;
    perSecHar: number;
    ac: number;
    acWithStartup: number;
    undici: number;
    client: number;
    spanSeconds: number;
    spanSecondsHar: number;
    suiteSeconds: number;
  }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const har = join(dir, `ratio-${concurrency}-${runs}.har`);
    const withHar = await harness(dir, concurrency, runs, har);
    const twin = await harness(dir, concurrency, runs, null);
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
    const ac = await replay(entries, concurrency, 'autocannon');
    const undici = await replay(entries, concurrency, 'undici');
    const client = await replay(entries, concurrency, 'client');
    rounds.push({
      code: twin.code,
      codeHar: withHar.code,
      exchanges: twin.report.totals.exchanges,
      // The twin sent as many requests as the HAR holds, and both reports counted them alike (a count: the twin's own
      // requests are not recorded, so only the seed says they are the same ones).
      sameCount: twin.report.totals.exchanges === entries.length && withHar.report.totals.exchanges === entries.length,
      perSec: twin.perSec,
      perSecHar: withHar.perSec,
      ac: ac.perSec,
      acWithStartup: ac.perSecWithStartup,
      undici: undici.perSec,
      client: client.perSec,
      spanSeconds: twin.spanSeconds,
      spanSecondsHar: withHar.spanSeconds,
      suiteSeconds: twin.report.suites.reduce((n, s) => n + s.durationMs, 0) / 1000,
    });
  }
  const med = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f))!;
  return {
    exit: Math.max(...rounds.map((r) => r.code)),
    connections: concurrency,
    checkedExchanges: rounds[0]!.exchanges,
    sameCount: rounds.every((r) => r.sameCount),
    spanSeconds: r2(med((r) => r.spanSeconds)),
    suiteSecondsSummed: r2(med((r) => r.suiteSeconds)),
    harnessPerSec: Math.round(med((r) => r.perSec)),
    autocannonPerSec: Math.round(med((r) => r.ac)),
    // As this section timed autocannon before (from the bench's side, its start-up included): to compare with older
    // results only, as the harness's span leaves its own start-up out.
    autocannonPerSecWithStartup: Math.round(med((r) => r.acWithStartup)),
    ratio: r2(med((r) => r.perSec / r.ac)),
    rounds: rounds.map((r) => r2(r.perSec / r.ac)),
    // The same replay through undici alone (its bare dispatch, responses dropped: the ceiling of any client built on
    // it) and through the harness's HTTP client (sent, recorded, parsed; no check): where the harness's time goes.
    replayedBy: {
      undici: { perSec: Math.round(med((r) => r.undici)), ratio: r2(med((r) => r.undici / r.ac)) },
      harnessClient: { perSec: Math.round(med((r) => r.client)), ratio: r2(med((r) => r.client / r.ac)) },
    },
    withHar: {
      exit: Math.max(...rounds.map((r) => r.codeHar)),
      spanSeconds: r2(med((r) => r.spanSecondsHar)),
      harnessPerSec: Math.round(med((r) => r.perSecHar)),
      ratio: r2(med((r) => r.perSecHar / r.ac)),
      rounds: rounds.map((r) => r2(r.perSecHar / r.ac)),
    },
  };
}

export async function benchRatio(dir: string): Promise<Record<string, unknown>> {
  // The default concurrency of the embedded target's functional key, as `run` chooses it (its keys' limits are the
  // reference server's, whatever their values).
  const dflt = defaultConcurrency(roomiestKey(planKeys(generateKeys()))!.limits);
  const one = await measure(dir, 1, RUNS);
  const many = await measure(dir, dflt, RUNS);
  const long =
    LONG_RUNS > 0
      ? {
          [`the same, long run (${LONG_RUNS} runs), concurrency 1`]: await measure(dir, 1, LONG_RUNS),
          [`the same, long run (${LONG_RUNS} runs), default concurrency ${dflt}`]: await measure(dir, dflt, LONG_RUNS),
        }
      : {};
  return {
    'checked exchanges/s ÷ autocannon (concurrency 1, same requests, 1 connection)': one,
    [`checked exchanges/s ÷ autocannon (default concurrency ${dflt}, same requests, ${dflt} connections)`]: many,
    'checked exchanges/s at the default concurrency (goal ≥ 1,500)': many.harnessPerSec,
    ...long,
  };
}
