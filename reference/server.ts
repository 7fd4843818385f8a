/**
 * Starts and stops the reference Pet Store: a small, fast, conformant in-memory server on node:http, used as the
 * embedded default target, with switchable faults (faults.ts) for the meta-tests of the checks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { faultSeams } from './faults.js';
import { createHandler } from './handlers.js';
import { generateKeys, type ReferenceKey } from './keys.js';
import { RateLimiter, type LimiterAlgorithm } from './limiter.js';
import { limiterDefects } from './seams.js';
import { PetStore } from './store.js';

export type { LimiterAlgorithm } from './limiter.js';
export type { ReferenceKey } from './keys.js';
export { generateKeys, planKeys } from './keys.js';

export interface ReferenceOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default generateKeys(): one per plan; Enterprise with 1,000,000/min and 100,000,000/day. */
  keys?: ReferenceKey[];
  /** Length of the "minute" window in seconds, default 60 (tests use 1-5). */
  windowSeconds?: number;
  /** Length of the "day" window in seconds, default 86400. */
  dayWindowSeconds?: number;
  /** Default 'fixed-window'. */
  algorithm?: LimiterAlgorithm;
  /** Fault ids from the catalogue (faults.ts); an unknown id, or faults that cannot be combined, throw. */
  faults?: readonly string[];
  /** Requests sent while limited (after a 429, before its Retry-After elapsed) before the key is banned; default 10. */
  banAfter?: number;
  /** Ban length in seconds, default 2 × windowSeconds. */
  banSeconds?: number;
}

export interface ResolvedReferenceOptions {
  readonly host: string;
  readonly port: number;
  readonly keys: readonly ReferenceKey[];
  readonly windowSeconds: number;
  readonly dayWindowSeconds: number;
  readonly algorithm: LimiterAlgorithm;
  readonly faults: readonly string[];
  readonly banAfter: number;
  readonly banSeconds: number;
}

export interface ReferenceServer {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:PORT/v1. */
  readonly url: string;
  readonly keys: readonly ReferenceKey[];
  readonly options: ResolvedReferenceOptions;
  close(): Promise<void>;
}

const ALGORITHMS: readonly LimiterAlgorithm[] = ['fixed-window', 'sliding-window', 'token-bucket'];
const MAX_BODY_BYTES = 1024 * 1024;

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`reference: ${name} must be a positive number, got ${value}`);
  return value;
}

function resolveOptions(o: ReferenceOptions): ResolvedReferenceOptions {
  const windowSeconds = positive('windowSeconds', o.windowSeconds ?? 60);
  const algorithm = o.algorithm ?? 'fixed-window';
  if (!ALGORITHMS.includes(algorithm)) throw new Error(`reference: unknown algorithm ${JSON.stringify(algorithm)}`);
  const banAfter = o.banAfter ?? 10;
  if (!Number.isInteger(banAfter) || banAfter < 0) throw new Error(`reference: banAfter must be an integer ≥ 0`);
  const keys = o.keys ?? generateKeys();
  if (new Set(keys.map((k) => k.key)).size !== keys.length) throw new Error('reference: duplicate keys');
  return Object.freeze({
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    keys: Object.freeze([...keys]),
    windowSeconds,
    dayWindowSeconds: positive('dayWindowSeconds', o.dayWindowSeconds ?? 86_400),
    algorithm,
    faults: Object.freeze([...(o.faults ?? [])]),
    banAfter,
    banSeconds: positive('banSeconds', o.banSeconds ?? 2 * windowSeconds),
  });
}

export async function startReferenceServer(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const opts = resolveOptions(options);
  const seams = faultSeams(opts.faults);
  const limiter = new RateLimiter({
    algorithm: opts.algorithm,
    windowMs: opts.windowSeconds * 1000,
    dayWindowMs: opts.dayWindowSeconds * 1000,
    banAfter: seams.ban.after ?? opts.banAfter,
    banMs: opts.banSeconds * 1000,
    defects: limiterDefects(seams),
  });
  const store = new PetStore(seams.firstId ?? 1n);
  const server = createServer(
    { keepAliveTimeout: 5_000 },
    createHandler({
      store,
      limiter,
      keys: new Map(opts.keys.map((k) => [k.key, k])),
      seams,
      maxBodyBytes: MAX_BODY_BYTES,
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  let closing: Promise<void> | null = null;
  return Object.freeze({
    url: `http://${host}:${port}/v1`,
    keys: opts.keys,
    options: Object.freeze({ ...opts, port }),
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  });
}
