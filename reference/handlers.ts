/**
 * The three operations of the reference Pet Store on node:http, plus authentication and rate limiting: conformant
 * behaviour only. Every decision a fault may change goes through a named seam (`HandlerSeams`); `conformant` holds
 * the behaviour below, and faults.ts replaces or wraps one seam per fault.
 *
 * Documented choices where the spec leaves the answer open (a conformant server may choose otherwise):
 * - Order of processing: authenticate, then rate-limit, then route. An unknown path, or a known path with another
 *   method (405 is not documented), gets 404 Error JSON, after authentication and counted against the key. Paths are
 *   matched exactly: /V1/PETS, /v1/pets/ and //pets are unknown paths (the client's URL rules resolve dot segments).
 * - The Accept header is not read: every answer is JSON (406 is not documented).
 * - 401 responses carry rate-limit headers from a per-client (remote address) anonymous bucket with the Free plan's
 *   limits; it is reported, never enforced. `WWW-Authenticate: Bearer realm="petstore"`, with error="invalid_token"
 *   when a bearer token was given. The scheme name is case-insensitive (RFC 9110 §11.1). The key is compared exactly:
 *   only HTTP's optional whitespace around the value is dropped, and two Authorization lines are one field combined
 *   ("Bearer KEY, Bearer other", RFC 9110 §5.3), which is no key.
 * - listPets: limit must be a decimal integer 1..100 (default 20) and status one of the enum; anything else, or a
 *   repeated parameter, gets 400 Error. Unknown query parameters are ignored. Pets come oldest first (newest first
 *   when the server is started so).
 * - createPet: the body must be UTF-8 JSON whatever the Content-Type says (any media type is accepted when the bytes
 *   parse). name is any string, including empty (the spec gives no limits). categoryId must be a JSON integer within
 *   int64, judged on its exact digits: 1.0 and 1e3 count as integers (JSON Schema semantics) and are stored as 1 and
 *   1000; 1.5, strings, null and out-of-range values get 400. A client-supplied id and unknown fields are ignored;
 *   a key repeated with different values, or bytes that are not UTF-8, get 400 (a UTF-8 byte order mark is dropped;
 *   form-encoded, multipart or UTF-16 bytes are not JSON: 400). JSON nested deeper than the parser's stack gets 400.
 *   status omitted is stored and returned as "available". Ids are assigned sequentially from the store's first id.
 *   Bodies over 1 MiB get 400 (413 is not documented) once they are read to their end (up to 32 MiB; beyond, the
 *   connection is closed).
 * - getPet: a petId that is not a decimal integer within int64 gets 400 Error (not an int64, so not "an animal that
 *   could not be found"); an absent int64 gets 404. 200 carries `Sunset` with the documented removal date.
 * - Every JSON response is `application/json; charset=utf-8`; every response carries X-RateLimit-*. An unexpected
 *   exception answers 500: unreachable by design, and visible to the tool if it ever happens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exactInteger, INT64_MAX, INT64_MIN, isLosslessNumber, parseExact } from '../http/lossless.js';
import { contract, operation, type PlanLimits } from '../spec/contract.js';
import type { ReferenceClock } from './clock.js';
import type { ReferenceKey } from './keys.js';
import type { Decision, RateLimiter } from './limiter.js';
import type { Pet, PetStore } from './store.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const STATUSES: ReadonlySet<string> = new Set(contract.petStatuses);
export const FREE: PlanLimits = contract.plans.free ?? { requestsPerMinute: 60, requestsPerDay: 1000 };
const SUNSET = (() => {
  const date = operation('getPet').removalDate;
  return date ? new Date(`${date}T00:00:00Z`).toUTCString() : null;
})();
const utf8 = new TextDecoder('utf-8', { fatal: true });

// ---------------------------------------------------------------------------------------------------------------
// The vocabulary of the seams

export type Route =
  | { readonly op: 'listPets' | 'createPet' }
  | { readonly op: 'getPet'; readonly rawId: string }
  | null;

export type Auth =
  | {
      readonly ok: true;
      readonly key: ReferenceKey | null;
      /** The counter the limiter keys the request on: the key's own when absent (conformant: every form counts on it). */
      readonly counter?: string;
    }
  | { readonly ok: false; readonly tokenGiven: boolean };

/** What a handler answers, before it is written. */
export interface Reply {
  readonly status: number;
  /** The body as sent; ignored when `error` is given (the errorBody seam makes that body). */
  readonly body?: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** Default: the contentType seam's choice. */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Close the connection instead of answering. */
  readonly drop?: boolean;
}

export interface ErrorFields {
  readonly code: string;
  readonly message: string;
  readonly status: number;
}

/** The three X-RateLimit-* values, as sent. */
export interface RateHeaderValues {
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
}

/** When a key is banned (after how many strikes; undefined: the server's banAfter) and with which status. */
export interface BanPolicy {
  readonly after: number | undefined;
  readonly status: number;
}

export interface ListQuery {
  readonly limit: number;
  readonly status: string | undefined;
}

export type QueryProblem =
  | { readonly kind: 'repeated' }
  | { readonly kind: 'limit-not-integer'; readonly raw: string }
  | { readonly kind: 'limit-out-of-range'; readonly raw: string }
  | { readonly kind: 'status-unknown'; readonly raw: string };

export type BodyProblem =
  | { readonly kind: 'malformed'; readonly why: string }
  | { readonly kind: 'invalid'; readonly body: unknown; readonly reason: string }
  | { readonly kind: 'too-large'; readonly limit: number; readonly drained: boolean };

/** Which operation a request is for, and whether the authentication layer guards its path (it guards every route). */
export interface RouteMatch {
  readonly route: Route;
  readonly guarded: boolean;
}

export interface NewPetFields {
  readonly name: string;
  readonly categoryId: bigint;
  readonly status: string | undefined;
}

export type Validation =
  | { readonly ok: true; readonly pet: NewPetFields }
  | { readonly ok: false; readonly reason: string };

/** A pet as shown in a body: the stored fields, without the store's bookkeeping. */
export interface PetFields {
  readonly id: bigint;
  readonly name: string;
  readonly categoryId: bigint;
  readonly status: string;
}

/** A Pet body's members in order, each value as JSON text. */
export type PetMembers = Readonly<Record<string, string>>;

/** A valid new pet as it is about to be stored (status defaulted; id undefined: the store assigns the next). */
export interface NewPetRecord {
  readonly id: bigint | undefined;
  readonly name: string;
  readonly categoryId: bigint;
  readonly status: string;
}

/** What a create stored, and what its 201 shows. */
export interface Created {
  readonly stored: Pet;
  readonly shown: PetFields;
}

/** The moment a create's id is decided: called when the request starts, answered once its body is valid. */
export type IdChoice = (body: unknown) => bigint | undefined | Promise<bigint | undefined>;

/**
 * The hook points of the handlers. Each is a small decision with its conformant answer in `conformant`; a fault
 * replaces or wraps exactly one of them (faults.ts).
 */
export interface HandlerSeams {
  /** The operation a method and path (without the query) name; null: none. */
  readonly route: (method: string | undefined, path: string) => RouteMatch;
  /** Who sent the request: a key, nobody, or (under auth faults) someone served without a key. */
  readonly authenticate: (ctx: Ctx, header: string | undefined, route: Route) => Auth;
  /** The answer to a request without a valid key. */
  readonly unauthorized: (ctx: Ctx, tokenGiven: boolean) => Reply;
  /** The limits a key is held to. */
  readonly planLimits: (ctx: Ctx, key: ReferenceKey) => PlanLimits;
  readonly ban: BanPolicy;
  /** The answer to a request the limiter refused (banned or over a limit). */
  readonly limited: (ctx: Ctx, rl: Decision) => Reply;
  /** Whether a response of this status carries the X-RateLimit-* headers. */
  readonly rateHeadersOn: (status: number) => boolean;
  readonly rateHeaders: (ctx: Ctx, status: number, rl: Decision) => RateHeaderValues;
  /** The X-RateLimit-Reset value. */
  readonly resetHeader: (ctx: Ctx, rl: Decision) => string;
  readonly errorBody: (e: ErrorFields) => string;
  readonly contentType: (reply: Reply) => string;
  readonly petMembers: (pet: PetFields) => PetMembers;

  readonly defaultLimit: number;
  readonly limitRange: { readonly min: number; readonly max: number };
  readonly rejectQuery: (ctx: Ctx, problem: QueryProblem) => Reply;
  /** The query as applied to the store (the parsed one, unless a fault ignores part of it). */
  readonly listQuery: (query: ListQuery) => ListQuery;
  readonly listSelection: (ctx: Ctx, query: ListQuery) => readonly Pet[];
  /** The answer to a list request, once its body is made (`query` as the client asked). */
  readonly listed: (ctx: Ctx, query: ListQuery, reply: Reply) => Reply;

  readonly chooseId: (ctx: Ctx) => IdChoice;
  /**
   * The request body as a value, from its bytes and Content-Type; throws a SyntaxError (or TypeError) for a body that
   * is not UTF-8 JSON. Anything else it throws is a crash (a 500).
   */
  readonly parseBody: (ctx: Ctx, bytes: Buffer, contentType: string | undefined) => unknown;
  readonly rejectBody: (ctx: Ctx, problem: BodyProblem) => Reply;
  readonly validate: (body: unknown) => Validation;
  readonly storePet: (ctx: Ctx, pet: NewPetRecord) => Created;
  readonly createdStatus: number;

  readonly invalidId: (ctx: Ctx, rawId: string) => Reply;
  readonly lookup: (ctx: Ctx, id: bigint) => PetFields | undefined;
  readonly notFound: (ctx: Ctx, id: bigint) => Reply;
}

export interface HandlerContext {
  readonly store: PetStore;
  readonly limiter: RateLimiter;
  readonly keys: ReadonlyMap<string, ReferenceKey>;
  readonly seams: HandlerSeams;
  readonly maxBodyBytes: number;
  /** The server's time (clock.ts): the wall clock, or a test's. */
  readonly clock: ReferenceClock;
  /** How answers are timed (server.ts: countAfterAnswer, answerJitterMs); conformant either way. */
  readonly answers?: AnswerTiming;
  /** Above 0: a key's count is read, then written back this many ms later (LimiterDefects.lostIncrementsMs or dayLostIncrementsMs). */
  readonly lostIncrementsMs?: number;
}

export interface AnswerTiming {
  /** A request counts in the Remaining that answers report only once it is answered. */
  readonly countAfter: boolean;
  /** Each answer is held back a random 0 to this many ms after the limiter's decision. */
  readonly jitterMs: number;
}

/** Per key, the requests the limiter let through whose answer has not been sent yet (countAfter). */
const answering = new WeakMap<HandlerContext, Map<string, number>>();

/**
 * Under countAfter: the request is being answered until its response is finished (or its connection closed); the
 * Remaining it reports leaves out the key's other requests being answered, as a limiter that counts after answering.
 */
function countedAfterAnswer(ctx: Ctx, base: HandlerContext, key: string, rl: Decision): Decision {
  let open = answering.get(base);
  if (!open) {
    open = new Map();
    answering.set(base, open);
  }
  const others = open.get(key) ?? 0;
  open.set(key, others + 1);
  ctx.res.once('close', () => {
    const n = (open.get(key) ?? 1) - 1;
    if (n <= 0) open.delete(key);
    else open.set(key, n);
  });
  return { ...rl, remaining: Math.min(rl.limit, rl.remaining + others) };
}

/** One request's view: the server's parts, the time it arrived, its response. */
export interface Ctx extends HandlerContext {
  readonly now: number;
  readonly res: ServerResponse;
}

export const errorReply = (status: number, code: string, message: string, headers?: Record<string, string>): Reply => ({
  status,
  error: { code, message },
  ...(headers ? { headers } : {}),
});

// ---------------------------------------------------------------------------------------------------------------
// Conformant behaviour, seam by seam

function authenticate(ctx: Ctx, header: string | undefined): Auth {
  if (header === undefined || header.trim() === '') return { ok: false, tokenGiven: false };
  const { scheme, token } = splitAuthorization(header);
  if (scheme.toLowerCase() !== 'bearer' || token === '') return { ok: false, tokenGiven: false };
  const key = ctx.keys.get(token);
  return key ? { ok: true, key } : { ok: false, tokenGiven: true };
}

/**
 * "Bearer KEY" → scheme and token (the token is '' when there is none). Only HTTP's optional whitespace (space, tab)
 * is trimmed: a no-break space after the key is part of the token, and no key.
 */
export function splitAuthorization(header: string): { scheme: string; token: string; value: string } {
  const value = trimOws(header);
  const sp = value.indexOf(' ');
  return { value, scheme: sp < 0 ? value : value.slice(0, sp), token: sp < 0 ? '' : trimOws(value.slice(sp + 1)) };
}

const trimOws = (s: string): string => s.replace(/^[ \t]+|[ \t]+$/g, '');

/**
 * The Authorization field as the request carries it: two header lines are combined as HTTP combines a repeated field
 * (RFC 9110 §5.3), "Bearer KEY, Bearer other", which is no key; Node's `headers` would keep the first line only.
 */
function authorizationField(req: IncomingMessage): string | undefined {
  const lines = req.headersDistinct.authorization;
  return lines !== undefined && lines.length > 1 ? lines.join(', ') : req.headers.authorization;
}

function unauthorized(_ctx: Ctx, tokenGiven: boolean): Reply {
  return tokenGiven
    ? errorReply(401, 'unauthorized', 'API key invalid', {
        'www-authenticate': 'Bearer realm="petstore", error="invalid_token"',
      })
    : errorReply(401, 'unauthorized', 'API key missing: send Authorization: Bearer <API_KEY>', {
        'www-authenticate': 'Bearer realm="petstore"',
      });
}

function limited(ctx: Ctx, rl: Decision): Reply {
  const retry = { 'retry-after': String(rl.retryAfter) };
  if (rl.banned) {
    const message = `API key temporarily banned for requests sent while rate limited; retry after ${rl.retryAfter} s`;
    return errorReply(ctx.seams.ban.status, 'banned', message, retry);
  }
  return errorReply(429, 'rate_limited', `Rate limit exceeded; retry after ${rl.retryAfter} s`, retry);
}

function rateHeaders(ctx: Ctx, _status: number, rl: Decision): RateHeaderValues {
  return { limit: String(rl.limit), remaining: String(rl.remaining), reset: ctx.seams.resetHeader(ctx, rl) };
}

function errorBody(e: ErrorFields): string {
  return `{"code":${JSON.stringify(e.code)},"message":${JSON.stringify(e.message)},"status":${e.status}}`;
}

function petMembers(p: PetFields): PetMembers {
  return {
    id: String(p.id),
    name: JSON.stringify(p.name),
    categoryId: String(p.categoryId),
    status: JSON.stringify(p.status),
  };
}

function rejectQuery(_ctx: Ctx, p: QueryProblem): Reply {
  if (p.kind === 'repeated') return errorReply(400, 'invalid_query', 'limit and status may each be given once');
  if (p.kind === 'status-unknown') {
    return errorReply(400, 'invalid_query', `status must be one of ${contract.petStatuses.join(', ')}`);
  }
  return errorReply(400, 'invalid_query', 'limit must be an integer from 1 to 100');
}

function rejectBody(_ctx: Ctx, p: BodyProblem): Reply {
  if (p.kind === 'malformed') return errorReply(400, 'invalid_body', `body is not UTF-8 JSON: ${p.why}`);
  if (p.kind === 'too-large')
    return errorReply(
      400,
      'invalid_body',
      `request body larger than ${p.limit} bytes`,
      p.drained ? undefined : { connection: 'close' },
    );
  return errorReply(400, 'invalid_body', p.reason);
}

/** Whatever the Content-Type says, the bytes must be UTF-8 JSON (a byte order mark is dropped, as the decoder does). */
function parseBody(_ctx: Ctx, bytes: Buffer, _contentType: string | undefined): unknown {
  const text = utf8.decode(bytes);
  try {
    return parseExact(text);
  } catch (e) {
    // The parser recurses: nesting deeper than the stack allows is refused as a body, never a crash.
    if (e instanceof RangeError) throw new SyntaxError('JSON nested too deeply');
    throw e;
  }
}

/** The exact paths of the three operations; every route is guarded by authentication. */
function route(method: string | undefined, path: string): RouteMatch {
  return { route: exactRoute(method, path), guarded: true };
}

function toCategoryId(value: unknown): bigint | string {
  if (!isLosslessNumber(value)) return 'categoryId must be an integer';
  const n = exactInteger(value);
  if (n === null) return 'categoryId must be an integer';
  if (n < INT64_MIN || n > INT64_MAX) return 'categoryId must be within int64';
  return n;
}

function validate(body: unknown): Validation {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { ok: false, reason: 'body must be a JSON object' };
  const o = body as Record<string, unknown>;
  if (!Object.hasOwn(o, 'name')) return { ok: false, reason: 'name is required' };
  if (typeof o.name !== 'string') return { ok: false, reason: 'name must be a string' };
  if (!Object.hasOwn(o, 'categoryId')) return { ok: false, reason: 'categoryId is required' };
  const categoryId = toCategoryId(o.categoryId);
  if (typeof categoryId === 'string') return { ok: false, reason: categoryId };
  let status: string | undefined;
  if (Object.hasOwn(o, 'status')) {
    if (typeof o.status !== 'string' || !STATUSES.has(o.status))
      return { ok: false, reason: `status must be one of ${contract.petStatuses.join(', ')}` };
    status = o.status;
  }
  return { ok: true, pet: { name: o.name, categoryId, status } };
}

const noId: IdChoice = () => undefined;

export const conformant: HandlerSeams = Object.freeze({
  route,
  authenticate,
  unauthorized,
  planLimits: (_ctx: Ctx, key: ReferenceKey) => key.limits,
  ban: Object.freeze({ after: undefined, status: 429 }),
  limited,
  rateHeadersOn: () => true,
  rateHeaders,
  resetHeader: (_ctx: Ctx, rl: Decision) => String(Math.ceil(rl.resetAt / 1000)),
  errorBody,
  contentType: (reply: Reply) => reply.contentType ?? JSON_TYPE,
  petMembers,

  defaultLimit: 20,
  limitRange: Object.freeze({ min: 1, max: 100 }),
  rejectQuery,
  listQuery: (q: ListQuery) => q,
  listSelection: (ctx: Ctx, q: ListQuery) => ctx.store.list(q.status, q.limit),
  listed: (_ctx: Ctx, _q: ListQuery, reply: Reply) => reply,

  chooseId: () => noId,
  parseBody,
  rejectBody,
  validate,
  storePet: (ctx: Ctx, { id, ...fields }: NewPetRecord) => {
    const stored = ctx.store.add(fields, ctx.now, id);
    return { stored, shown: stored };
  },
  createdStatus: 201,

  invalidId: () => errorReply(400, 'invalid_pet_id', 'petId must be an integer within int64'),
  lookup: (ctx: Ctx, id: bigint) => ctx.store.get(id),
  notFound: (_ctx: Ctx, id: bigint) => errorReply(404, 'not_found', `no pet with id ${id}`),
});

// ---------------------------------------------------------------------------------------------------------------
// Writing a reply

function send(ctx: Ctx, reply: Reply, rl: Decision | null): void {
  const { seams, res } = ctx;
  if (reply.drop) {
    res.socket?.destroy();
    return;
  }
  const body = reply.error ? seams.errorBody({ ...reply.error, status: reply.status }) : (reply.body ?? '');
  const h: Record<string, string> = {
    'content-type': seams.contentType(reply),
    'content-length': String(Buffer.byteLength(body)),
  };
  if (rl && seams.rateHeadersOn(reply.status)) {
    const v = seams.rateHeaders(ctx, reply.status, rl);
    h['x-ratelimit-limit'] = v.limit;
    h['x-ratelimit-remaining'] = v.remaining;
    h['x-ratelimit-reset'] = v.reset;
  }
  if (reply.headers) Object.assign(h, reply.headers);
  res.writeHead(reply.status, h);
  res.end(body);
}

// A pet's JSON as stored, made once per pet object (the store's pets are frozen; a new version is a new object): a
// list of 100 would otherwise re-serialize 100 pets on every request. Only the conformant rendering is cached.
const storedJson = new WeakMap<PetFields, string>();

function petJson(ctx: Ctx, p: PetFields): string {
  const cached = ctx.seams.petMembers === petMembers;
  let json = cached ? storedJson.get(p) : undefined;
  if (json === undefined) {
    const members = ctx.seams.petMembers(p);
    json = `{${Object.keys(members)
      .map((k) => `${JSON.stringify(k)}:${members[k]}`)
      .join(',')}}`;
    if (cached) storedJson.set(p, json);
  }
  return json;
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

/** The list query a client asked for, or what is wrong with it. */
function readListQuery(ctx: Ctx, query: string): ListQuery | QueryProblem {
  const { seams } = ctx;
  if (query === '') return { limit: seams.defaultLimit, status: undefined };
  const { limits, statuses } = parseQuery(query);
  if (limits.length > 1 || statuses.length > 1) return { kind: 'repeated' };
  let limit = seams.defaultLimit;
  const rawLimit = limits[0];
  if (rawLimit !== undefined) {
    if (!/^\d+$/.test(rawLimit)) return { kind: 'limit-not-integer', raw: rawLimit };
    limit = Number(rawLimit);
    if (limit < seams.limitRange.min || limit > seams.limitRange.max)
      return { kind: 'limit-out-of-range', raw: rawLimit };
  }
  const status = statuses[0];
  if (status !== undefined && !STATUSES.has(status)) return { kind: 'status-unknown', raw: status };
  return { limit, status };
}

function listPets(ctx: Ctx, query: string, rl: Decision): void {
  const { seams } = ctx;
  const q = readListQuery(ctx, query);
  if ('kind' in q) {
    send(ctx, seams.rejectQuery(ctx, q), rl);
    return;
  }
  const pets = seams.listSelection(ctx, seams.listQuery(q));
  const body = `[${pets.map((p) => petJson(ctx, p)).join(',')}]`;
  send(ctx, seams.listed(ctx, q, { status: 200, body }), rl);
}

// ---------------------------------------------------------------------------------------------------------------
// createPet

type Body = { kind: 'ok'; bytes: Buffer } | { kind: 'too-large'; drained: boolean } | { kind: 'aborted' };

/**
 * A body over the cap is read to its end (and dropped) before the 400, up to this many times the cap: answering while
 * the client still sends makes its upload fail (and a proxy in between answer 502). Beyond it the connection closes.
 */
const DRAIN_FACTOR = 32;

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
      if (size > cap * DRAIN_FACTOR) finish({ kind: 'too-large', drained: false });
      else if (size <= cap) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () =>
      finish(size > cap ? { kind: 'too-large', drained: true } : { kind: 'ok', bytes: Buffer.concat(chunks, size) }),
    );
    req.on('close', () => finish({ kind: 'aborted' }));
    req.on('error', () => finish({ kind: 'aborted' }));
  });
}

async function createPet(ctx: Ctx, req: IncomingMessage, rl: Decision): Promise<void> {
  const { seams } = ctx;
  const choice = seams.chooseId(ctx);
  const read = await readBody(req, ctx.maxBodyBytes);
  if (read.kind === 'aborted') return;
  if (read.kind === 'too-large') {
    send(ctx, seams.rejectBody(ctx, { kind: 'too-large', limit: ctx.maxBodyBytes, drained: read.drained }), rl);
    req.resume();
    return;
  }
  let body: unknown;
  try {
    body = seams.parseBody(ctx, read.bytes, req.headers['content-type']);
  } catch (e) {
    // A parser's refusal is a 400; anything else it throws (a stack overflow, a bug) is a crash, answered 500.
    if (!(e instanceof SyntaxError || e instanceof TypeError)) throw e;
    return send(ctx, seams.rejectBody(ctx, { kind: 'malformed', why: e.message }), rl);
  }
  const v = seams.validate(body);
  if (!v.ok) return send(ctx, seams.rejectBody(ctx, { kind: 'invalid', body, reason: v.reason }), rl);
  const id = await choice(body);
  const { name, categoryId } = v.pet;
  const { shown } = seams.storePet(ctx, { id, name, categoryId, status: v.pet.status ?? 'available' });
  send(ctx, { status: seams.createdStatus, body: petJson(ctx, shown) }, rl);
}

// ---------------------------------------------------------------------------------------------------------------
// getPet

function getPet(ctx: Ctx, rawId: string, rl: Decision): void {
  const { seams } = ctx;
  let text: string;
  try {
    text = decodeURIComponent(rawId);
  } catch {
    text = rawId;
  }
  const id = /^-?\d+$/.test(text) ? BigInt(text) : null;
  if (id === null || id < INT64_MIN || id > INT64_MAX) {
    send(ctx, seams.invalidId(ctx, rawId), rl);
    return;
  }
  const pet = seams.lookup(ctx, id);
  if (pet) send(ctx, { status: 200, body: petJson(ctx, pet), ...(SUNSET ? { headers: { sunset: SUNSET } } : {}) }, rl);
  else send(ctx, seams.notFound(ctx, id), rl);
}

// ---------------------------------------------------------------------------------------------------------------
// Dispatch

function exactRoute(method: string | undefined, path: string): Route {
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

// One shape for every request's view (a spread of `base` costs a map transition per request on the hot path).
function requestContext(base: HandlerContext, res: ServerResponse): Ctx {
  const { store, limiter, keys, seams, maxBodyBytes, clock } = base;
  return { store, limiter, keys, seams, maxBodyBytes, clock, now: clock.now(), res };
}

function handle(base: HandlerContext, req: IncomingMessage, res: ServerResponse): void | Promise<void> {
  const ctx = requestContext(base, res);
  const { seams } = ctx;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const { route: r, guarded } = seams.route(req.method, path);
  // A path the authentication layer does not guard (under a router fault) is served as if no key were needed.
  const auth: Auth = guarded ? seams.authenticate(ctx, authorizationField(req), r) : { ok: true, key: null };
  if (!auth.ok) {
    const rl = ctx.limiter.take(anonymous(req), FREE, ctx.now, false);
    return send(ctx, seams.unauthorized(ctx, auth.tokenGiven), rl);
  }
  const lag = base.lostIncrementsMs ?? 0;
  if (auth.key && lag > 0) {
    // The count read, the request decided and counted once an await has passed (a store's round trip).
    const write = ctx.limiter.readThenWrite(auth.key.key, seams.planLimits(ctx, auth.key), r?.op);
    const key = auth.key;
    return new Promise<void>((resolve) => setTimeout(resolve, lag)).then(() =>
      respond(base, ctx, req, path, query, r, key, write(ctx.now)),
    );
  }
  // A request served without a key (under an auth fault) is counted in the anonymous bucket, never enforced.
  const taken = auth.key
    ? ctx.limiter.take(auth.counter ?? auth.key.key, seams.planLimits(ctx, auth.key), ctx.now, true, r?.op)
    : ctx.limiter.take(anonymous(req), FREE, ctx.now, false);
  return respond(base, ctx, req, path, query, r, auth.key, taken);
}

/** Answers a request once the limiter has decided it (`taken`). */
function respond(
  base: HandlerContext,
  ctx: Ctx,
  req: IncomingMessage,
  path: string,
  query: string,
  r: Route,
  key: ReferenceKey | null,
  taken: Decision,
): void | Promise<void> {
  const { seams } = ctx;
  const timing = base.answers;
  const rl = timing?.countAfter && key && taken.allowed ? countedAfterAnswer(ctx, base, key.key, taken) : taken;
  const answer = (): void | Promise<void> => {
    if (!rl.allowed) return send(ctx, seams.limited(ctx, rl), rl);
    if (r === null) return send(ctx, errorReply(404, 'not_found', `no route ${req.method ?? ''} ${path}`), rl);
    if (r.op === 'listPets') return listPets(ctx, query, rl);
    if (r.op === 'getPet') return getPet(ctx, r.rawId, rl);
    return createPet(ctx, req, rl).catch((e: unknown) => internalError(ctx, e, rl));
  };
  if (!timing?.jitterMs) return answer();
  // Held through the clock even when the draw is 0 ms: a clock that holds answers (a test's) sees every one of them.
  const hold = Math.floor(Math.random() * timing.jitterMs);
  return new Promise<void>((resolve) => ctx.clock.later(hold, resolve)).then(answer);
}

/** The anonymous bucket of a client (by remote address). */
function anonymous(req: IncomingMessage): string {
  return `anon:${req.socket.remoteAddress ?? ''}`;
}

function internalError(ctx: Ctx, e: unknown, rl: Decision | null): void {
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  const why = e instanceof Error ? e.message : String(e);
  send(ctx, errorReply(500, 'internal_error', `unexpected: ${why}`), rl);
}

export function createHandler(base: HandlerContext): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.on('error', () => {}); // a client that goes away must not crash the server
    try {
      const p = handle(base, req, res);
      if (p) p.catch((e: unknown) => internalError(requestContext(base, res), e, null));
    } catch (e) {
      internalError(requestContext(base, res), e, null);
    }
  };
}
