/**
 * Starts and stops the reference Pet Store: a small, fast, conformant in-memory server on node:http, used as the
 * embedded default target, with switchable faults (faults.ts) for the meta-tests of the checks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultSet } from './faults.js';
import { createHandler } from './handlers.js';
import { generateKeys, type ReferenceKey } from './keys.js';
import { RateLimiter, type LimiterAlgorithm } from './limiter.js';
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
  /** Fault ids from the catalogue (faults.ts); an unknown id throws. */
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
  const faults = new FaultSet(opts.faults);
  const limiter = new RateLimiter({
    algorithm: opts.algorithm,
    windowMs: opts.windowSeconds * 1000,
    dayWindowMs: opts.dayWindowSeconds * 1000,
    // The ban-403 fault bans on the first request that ignores a Retry-After.
    banAfter: faults.has('rl-ban-403') ? 0 : opts.banAfter,
    banMs: opts.banSeconds * 1000,
    defects: {
      minuteSlack: faults.has('rl-off-by-one') ? 1 : faults.has('rl-stricter') ? -1 : 0,
      notEnforced: faults.has('rl-not-enforced'),
      neverResets: faults.has('rl-window-never-resets'),
      chargeRejected: faults.has('rl-rejected-counted'),
      dailyNotEnforced: faults.has('rl-daily-not-enforced'),
      retryAfterHalved: faults.has('rl-retry-after-short'),
      sharedAcrossKeys: faults.has('rl-shared-limits'),
      sharedCounter: faults.has('rl-shared-counter'),
      perRoute: faults.has('rl-per-route'),
      banOnLimit: faults.has('rl-ban-honoured'),
    },
  });
  const store = new PetStore(faults.has('ids-beyond-int64') ? 2n ** 63n : 1n);
  const server = createServer(
    { keepAliveTimeout: 5_000 },
    createHandler({
      store,
      limiter,
      keys: new Map(opts.keys.map((k) => [k.key, k])),
      faults,
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
