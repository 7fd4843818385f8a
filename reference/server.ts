/**
 * Starts and stops the reference Pet Store: a small, fast, conformant in-memory server on node:http, used as the
 * embedded default target, with switchable faults (faults.ts) for the meta-tests of the checks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { COERCION_FAULTS, faultSeams } from './faults.js';
import { INT64_MAX, INT64_MIN } from '../http/lossless.js';
import { wallClock, type ReferenceClock } from './clock.js';
import { createHandler } from './handlers.js';
import { generateKeys, type ReferenceKey } from './keys.js';
import { LIMITER_ALGORITHMS, RateLimiter, type LimiterAlgorithm } from './limiter.js';
import { PetStore } from './store.js';

export type { ReferenceClock } from './clock.js';
export { LIMITER_ALGORITHMS, type LimiterAlgorithm } from './limiter.js';
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
  /** Accept the coercion classics too (COERCION_FAULTS: "5", true, null, [7] for an integer, 123 for a string). */
  coercion?: boolean;
  /** Requests sent while limited (after a 429, before its Retry-After elapsed) before the key is banned; default 10. */
  banAfter?: number;
  /** Ban length in seconds, default 2 × windowSeconds. */
  banSeconds?: number;
  /** Pets already in the store at start (someone else's data, as on a shared staging); default 0. */
  seedPets?: number;
  /**
   * The first id the store assigns, any int64 (e.g. 2^53 + 1); the seeded pets take the first ones, created pets
   * the next; there must be room for them and a million more. A bigint, or its decimal digits (options cross a process
   * boundary as JSON). Default 1.
   */
  idStart?: bigint | number | string;
  /**
   * The order of GET /pets (the spec shows none), default 'oldest-first'. With many existing pets and no pagination,
   * only 'newest-first' lets a client see the pets it just created in a list.
   */
  listOrder?: ListOrder;
  /**
   * Every request is handled this many ms after it arrives, default 0: a slow target (the network, a busy backend),
   * too slow for a client with a few requests in flight to exceed a large limit within a short window.
   */
  answerDelayMs?: number;
  /**
   * Conformant limiter timings a black-box client must not read as faults (issue 28), default off: the limiter
   * decides every request when it arrives (enforcement stays exact), but counts it in the Remaining it reports only
   * once it has answered it, so an answer's Remaining leaves out the key's other requests still being answered.
   */
  countAfterAnswer?: boolean;
  /** Each answer is held back a random 0 to this many ms after the limiter's decision (default 0): answers overlap. */
  answerJitterMs?: number;
}

export type ListOrder = 'oldest-first' | 'newest-first';

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
  readonly seedPets: number;
  /** Decimal digits of an int64. */
  readonly idStart: string;
  readonly listOrder: ListOrder;
  readonly answerDelayMs: number;
  readonly countAfterAnswer: boolean;
  readonly answerJitterMs: number;
}

export interface ReferenceServer {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:PORT/v1. */
  readonly url: string;
  readonly keys: readonly ReferenceKey[];
  readonly options: ResolvedReferenceOptions;
  close(): Promise<void>;
}

const MAX_SEED_PETS = 1_000_000;

const MAX_BODY_BYTES = 1024 * 1024;

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`reference: ${name} must be a positive number, got ${value}`);
  return value;
}

function int64(value: bigint | number | string): bigint {
  let n: bigint | null = null;
  if (typeof value === 'bigint') n = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) n = BigInt(value);
  if (n === null || n < INT64_MIN || n > INT64_MAX)
    throw new Error(`reference: idStart must be an int64 (a bigint or its digits), got ${String(value)}`);
  return n;
}

function resolveOptions(o: ReferenceOptions): ResolvedReferenceOptions {
  const windowSeconds = positive('windowSeconds', o.windowSeconds ?? 60);
  const algorithm = o.algorithm ?? 'fixed-window';
  if (!LIMITER_ALGORITHMS.includes(algorithm))
    throw new Error(`reference: unknown algorithm ${JSON.stringify(algorithm)}`);
  const banAfter = o.banAfter ?? 10;
  if (!Number.isInteger(banAfter) || banAfter < 0) throw new Error(`reference: banAfter must be an integer ≥ 0`);
  const seedPets = o.seedPets ?? 0;
  if (!Number.isInteger(seedPets) || seedPets < 0 || seedPets > MAX_SEED_PETS)
    throw new Error(`reference: seedPets must be an integer from 0 to ${MAX_SEED_PETS}, got ${seedPets}`);
  const idStart = int64(o.idStart ?? 1n);
  // Room for the seeded pets and for the ones a run creates: ids never leave int64.
  if (idStart + BigInt(seedPets) + 1_000_000n > INT64_MAX)
    throw new Error(`reference: idStart ${idStart} leaves no room for ${seedPets} seeded pets and new ones in int64`);
  const listOrder = o.listOrder ?? 'oldest-first';
  if (listOrder !== 'oldest-first' && listOrder !== 'newest-first')
    throw new Error(`reference: unknown listOrder ${JSON.stringify(listOrder)}`);
  const answerDelayMs = o.answerDelayMs ?? 0;
  if (!Number.isFinite(answerDelayMs) || answerDelayMs < 0)
    throw new Error(`reference: answerDelayMs must be a number ≥ 0, got ${answerDelayMs}`);
  const answerJitterMs = o.answerJitterMs ?? 0;
  if (!Number.isFinite(answerJitterMs) || answerJitterMs < 0 || answerJitterMs > 10_000)
    throw new Error(`reference: answerJitterMs must be from 0 to 10000 ms, got ${answerJitterMs}`);
  const keys = o.keys ?? generateKeys();
  if (new Set(keys.map((k) => k.key)).size !== keys.length) throw new Error('reference: duplicate keys');
  return Object.freeze({
    host: o.host ?? '127.0.0.1',
    port: o.port ?? 0,
    keys: Object.freeze([...keys]),
    windowSeconds,
    dayWindowSeconds: positive('dayWindowSeconds', o.dayWindowSeconds ?? 86_400),
    algorithm,
    faults: Object.freeze([...new Set([...(o.faults ?? []), ...(o.coercion ? COERCION_FAULTS : [])])]),
    banAfter,
    banSeconds: positive('banSeconds', o.banSeconds ?? 2 * windowSeconds),
    seedPets,
    idStart: idStart.toString(),
    listOrder,
    answerDelayMs,
    countAfterAnswer: o.countAfterAnswer === true,
    answerJitterMs,
  });
}

/**
 * Starts the server on loopback. `clock` is its time (clock.ts): a test may pass its own and move it by hand. It is no
 * option because options cross a process boundary as JSON (launcher.ts); a clock only exists in this process.
 */
export async function startReferenceServer(
  options: ReferenceOptions = {},
  clock: ReferenceClock = wallClock,
): Promise<ReferenceServer> {
  const opts = resolveOptions(options);
  const seams = faultSeams(opts.faults);
  const limiter = new RateLimiter({
    algorithm: opts.algorithm,
    windowMs: opts.windowSeconds * 1000,
    dayWindowMs: opts.dayWindowSeconds * 1000,
    banAfter: seams.ban.after ?? opts.banAfter,
    banMs: opts.banSeconds * 1000,
    // The seams hold every limiter defect (Seams extends LimiterDefects): the limiter reads its own.
    defects: seams,
  });
  const store = new PetStore(seams.firstId ?? BigInt(opts.idStart), opts.listOrder === 'newest-first');
  store.seed(opts.seedPets, clock.now());
  const handle = createHandler({
    store,
    limiter,
    keys: new Map(opts.keys.map((k) => [k.key, k])),
    seams,
    maxBodyBytes: MAX_BODY_BYTES,
    clock,
    answers: { countAfter: opts.countAfterAnswer, jitterMs: opts.answerJitterMs },
    // Either read-modify-write defect delays the write; the limiter knows which counts it loses.
    lostIncrementsMs: Math.max(seams.lostIncrementsMs, seams.dayLostIncrementsMs),
  });
  const delay = opts.answerDelayMs;
  const server = createServer(
    { keepAliveTimeout: 5_000 },
    delay > 0
      ? (req, res) => {
          req.on('error', () => {}); // a client that goes away while its request waits must not crash the server
          clock.later(delay, () => handle(req, res));
        }
      : handle,
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
