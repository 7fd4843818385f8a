/**
 * The three operations of the reference Pet Store on node:http, plus authentication and rate limiting.
 *
 * Documented choices where the spec leaves the answer open (a conformant server may choose otherwise):
 * - Order of processing: authenticate, then rate-limit, then route. An unknown path, or a known path with another
 *   method (405 is not documented), gets 404 Error JSON, after authentication and counted against the key.
 * - 401 responses carry rate-limit headers from a per-client (remote address) anonymous bucket with the Free plan's
 *   limits; it is reported, never enforced. `WWW-Authenticate: Bearer realm="petstore"`, with error="invalid_token"
 *   when a bearer token was given. The scheme name is case-insensitive (RFC 9110 §11.1).
 * - listPets: limit must be a decimal integer 1..100 (default 20) and status one of the enum; anything else, or a
 *   repeated parameter, gets 400 Error. Unknown query parameters are ignored. Pets come oldest first.
 * - createPet: the body must be UTF-8 JSON whatever the Content-Type says (any media type is accepted when the bytes
 *   parse). name is any string, including empty (the spec gives no limits). categoryId must be a JSON integer within
 *   int64, judged on its exact digits: 1.0 and 1e3 count as integers (JSON Schema semantics) and are stored as 1 and
 *   1000; 1.5, strings, null and out-of-range values get 400. A client-supplied id and unknown fields are ignored;
 *   a key repeated with different values, or bytes that are not UTF-8, get 400.
 *   status omitted is stored and returned as "available". Ids are assigned sequentially from 1. Bodies over 1 MiB
 *   get 400 (413 is not documented) and the connection is closed.
 * - getPet: a petId that is not a decimal integer within int64 gets 400 Error (not an int64, so not "an animal that
 *   could not be found"); an absent int64 gets 404. 200 carries `Sunset` with the documented removal date.
 * - Every JSON response is `application/json; charset=utf-8`; every response carries X-RateLimit-*. An unexpected
 *   exception answers 500: unreachable by design, and visible to the tool if it ever happens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contract, operation, type PlanLimits } from '../spec/contract.js';
import { exactInteger, INT64_MAX, INT64_MIN, isLosslessNumber, parseExact } from '../http/lossless.js';
import { faults as catalogue, type FaultId, type FaultSet } from './faults.js';
import type { ReferenceKey } from './keys.js';
import type { Decision, RateLimiter } from './limiter.js';
import type { Pet, PetStore } from './store.js';

export interface HandlerContext {
  readonly store: PetStore;
  readonly limiter: RateLimiter;
  readonly keys: ReadonlyMap<string, ReferenceKey>;
  readonly faults: FaultSet;
  readonly maxBodyBytes: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const STATUSES: ReadonlySet<string> = new Set(contract.petStatuses);
const FREE: PlanLimits = contract.plans.free ?? { requestsPerMinute: 60, requestsPerDay: 1000 };
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const SUNSET = (() => {
  const date = operation('getPet').removalDate;
  return date ? new Date(`${date}T00:00:00Z`).toUTCString() : null;
})();
const utf8 = new TextDecoder('utf-8', { fatal: true });

type Route = { op: 'listPets' | 'createPet' } | { op: 'getPet'; rawId: string } | null;

function route(method: string | undefined, path: string): Route {
  if (path === '/v1/pets') {
    if (method === 'GET') return { op: 'listPets' };
    if (method === 'POST') return { op: 'createPet' };
    return null;
  }
  if (method === 'GET' && path.startsWith('/v1/pets/') && path.length > 9 && path.indexOf('/', 9) < 0) {
    return { op: 'getPet', rawId: path.slice(9) };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses

/** What the handlers ask of the faults. */
type Faults = Pick<FaultSet, 'has'>;

/** A server without faults (the embedded default, load targets) skips some twenty set lookups per request. */
const NO_FAULTS: Faults = { has: () => false };

interface Ctx extends Omit<HandlerContext, 'faults'> {
  readonly faults: Faults;
  readonly now: number;
  readonly res: ServerResponse;
}

function errorBody(ctx: Ctx, status: number, code: string, message: string): string {
  const reported = ctx.faults.has('error-status-mismatch') ? 400 : status;
  return `{"code":${JSON.stringify(code)},"message":${JSON.stringify(message)},"status":${reported}}`;
}

function rateHeaders(ctx: Ctx, h: Record<string, string>, status: number, rl: Decision): void {
  const f = ctx.faults;
  if (f.has('rl-headers-missing')) return;
  if (status >= 400 && f.has('rl-headers-missing-4xx')) return;
  if (status === 429 && f.has('rl-headers-missing-429')) return;
  h['x-ratelimit-limit'] = String(f.has('rl-limit-constant') ? 100 : rl.limit);
  let remaining = f.has('rl-remaining-above-limit') ? rl.dayRemaining : rl.remaining;
  if (status === 429 && f.has('rl-remaining-negative')) remaining = -1;
  h['x-ratelimit-remaining'] = String(remaining);
  let reset: string;
  if (f.has('rl-reset-ms')) reset = String(Math.ceil(rl.resetAt));
  else if (f.has('rl-reset-relative')) reset = String(Math.max(0, Math.ceil((rl.resetAt - ctx.now) / 1000)));
  else if (f.has('rl-reset-fractional')) reset = (rl.resetAt / 1000).toFixed(3);
  else reset = String(Math.ceil(rl.resetAt / 1000));
  h['x-ratelimit-reset'] = reset;
}

function send(
  ctx: Ctx,
  status: number,
  body: string,
  rl: Decision | null,
  extra?: Record<string, string>,
  contentType?: string,
): void {
  const f = ctx.faults;
  let type = contentType ?? JSON_TYPE;
  if (contentType === undefined && status >= 400 && f.has('error-text-plain')) type = 'text/plain; charset=utf-8';
  if (status >= 200 && status < 300 && f.has('success-text-html')) type = 'text/html; charset=utf-8';
  const h: Record<string, string> = { 'content-type': type, 'content-length': String(Buffer.byteLength(body)) };
  if (rl) rateHeaders(ctx, h, status, rl);
  if (extra) Object.assign(h, extra);
  ctx.res.writeHead(status, h);
  ctx.res.end(body);
}

function sendError(
  ctx: Ctx,
  status: number,
  code: string,
  message: string,
  rl: Decision | null,
  extra?: Record<string, string>,
): void {
  send(ctx, status, errorBody(ctx, status, code, message), rl, extra);
}

// A pet's JSON as stored, made once per pet object (the store's pets are frozen; overwrite() makes a new object):
// a list of 100 would otherwise re-serialize 100 pets on every request.
const storedJson = new WeakMap<Pet, string>();

function petJson(ctx: Ctx, p: Pet, name: string = p.name, status: string = p.status): string {
  const f = ctx.faults;
  if (name !== p.name || status !== p.status || f.has('pet-id-string') || f.has('pet-missing-categoryId'))
    return renderPet(ctx, p, name, status);
  let json = storedJson.get(p);
  if (json === undefined) {
    json = renderPet(ctx, p, name, status);
    storedJson.set(p, json);
  }
  return json;
}

function renderPet(ctx: Ctx, p: Pet, name: string, status: string): string {
  const f = ctx.faults;
  const id = f.has('pet-id-string') ? `"${p.id}"` : String(p.id);
  const category = f.has('pet-missing-categoryId') ? '' : `,"categoryId":${p.categoryId}`;
  return `{"id":${id},"name":${JSON.stringify(name)}${category},"status":${JSON.stringify(status)}}`;
}

function sendLimited(ctx: Ctx, rl: Decision): void {
  const f = ctx.faults;
  if (rl.banned && f.has('rl-ban-403')) {
    sendError(ctx, 403, 'banned', 'API key temporarily banned after requests that ignored Retry-After', rl);
    return;
  }
  const status = f.has('rl-503') ? 503 : 429;
  const extra: Record<string, string> = {};
  if (f.has('rl-retry-after-fractional')) extra['retry-after'] = (rl.waitMs / 1000).toFixed(2);
  else if (!f.has('rl-no-retry-after')) extra['retry-after'] = String(rl.retryAfter);
  if (f.has('rl-429-text-plain')) {
    send(ctx, status, 'Too Many Requests', rl, extra, 'text/plain; charset=utf-8');
    return;
  }
  const message = rl.banned
    ? `API key temporarily banned for requests sent while rate limited; retry after ${rl.retryAfter} s`
    : `Rate limit exceeded; retry after ${rl.retryAfter} s`;
  sendError(ctx, status, rl.banned ? 'banned' : 'rate_limited', message, rl, extra);
}

// ---------------------------------------------------------------------------------------------------------------
// Authentication

type Auth = { ok: true; key: ReferenceKey | null } | { ok: false; tokenGiven: boolean };

function authenticate(ctx: Ctx, header: string | undefined, r: Route): Auth {
  const f = ctx.faults;
  if (header === undefined || header.trim() === '') {
    return f.has('auth-create-open') && r?.op === 'createPet'
      ? { ok: true, key: null }
      : { ok: false, tokenGiven: false };
  }
  const value = header.trim();
  const sp = value.indexOf(' ');
  const scheme = sp < 0 ? value : value.slice(0, sp);
  const token = sp < 0 ? '' : value.slice(sp + 1).trim();
  const bearer = f.has('auth-bearer-case-sensitive') ? scheme === 'Bearer' : scheme.toLowerCase() === 'bearer';
  if (!bearer) {
    const key = f.has('auth-wrong-scheme') ? (ctx.keys.get(token) ?? ctx.keys.get(value)) : undefined;
    return key ? { ok: true, key } : { ok: false, tokenGiven: false };
  }
  if (token === '') return { ok: false, tokenGiven: false };
  const key = ctx.keys.get(token);
  if (key) return { ok: true, key };
  return f.has('auth-any-token') ? { ok: true, key: null } : { ok: false, tokenGiven: true };
}

function sendUnauthorized(ctx: Ctx, tokenGiven: boolean, rl: Decision): void {
  const f = ctx.faults;
  const status = f.has('auth-403') ? 403 : 401;
  const extra: Record<string, string> = {};
  if (!f.has('auth-no-www-authenticate')) {
    extra['www-authenticate'] = tokenGiven
      ? 'Bearer realm="petstore", error="invalid_token"'
      : 'Bearer realm="petstore"';
  }
  const message = tokenGiven ? 'API key invalid' : 'API key missing: send Authorization: Bearer <API_KEY>';
  const body = f.has('auth-401-no-body')
    ? ''
    : errorBody(ctx, status, status === 403 ? 'forbidden' : 'unauthorized', message);
  send(ctx, status, body, rl, extra);
}

// ---------------------------------------------------------------------------------------------------------------
// listPets

interface ParsedQuery {
  readonly limits: readonly string[];
  readonly statuses: readonly string[];
}

// Parsed query strings, by their text: a load run repeats a handful of queries. Bounded in entries and in length.
const parsedQueries = new Map<string, ParsedQuery>();
const PARSED_QUERIES_MAX = 256;

function parseQuery(query: string): ParsedQuery {
  let parsed = parsedQueries.get(query);
  if (parsed === undefined) {
    const params = new URLSearchParams(query);
    parsed = { limits: params.getAll('limit'), statuses: params.getAll('status') };
    if (query.length <= 256) {
      if (parsedQueries.size >= PARSED_QUERIES_MAX) parsedQueries.clear();
      parsedQueries.set(query, parsed);
    }
  }
  return parsed;
}

function listPets(ctx: Ctx, query: string, rl: Decision): void {
  const f = ctx.faults;
  let limit = f.has('list-default-50') ? 50 : 20;
  let status: string | undefined;
  if (query !== '') {
    const { limits, statuses } = parseQuery(query);
    if (limits.length > 1 || statuses.length > 1) {
      sendError(ctx, 400, 'invalid_query', 'limit and status may each be given once', rl);
      return;
    }
    const rawLimit = limits[0];
    if (rawLimit !== undefined) {
      if (!/^\d+$/.test(rawLimit)) {
        if (f.has('list-invalid-limit-500')) {
          sendError(ctx, 500, 'internal_error', `cannot read property of NaN (limit=${rawLimit})`, rl);
          return;
        }
        sendError(ctx, 400, 'invalid_query', 'limit must be an integer from 1 to 100', rl);
        return;
      }
      const min = f.has('list-limit-1-rejected') ? 2 : 1;
      const max = f.has('list-limit-100-rejected') ? 99 : 100;
      const n = Number(rawLimit);
      if (n < min || n > max) {
        sendError(ctx, 400, 'invalid_query', 'limit must be an integer from 1 to 100', rl);
        return;
      }
      limit = n;
    }
    status = statuses[0];
    if (status !== undefined && !STATUSES.has(status)) {
      sendError(ctx, 400, 'invalid_query', `status must be one of ${contract.petStatuses.join(', ')}`, rl);
      return;
    }
  }
  const filter = f.has('list-filter-leak') ? undefined : status;
  const max = f.has('list-limit-ignored') ? Infinity : limit;
  const pets = f.has('create-not-listed')
    ? ctx.store.listOlderThan(filter, max, ctx.now - 60_000)
    : ctx.store.list(filter, max);
  let body = `[${pets.map((p) => petJson(ctx, p)).join(',')}]`;
  if (f.has('list-wrapped')) body = `{"items":${body}}`;
  if (f.has('list-truncated-json')) body = body.slice(0, -1);
  if (f.has('list-reset-at-max') && limit === 100) {
    ctx.res.socket?.destroy();
    return;
  }
  if (f.has('list-marks-sold'))
    for (const p of ctx.store.list('pending', Infinity)) ctx.store.overwrite({ ...p, status: 'sold' });
  send(ctx, 200, body, rl);
}

// ---------------------------------------------------------------------------------------------------------------
// createPet

type Body = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'aborted' };

function readBody(req: IncomingMessage, cap: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (b: Body): void => {
      if (done) return;
      done = true;
      resolve(b);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > cap) finish({ kind: 'too-large' });
      else chunks.push(chunk);
    });
    req.on('end', () => finish({ kind: 'ok', bytes: Buffer.concat(chunks, size) }));
    req.on('close', () => finish({ kind: 'aborted' }));
    req.on('error', () => finish({ kind: 'aborted' }));
  });
}

interface NewPetFields {
  readonly name: string;
  readonly categoryId: bigint;
  readonly status: string | undefined;
}

type Validation = { ok: true; pet: NewPetFields } | { ok: false; reason: string };

function toCategoryId(ctx: Ctx, value: unknown): bigint | string {
  const f = ctx.faults;
  if (isLosslessNumber(value)) {
    let n = exactInteger(value);
    const digits = (value as { value: string }).value;
    if (n === null) {
      const truncated = Math.trunc(Number(digits));
      if (!f.has('create-fractional-accepted') || !Number.isFinite(truncated)) return 'categoryId must be an integer';
      n = BigInt(truncated);
    }
    if (n < INT64_MIN || n > INT64_MAX) return 'categoryId must be within int64';
    if (f.has('create-big-categoryid-rejected') && (n > MAX_SAFE || n < -MAX_SAFE)) return 'categoryId is too large';
    if (f.has('create-int64-rounded')) n = BigInt(Number(digits));
    return n;
  }
  if (typeof value === 'string' && f.has('create-categoryid-string-accepted') && /^-?\d{1,19}$/.test(value)) {
    return BigInt(value);
  }
  return 'categoryId must be an integer';
}

function validateNewPet(ctx: Ctx, body: unknown): Validation {
  const f = ctx.faults;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, reason: 'body must be a JSON object' };
  const o = body as Record<string, unknown>;
  let name: string;
  if (!Object.hasOwn(o, 'name')) {
    if (!f.has('create-missing-field-accepted')) return { ok: false, reason: 'name is required' };
    name = '';
  } else if (typeof o.name !== 'string') {
    return { ok: false, reason: 'name must be a string' };
  } else {
    name = o.name;
  }
  let categoryId: bigint;
  if (!Object.hasOwn(o, 'categoryId')) {
    if (!f.has('create-missing-field-accepted')) return { ok: false, reason: 'categoryId is required' };
    categoryId = 0n;
  } else {
    const c = toCategoryId(ctx, o.categoryId);
    if (typeof c === 'string') return { ok: false, reason: c };
    categoryId = c;
  }
  let status: string | undefined;
  if (Object.hasOwn(o, 'status')) {
    const s = o.status;
    const accepted = typeof s === 'string' && (STATUSES.has(s) || f.has('create-invalid-status-accepted'));
    if (!accepted) return { ok: false, reason: `status must be one of ${contract.petStatuses.join(', ')}` };
    status = s;
  }
  return { ok: true, pet: { name, categoryId, status } };
}

/** What the create-400-still-created fault stores out of a rejected body. */
function salvage(body: unknown): NewPetFields | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const o = body as Record<string, unknown>;
  if (typeof o.name !== 'string') return null;
  const c = exactInteger(o.categoryId);
  const categoryId = c !== null && c >= INT64_MIN && c <= INT64_MAX ? c : 0n;
  const status = typeof o.status === 'string' && STATUSES.has(o.status) ? o.status : undefined;
  return { name: o.name, categoryId, status };
}

function clientId(body: unknown): bigint | undefined {
  const id = (body as Record<string, unknown>).id;
  const n = exactInteger(id);
  return n !== null && n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function createPet(ctx: Ctx, req: IncomingMessage, rl: Decision): Promise<void> {
  const f = ctx.faults;
  // The racy id is read before the body arrives, as a naive "count + 1" would be.
  const racyId = f.has('create-duplicate-ids') ? ctx.store.peekNextId() : undefined;
  const read = await readBody(req, ctx.maxBodyBytes);
  if (read.kind === 'aborted') return;
  if (read.kind === 'too-large') {
    sendError(ctx, 400, 'invalid_body', `request body larger than ${ctx.maxBodyBytes} bytes`, rl, {
      connection: 'close',
    });
    req.resume();
    return;
  }
  let body: unknown;
  try {
    body = parseExact(utf8.decode(read.bytes));
  } catch (e) {
    if (f.has('create-malformed-500')) {
      sendError(ctx, 500, 'internal_error', 'Unexpected token in JSON', rl);
      return;
    }
    const why = e instanceof Error ? e.message : String(e);
    sendError(ctx, 400, 'invalid_body', `body is not UTF-8 JSON: ${why}`, rl);
    return;
  }
  const v = validateNewPet(ctx, body);
  if (!v.ok) {
    const kept = f.has('create-400-still-created') ? salvage(body) : null;
    if (kept) ctx.store.add({ ...kept, status: kept.status ?? 'available' }, Date.now());
    sendError(ctx, 400, 'invalid_body', v.reason, rl);
    return;
  }
  let { name } = v.pet;
  if (f.has('create-name-nfc')) name = name.normalize('NFC');
  if (f.has('create-name-emoji-stripped')) name = name.replace(/[\u{10000}-\u{10FFFF}]/gu, '');
  if (f.has('create-name-trimmed')) name = name.trim();
  const sent = v.pet.status ?? 'available';
  const stored = f.has('create-status-not-persisted') || f.has('create-status-echo-only') ? 'available' : sent;
  let id: bigint | undefined;
  if (racyId !== undefined) {
    await delay(30);
    id = racyId;
  }
  if (f.has('create-client-id-honoured')) id = clientId(body) ?? id;
  const pet = ctx.store.add({ name, categoryId: v.pet.categoryId, status: stored }, Date.now(), id);
  const status = f.has('create-200') ? 200 : f.has('create-202') ? 202 : 201;
  send(ctx, status, petJson(ctx, pet, pet.name, f.has('create-status-echo-only') ? sent : pet.status), rl);
}

// ---------------------------------------------------------------------------------------------------------------
// getPet

function getPet(ctx: Ctx, rawId: string, rl: Decision): void {
  const f = ctx.faults;
  let text: string;
  try {
    text = decodeURIComponent(rawId);
  } catch {
    text = rawId;
  }
  const id = /^-?\d+$/.test(text) ? BigInt(text) : null;
  if (id === null || id < INT64_MIN || id > INT64_MAX) {
    if (f.has('get-invalid-id-500')) {
      sendError(ctx, 500, 'internal_error', 'cannot convert petId to BigInt', rl);
      return;
    }
    sendError(ctx, 400, 'invalid_pet_id', 'petId must be an integer within int64', rl);
    return;
  }
  const pet = f.has('get-not-retrievable') || (f.has('get-odd-404') && id % 2n !== 0n) ? undefined : ctx.store.get(id);
  if (!pet) {
    if (f.has('get-absent-500')) {
      sendError(ctx, 500, 'internal_error', 'cannot read properties of undefined', rl);
      return;
    }
    if (f.has('get-absent-200-null')) {
      send(ctx, 200, 'null', rl);
      return;
    }
    sendError(ctx, 404, 'not_found', `no pet with id ${id}`, rl);
    return;
  }
  const name = f.has('get-wrong-name') ? `${pet.name} (deprecated)` : pet.name;
  send(ctx, 200, petJson(ctx, pet, name), rl, SUNSET ? { sunset: SUNSET } : undefined);
}

// ---------------------------------------------------------------------------------------------------------------
// Dispatch

function limitsOf(ctx: Ctx, key: ReferenceKey): PlanLimits {
  return ctx.faults.has('rl-free-numbers') ? FREE : key.limits;
}

function handle(base: HandlerContext, faults: Faults, req: IncomingMessage, res: ServerResponse): void | Promise<void> {
  const ctx = withResponse(base, faults, res);
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const r = route(req.method, path);
  const auth = authenticate(ctx, req.headers.authorization, r);
  if (!auth.ok) {
    sendUnauthorized(ctx, auth.tokenGiven, ctx.limiter.take(anonymous(req), FREE, ctx.now, false));
    return;
  }
  // A key served under an auth fault (none or unknown) is counted in the anonymous bucket, never enforced.
  const rl = auth.key
    ? ctx.limiter.take(auth.key.key, limitsOf(ctx, auth.key), ctx.now, true, r?.op)
    : ctx.limiter.take(anonymous(req), FREE, ctx.now, false);
  if (!rl.allowed) return sendLimited(ctx, rl);

  if (r === null) return sendError(ctx, 404, 'not_found', `no route ${req.method ?? ''} ${path}`, rl);
  if (r.op === 'listPets') return listPets(ctx, query, rl);
  if (r.op === 'getPet') return getPet(ctx, r.rawId, rl);
  return createPet(ctx, req, rl).catch((e: unknown) => internalError(ctx, e, rl));
}

/** The anonymous bucket of a client (by remote address), built only when needed. */
function anonymous(req: IncomingMessage): string {
  return `anon:${req.socket.remoteAddress ?? ''}`;
}

function withResponse(base: HandlerContext, faults: Faults, res: ServerResponse): Ctx {
  const { store, limiter, keys, maxBodyBytes } = base;
  return { store, limiter, keys, faults, maxBodyBytes, now: Date.now(), res };
}

function internalError(ctx: Ctx, e: unknown, rl: Decision | null): void {
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  const why = e instanceof Error ? e.message : String(e);
  sendError(ctx, 500, 'internal_error', `unexpected: ${why}`, rl);
}

export function createHandler(ctx: HandlerContext): (req: IncomingMessage, res: ServerResponse) => void {
  const faults: Faults = catalogue.some((f) => ctx.faults.has(f.id as FaultId)) ? ctx.faults : NO_FAULTS;
  return (req, res) => {
    req.on('error', () => {}); // a client that goes away must not crash the server
    try {
      const p = handle(ctx, faults, req, res);
      if (p) p.catch((e: unknown) => internalError(withResponse(ctx, faults, res), e, null));
    } catch (e) {
      internalError(withResponse(ctx, faults, res), e, null);
    }
  };
}
