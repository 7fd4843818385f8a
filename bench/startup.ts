/**
 * The bench's start-up section (issue 12): how long `petstore-conformance run` takes, from spawning the command, until
 * the target sees its first request, and a one-suite run's wall time. Medians of a few runs; never asserted in tests.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { keyEnv } from '../config/config.js';
import { startReferenceServer } from '../reference/server.js';
import { median } from '../reports/thresholds.js';
import { cliEnv } from './cli.js';

const ROUNDS = 5;

/** Milliseconds as seconds; no figure (null, as JSON writes NaN) when there was none to take. */
const seconds = (ms: number | null): number | null => (ms === null ? null : +(ms / 1000).toFixed(3));

/**
 * A TCP relay in front of the reference server that notes when the first request's bytes arrive: the server's own
 * code stays untouched, and the relay's cost is the same before and after any start-up change.
 */
async function relay(to: URL): Promise<{ url: string; firstByteAt: () => number | null; close(): Promise<void> }> {
  let first: number | null = null;
  const server: Server = createServer((inbound) => {
    const outbound = createConnection({ host: to.hostname, port: Number(to.port) });
    inbound.once('data', () => {
      first ??= Date.now();
    });
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    firstByteAt: () => first,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
      }),
  };
}

function cli(
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; spawnedAt: number; ms: number }> {
  const spawnedAt = Date.now();
  const t0 = performance.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/petstore-conformance.js', ...args], {
      cwd,
      env: cliEnv(env),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    p.on('exit', (code) => resolve({ code: code ?? -1, spawnedAt, ms: performance.now() - t0 }));
  });
}

/** The first exchange a run's HAR recorded: the first request a suite sent (the preflight is not in the HAR). */
function firstHarStart(path: string): number {
  const har = JSON.parse(readFileSync(path, 'utf8')) as { log: { entries: { startedDateTime: string }[] } };
  return Math.min(...har.log.entries.map((e) => Date.parse(e.startedDateTime)));
}

export interface StartupFigures {
  readonly rounds: number;
  /** `run --target URL --suite auth`: spawn → the target sees the first request (the preflight). */
  readonly targetFirstRequestSeconds: number | null;
  /** The same runs: spawn → the first suite request (from the HAR). */
  readonly targetFirstSuiteRequestSeconds: number | null;
  /** The embedded default (`run --suite auth`, no target): spawn → the first suite request (from the HAR). */
  readonly embeddedFirstSuiteRequestSeconds: number | null;
  /** Wall time of the one-suite runs (auth), against a target and embedded. */
  readonly targetOneSuiteWallSeconds: number | null;
  readonly embeddedOneSuiteWallSeconds: number | null;
  readonly exitCodes: readonly number[];
}

/** `cwd` is the checkout whose command is measured (this one by default; the bench compares two that way). */
export async function benchStartup(dir: string, cwd = process.cwd()): Promise<StartupFigures> {
  const server = await startReferenceServer({ windowSeconds: 60 });
  const env = keyEnv(server.keys);
  const target = { first: [] as number[], suite: [] as number[], wall: [] as number[] };
  const embedded = { suite: [] as number[], wall: [] as number[] };
  const codes: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      // Each round gets a fresh relay so its first byte is this run's.
      const r = await relay(new URL(server.url));
      const har = join(dir, `startup-target-${i}.har`);
      const t = await cli(cwd, ['run', '--target', r.url, '--suite', 'auth', '--seed', '7', '--har', har], env);
      const first = r.firstByteAt();
      await r.close();
      codes.push(t.code);
      if (first !== null) target.first.push(first - t.spawnedAt);
      target.suite.push(firstHarStart(har) - t.spawnedAt);
      target.wall.push(t.ms);
      const eHar = join(dir, `startup-embedded-${i}.har`);
      const e = await cli(cwd, ['run', '--embedded', '--suite', 'auth', '--seed', '7', '--har', eHar], {});
      codes.push(e.code);
      embedded.suite.push(firstHarStart(eHar) - e.spawnedAt);
      embedded.wall.push(e.ms);
    }
  } finally {
    await server.close();
  }
  return {
    rounds: ROUNDS,
    targetFirstRequestSeconds: seconds(median(target.first)),
    targetFirstSuiteRequestSeconds: seconds(median(target.suite)),
    embeddedFirstSuiteRequestSeconds: seconds(median(embedded.suite)),
    targetOneSuiteWallSeconds: seconds(median(target.wall)),
    embeddedOneSuiteWallSeconds: seconds(median(embedded.wall)),
    exitCodes: [...new Set(codes)],
  };
}
