/**
 * Bench section `memory`: the peak RSS of a long run (100,000 exchanges by default, BENCH_MEMORY_EXCHANGES) of the
 * functional suites against the reference server, with --har (the worst case: every exchange goes to a file), and of
 * the same run without it.
 *
 * RSS is sampled every 50 ms from /proc and summed over the CLI's process tree: vitest runs its workers as threads
 * inside the CLI process, so the tree is the harness (the reference server is started here, outside that tree, and
 * measured apart). The run's length comes from --runs: a short calibration run gives exchanges per run, and the long
 * run asks for enough runs to pass the goal. The server's window is 60 s and the Enterprise key's limits are the
 * reference default (1,000,000 a minute), so no pacing slows the run down. BENCH_MEMORY_ROOT runs the CLI of another
 * checkout (a before/after comparison with the same bench).
 */
import { cliEnv, FUNCTIONAL } from './cli.js';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { keyEnv } from '../config/config.js';
import { startEmbedded } from '../reference/launcher.js';

const SAMPLE_MS = 50;

export interface MemoryFigures {
  readonly exit: number;
  readonly runs: number;
  readonly exchanges: number;
  readonly harEntries: number | null;
  readonly harMegabytes: number | null;
  readonly wallSeconds: number;
  /** Peak of the summed RSS of the CLI process and its descendants. */
  readonly peakRssMb: number | null;
  /** The same figure for a short run (runs 100, a few hundred exchanges): the footprint that does not grow. */
  readonly shortRun: { readonly exchanges: number; readonly peakRssMb: number | null };
  /** The same long run without --har: what the HAR stream adds. */
  readonly withoutHar: {
    readonly exit: number;
    readonly exchanges: number;
    readonly peakRssMb: number | null;
    readonly wallSeconds: number;
  };
  /** Peak RSS of the reference server (outside the harness, for reference). */
  readonly serverPeakRssMb: number | null;
}

/** Resident set size of one process in bytes, or 0 when it is gone (or /proc is not there). */
function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The process and its descendants (from the parent ids in /proc/<pid>/stat). */
function treeOf(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after its closing one are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(name), ppid);
    } catch {
      // The process ended while listing.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, pp] of parent) if (pp === tree[i]) tree.push(pid);
  return tree;
}

async function cliRun(root: string, args: string[], env: Record<string, string>, sample: number[] | null) {
  const t0 = performance.now();
  const p = spawn(process.execPath, [join(root, 'bin/petstore-conformance.js'), ...args], {
    cwd: root,
    env: cliEnv(env),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  let peak = 0;
  // Bounded by the child's life: the timer stops when it exits.
  const timer = sample
    ? setInterval(() => {
        const total = treeOf(p.pid!).reduce((n, pid) => n + rssOf(pid), 0);
        peak = Math.max(peak, total);
        sample.push(total);
      }, SAMPLE_MS)
    : null;
  const code = await new Promise<number>((r) => p.on('exit', (c) => r(c ?? -1)));
  if (timer) clearInterval(timer);
  return { code, ms: performance.now() - t0, peak };
}

interface Report {
  totals: { exchanges: number };
}

export async function benchMemory(dir: string): Promise<MemoryFigures> {
  const goal = Number(process.env.BENCH_MEMORY_EXCHANGES ?? 100_000);
  const root = resolve(process.env.BENCH_MEMORY_ROOT ?? '.');
  const server = await startEmbedded({ windowSeconds: 60 });
  const env = keyEnv(server.keys);
  // The server is the child running reference/child.js (built) or child.ts (from the sources, with tsx's esbuild
  // service a child of this process too).
  const serverPid =
    treeOf(process.pid).find((pid) => {
      try {
        return pid !== process.pid && /reference\/child\.[jt]s/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    }) ?? null;
  try {
    // Exchanges grow linearly with --runs past a fixed part (the stateful sequences, auth variants): two short runs
    // give both, and the long run asks for the runs that reach the goal.
    const short: number[] = [];
    let shortPeak = 0;
    const exchangesAt = async (runs: number): Promise<number> => {
      const out = join(dir, `memory-calibrate-${runs}.json`);
      const args = ['run', '--target', server.url, '--seed', '7', '--suite', FUNCTIONAL, '--runs', String(runs)];
      shortPeak = (await cliRun(root, [...args, '--json', out], env, short)).peak;
      return (JSON.parse(readFileSync(out, 'utf8')) as Report).totals.exchanges;
    };
    const low = await exchangesAt(100);
    // The short run's peak is the harness's own footprint (vitest, the modules): the long run's excess is what grows.
    const [shortExchanges, shortPeakRss] = [low, shortPeak];
    const high = await exchangesAt(400);
    const perRun = (high - low) / 300;
    const runs = Math.ceil(((goal - (low - 100 * perRun)) / perRun) * 1.02);
    const out = join(dir, 'memory.json');
    const har = join(dir, 'memory.har');
    let serverPeak = 0;
    const serverTimer = serverPid
      ? setInterval(() => {
          serverPeak = Math.max(serverPeak, rssOf(serverPid));
        }, SAMPLE_MS * 4)
      : null;
    const samples: number[] = [];
    const longArgs = (url: string, n: number) => [
      'run',
      '--target',
      url,
      '--seed',
      '7',
      '--suite',
      FUNCTIONAL,
      '--runs',
      String(n),
      '--max-duration',
      '60m',
    ];
    const r = await cliRun(root, [...longArgs(server.url, runs), '--json', out, '--har', har], env, samples);
    if (serverTimer) clearInterval(serverTimer);
    // The same long run without --har, on a server of its own: the first one holds the pets of every run before.
    const plainOut = join(dir, 'memory-without-har.json');
    const plainSamples: number[] = [];
    const fresh = await startEmbedded({ windowSeconds: 60 });
    const plain = await cliRun(
      root,
      [...longArgs(fresh.url, runs), '--json', plainOut],
      keyEnv(fresh.keys),
      plainSamples,
    ).finally(() => fresh.close());
    const exchanges = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Report).totals.exchanges : 0;
    const entries = existsSync(har)
      ? (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: unknown[] } }).log.entries.length
      : null;
    const mb = (n: number) => +(n / 1024 / 1024).toFixed(1);
    return {
      exit: r.code,
      runs,
      exchanges,
      harEntries: entries,
      harMegabytes: existsSync(har) ? mb(statSync(har).size) : null,
      wallSeconds: +(r.ms / 1000).toFixed(1),
      peakRssMb: samples.length > 0 ? mb(r.peak) : null,
      shortRun: { exchanges: shortExchanges, peakRssMb: short.length > 0 ? mb(shortPeakRss) : null },
      withoutHar: {
        exit: plain.code,
        exchanges: existsSync(plainOut) ? (JSON.parse(readFileSync(plainOut, 'utf8')) as Report).totals.exchanges : 0,
        peakRssMb: plainSamples.length > 0 ? mb(plain.peak) : null,
        wallSeconds: +(plain.ms / 1000).toFixed(1),
      },
      serverPeakRssMb: serverPid ? mb(serverPeak) : null,
    };
  } finally {
    await server.close();
  }
}
