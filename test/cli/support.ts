/**
 * Helpers for in-process CLI tests: an Output that captures what `main()` prints, `main()` run with it, distinctive
 * reference keys and the env files that give them.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { main } from '../../cli/main.js';
import type { Output } from '../../cli/output.js';
import type { RunReport } from '../../cli/run-command.js';
import { keyEnv } from '../../config/config.js';
import { generateKeys, type ReferenceKey } from '../../reference/server.js';
import { readJson } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';

export interface Captured extends Output {
  readonly stdout: string[];
  readonly stderr: string[];
  text(): string;
}

function captureOutput(): Captured {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    result: (t) => void stdout.push(t),
    progress: (l) => void stderr.push(`${l}\n`),
    error: (l) => void stderr.push(`petstore-conformance: ${l}\n`),
    text: () => stdout.join('') + stderr.join(''),
  };
}

/** What an in-process `main()` returned, and everything it printed (also joined, per stream). */
export interface MainResult {
  readonly code: number;
  readonly out: Captured;
  readonly stdout: string;
  readonly stderr: string;
}

/** `petstore-conformance ...argv`, in process (tls/support.ts's runCli is the spawned binary). */
export async function runMain(argv: readonly string[]): Promise<MainResult> {
  const out = captureOutput();
  const code = await main([...argv], out);
  return { code, out, stdout: out.stdout.join(''), stderr: out.stderr.join('') };
}

/** `run --target <target> --env-file <envFile> ...args`, in process: the command most CLI tests give. */
export function runAgainst(target: string, envFile: string, args: readonly string[] = []): Promise<MainResult> {
  return runMain(['run', '--target', target, '--env-file', envFile, ...args]);
}

/** runAgainst with `--json <json>` after `args`, and the report it wrote there, whatever the exit code. */
export async function runForReport(
  target: string,
  envFile: string,
  json: string,
  args: readonly string[] = [],
): Promise<MainResult & { report: RunReport }> {
  const r = await runAgainst(target, envFile, [...args, '--json', json]);
  if (!existsSync(json)) throw new Error(`no report at --json (exit ${r.code}):\n${r.out.text()}`);
  return { ...r, report: readJson<RunReport>(json) };
}

/** Reference keys whose values are easy to grep for, one per plan (the suffix differs per test so runs never share). */
export function distinctiveKeys(tag: string): ReferenceKey[] {
  return generateKeys().map((k) => ({ ...k, key: `psk_SECRET_${k.plan}_${tag}_0123456789abcdef` }));
}

/** A .env file with every key of `keys` (and anything else given) for --env-file. */
export function writeEnvFile(path: string, keys: readonly ReferenceKey[], extra: Record<string, string> = {}): string {
  const lines = Object.entries({ ...keyEnv(keys), ...extra }).map(([k, v]) => `${k}=${v}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** writeEnvFile into a fresh temporary directory whose name starts with `prefix`. */
export function tempEnvFile(prefix: string, keys: readonly ReferenceKey[], extra: Record<string, string> = {}): string {
  return writeEnvFile(join(tempDir(prefix), '.env'), keys, extra);
}

/** A loopback port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export interface CountingProxy {
  readonly url: string;
  /** Requests received, and POSTs answered in 2xx (creations). */
  readonly counts: { requests: number; created: number };
  /** Names of the pets created through the proxy, as the target answered them. */
  readonly createdNames: string[];
  close(): Promise<void>;
}

/**
 * A target that keeps slowing down over time, for countingProxy: each answer held 10 ms × 2^(s / doublingS), s the
 * seconds since the run's second request, its suites' first (0.16 s after 20 s, 0.64 s after 30 s by default); the
 * preflight's 10 ms, however long the run takes to start its suites.
 */
export function slowingDown(doublingS = 5): (n: number) => number {
  let from: number | null = null;
  return (n) => {
    if (n === 0) return 10;
    from ??= Date.now();
    return 10 * 2 ** ((Date.now() - from) / 1000 / doublingS);
  };
}

/**
 * A forward to `upstream` (a base URL ending in /v1) that counts what it receives and delays the n-th answer by
 * n × stepMs: a target that slows down progressively when stepMs > 0. `delay` may instead say how long to hold the
 * n-th answer, `sinceFirstMs` after the first request came (a target slow for a while). `dropDate`: the answers carry
 * no Date header (a service without a clock of its own, as RFC 9110 §6.6.1 allows).
 */
export async function countingProxy(
  upstream: string,
  delay: number | ((n: number, sinceFirstMs: number) => number) = 0,
  options: { readonly dropDate?: boolean } = {},
): Promise<CountingProxy> {
  const holdFor = typeof delay === 'number' ? (n: number) => n * delay : delay;
  let firstAt: number | null = null;
  const { createServer: createHttpServer, request } = await import('node:http');
  const up = new URL(upstream);
  const counts = { requests: 0, created: 0 };
  const createdNames: string[] = [];
  const server = createHttpServer((req, res) => {
    const n = counts.requests++;
    firstAt ??= Date.now();
    const held = holdFor(n, Date.now() - firstAt);
    if (options.dropDate) res.sendDate = false;
    const fwd = request(
      // Raw headers: a repeated field (two Authorization lines) reaches the server as sent, as a transparent proxy passes it.
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.rawHeaders },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const status = answer.statusCode ?? 502;
          if (req.method === 'POST' && status >= 200 && status < 300) {
            counts.created++;
            createdNames.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string }).name);
          }
          const { date: _date, ...kept } = answer.headers;
          setTimeout(() => {
            res.writeHead(answer.statusCode ?? 502, options.dropDate ? kept : answer.headers);
            res.end(Buffer.concat(chunks));
          }, held);
        });
      },
    );
    fwd.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}${up.pathname}`,
    counts,
    createdNames,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
