/**
 * Measurements for `npm run bench` (issue 4's closing note), each with autocannon, 10 connections, 2 s per run:
 * - the harness's load scenario (hooks, conformance checks, per-class histograms) vs plain autocannon sending the very
 *   same requests without hooks (withoutHooks of the harness's mix, the same seeded pets), against the same reference
 *   server process (goal ≥ 0.9);
 * - the reference server vs a bare node:http server answering the same fixed JSON body (goal ≥ 0.5).
 * Fair by construction: each side is warmed up, then the two alternate for ROUNDS rounds in ABBA order (so a drift
 * of the machine or of the target's store favours neither), with the same connections and duration. Rates are
 * completed responses ÷ duration from autocannon's raw result for all four, the median over the rounds; each ratio is
 * also given per round, so a noisy machine shows as a range. Every target runs in a child process, as a real target
 * would. On a machine shared with other work, read the medians and the generator's CPU per response.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ApiKey } from '../http/redact.js';
import type { ReferenceKey } from '../reference/server.js';
import { autocannon, type AcRawResult, type AcRequest } from '../load/autocannon.js';
import { ConformanceTally } from '../load/conformance.js';
import { mixGetCount, mixRequests, seedPets, withoutHooks } from '../load/mix.js';
import { PROFILES } from '../load/profiles.js';
import { silentProgress } from '../load/progress.js';
import { runScenario } from '../load/run-scenario.js';
import { mixConnectionsScenario } from '../load/scenarios/mix-connections.js';

const CONNECTIONS = 10;
const SECONDS = 2;
const WARM_UP_SECONDS = 1;
export const ROUNDS = 9;

const rateOf = (raw: AcRawResult) => Math.round((raw.totalCompletedRequests / Math.max(raw.duration, 0.001)) * 10) / 10;

/** A measurement counts only answers the target meant: a 429 or an error would make either side look faster. */
function checked(raw: AcRawResult, what: string): AcRawResult {
  if (raw.non2xx > 0 || raw.errors > 0)
    throw new Error(`bench: ${what} got ${raw.non2xx} non-2xx answers and ${raw.errors} errors`);
  return raw;
}

async function plain(url: string, requests: AcRequest[], seconds: number): Promise<Measured> {
  return measured(async () =>
    checked(
      await autocannon({ url, connections: CONNECTIONS, duration: seconds, requests, skipAggregateResult: true }),
      `plain autocannon on ${url}`,
    ),
  );
}

interface Measured {
  readonly rate: number;
  /** The generator's CPU time (this process, user + system) per completed response, in µs. */
  readonly cpuUs: number;
}

/** Runs `run` and measures its rate and the generator's CPU per response. */
async function measured(run: () => Promise<AcRawResult>): Promise<Measured> {
  const cpu0 = process.cpuUsage();
  const raw = await run();
  const cpu = process.cpuUsage(cpu0);
  return {
    rate: rateOf(raw),
    cpuUs: Math.round(((cpu.user + cpu.system) / Math.max(1, raw.totalCompletedRequests)) * 10) / 10,
  };
}

/** Runs a and b alternately, ABBA order, after one warm-up each; per-round figures. */
async function alternate(
  a: (seconds: number) => Promise<Measured>,
  b: (seconds: number) => Promise<Measured>,
): Promise<{ a: Measured[]; b: Measured[] }> {
  await a(WARM_UP_SECONDS);
  await b(WARM_UP_SECONDS);
  const out = { a: [] as Measured[], b: [] as Measured[] };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      out.a.push(await a(SECONDS));
      out.b.push(await b(SECONDS));
    } else {
      out.b.push(await b(SECONDS));
      out.a.push(await a(SECONDS));
    }
  }
  return out;
}

/** The median: a burst of another process's work during one round moves it least. */
function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const m = sorted.length % 2 ? sorted[mid]! : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return Math.round(m * 10) / 10;
}
const ratios = (a: readonly Measured[], b: readonly Measured[]) =>
  a.map((x, i) => Math.round((x.rate / Math.max(b[i]?.rate ?? 0, 0.001)) * 1000) / 1000);

interface Child {
  readonly url: string;
  readonly keys: readonly ReferenceKey[];
  close(): Promise<void>;
}

/** Starts a target in a child process (tsx's loader when run from the sources), bounded: it must report within 20 s. */
async function child(args: string[]): Promise<Child> {
  const compiled = import.meta.url.endsWith('.js');
  const proc = fork(fileURLToPath(new URL(`./load-server.${compiled ? 'js' : 'ts'}`, import.meta.url)), args, {
    execArgv: compiled ? [] : ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; keys: ReferenceKey[] }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench: target did not start within 20 s')), 20_000);
    proc.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as { url: string; keys: ReferenceKey[] });
    });
    proc.once('exit', (code) => reject(new Error(`bench: target exited with ${code}`)));
  });
  return {
    ...ready,
    close: async () => {
      proc.send('close');
      const timer = setTimeout(() => proc.kill(), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface LoadBench {
  /** Medians over the rounds. */
  readonly harnessReqPerSec: number;
  readonly plainAutocannonReqPerSec: number;
  readonly referenceReqPerSec: number;
  readonly bareNodeReqPerSec: number;
  /** Per round: harness ÷ plain autocannon, reference ÷ bare node:http. */
  readonly harnessRatios: number[];
  readonly referenceRatios: number[];
  /** The medians of the per-round ratios: the two sides of a round ran seconds apart, so this is the figure least
   * moved by other work on the machine. */
  readonly harnessRatioMedian: number;
  readonly referenceRatioMedian: number;
  /**
   * The generator's CPU per response (median over rounds, µs), harness and plain: what the hooks cost whichever side
   * is the bottleneck (when the server is, the rates alone hide it).
   */
  readonly harnessCpuUsPerResponse: number;
  readonly plainCpuUsPerResponse: number;
}

export async function benchLoad(): Promise<LoadBench> {
  // Harness vs plain autocannon: one reference server, the same requests, the same seeded pets.
  let harness: { a: Measured[]; b: Measured[] };
  const target = await child(['reference']);
  try {
    const ref = target.keys.find((k) => k.plan === 'enterprise') ?? target.keys[0]!;
    const key = { plan: ref.plan, key: new ApiKey(ref.key, ref.plan), limits: ref.limits };
    const base = new URL(target.url).pathname;
    const ids = await seedPets(target.url, key.key, mixGetCount(), 10);
    const plainRequests = withoutHooks(mixRequests(base, key.key, new ConformanceTally(1), ids));
    harness = await alternate(
      (seconds) =>
        measured(async () => {
          const spec = {
            ...mixConnectionsScenario(target.url, key, PROFILES.nightly, {
              connections: CONNECTIONS,
              durationSeconds: seconds,
            }),
            maxRequests: 10_000_000,
            requests: (tally: ConformanceTally) => mixRequests(base, key.key, tally, ids),
          };
          const result = await runScenario(spec, { runStartedAt: Date.now(), progress: silentProgress });
          if (result.conformance.nonConformant > 0)
            throw new Error('bench: the reference server answered non-conformant responses');
          return checked(result.raw[0] as AcRawResult, 'the harness');
        }),
      (seconds) => plain(target.url, plainRequests, seconds),
    );
  } finally {
    await target.close();
  }

  // Reference vs bare node:http on one fixed request, the bare server answering the body the reference answers.
  const reference = await child(['reference']);
  let bare: Child | null = null;
  try {
    const ref = reference.keys.find((k) => k.plan === 'enterprise') ?? reference.keys[0]!;
    const auth = { authorization: `Bearer ${ref.key}` };
    await fetch(`${reference.url}/pets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"bench","categoryId":1}',
    });
    const body = await (await fetch(`${reference.url}/pets?limit=1`, { headers: auth })).text();
    bare = await child(['bare', body]);
    const bareUrl = bare.url;
    const path = `${new URL(reference.url).pathname}/pets?limit=1`;
    const servers = await alternate(
      (seconds) => plain(reference.url, [{ method: 'GET', path, headers: auth }], seconds),
      (seconds) => plain(bareUrl, [{ method: 'GET', path }], seconds),
    );
    return {
      harnessReqPerSec: median(harness.a.map((m) => m.rate)),
      plainAutocannonReqPerSec: median(harness.b.map((m) => m.rate)),
      referenceReqPerSec: median(servers.a.map((m) => m.rate)),
      bareNodeReqPerSec: median(servers.b.map((m) => m.rate)),
      harnessRatios: ratios(harness.a, harness.b),
      referenceRatios: ratios(servers.a, servers.b),
      harnessRatioMedian: Math.round(median(ratios(harness.a, harness.b).map((r) => r * 1000))) / 1000,
      referenceRatioMedian: Math.round(median(ratios(servers.a, servers.b).map((r) => r * 1000))) / 1000,
      harnessCpuUsPerResponse: median(harness.a.map((m) => m.cpuUs)),
      plainCpuUsPerResponse: median(harness.b.map((m) => m.cpuUs)),
    };
  } finally {
    await reference.close();
    await bare?.close();
  }
}
