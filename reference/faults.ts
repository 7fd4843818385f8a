/**
 * The fault catalogue of the reference server. Each fault is ONE defect: a modifier of one seam of the conformant
 * server (seams.ts), switched on by id. It names the check (its id in checks/registry.ts) that must report it and the
 * suite that exercises it; the meta-tests run that suite against the server with the fault on and expect a finding
 * of `catches`. Gaps of the spec (default status, name limits, order, invalid query handling) are never faults: a
 * server may choose either way there.
 */
import { exactInteger, INT64_MAX, INT64_MIN, isLosslessNumber, LosslessNumber } from '../http/lossless.js';
import { errorReply, FREE, type Reply, STATUSES, splitAuthorization, type NewPetRecord } from './handlers.js';
import type { PlanLimits } from '../spec/contract.js';
import type { Finding } from '../checks/check.js';
import type { CheckId } from '../checks/check-id.js';
import type { ReferenceKey } from './keys.js';
import { composeSeams, type Modifier, replace, type Seams, wrap } from './seams.js';

export interface Fault {
  readonly id: string;
  readonly description: string;
  /** The check id that must report a violation (or a warning, for checks that warn): a renamed check fails tsc here. */
  readonly catches: CheckId;
  /**
   * Which suite exercises it: 'auth'|'listPets'|'createPet'|'getPet'|'stateful'|'robustness'|'rate-limit'|'quota', or
   * 'preflight': the run's first request (GET /pets, before any suite), so only the command meets it.
   */
  readonly suite: string;
  /** What the fault changes: one seam, wrapped or replaced. */
  readonly apply: Modifier;
}

const TEXT = 'text/plain; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
/** Every name a plain object answers to without owning it (constructor, __proto__, toString, valueOf…). */
const PLAIN_OBJECT: object = {};

/** The nesting a recursive walk of typical stack frames survives before the stack overflows. */
const STACK_DEPTH = 1000;

/** A recursive walk with no depth limit, as a naive sanitizer or validator does: past STACK_DEPTH, the stack is gone. */
function walkRecursively(value: unknown, depth: number): void {
  if (depth > STACK_DEPTH) throw new RangeError('Maximum call stack size exceeded');
  if (value === null || typeof value !== 'object' || isLosslessNumber(value)) return;
  for (const v of Object.values(value)) walkRecursively(v, depth + 1);
}

/** The fields of a NewPet, as a validator reads them off a body. */
const NEW_PET_FIELDS = ['name', 'categoryId', 'status'] as const;

/**
 * A validate that reads the NewPet fields off an object body its own way: the next validate sees `kept` of the body
 * (nothing by default) with each field `lookup` finds (a value, not undefined) set on it. A non-object passes through.
 */
function readsFields(
  lookup: (body: Record<string, unknown>) => (field: string) => unknown,
  kept: (body: Record<string, unknown>) => Record<string, unknown> = () => ({}),
): Modifier {
  return wrap('validate', (prev) => (body) => {
    if (!isObject(body)) return prev(body);
    const find = lookup(body);
    const read = kept(body);
    for (const field of NEW_PET_FIELDS) {
      const value = find(field);
      if (value !== undefined) read[field] = value;
    }
    return prev(read);
  });
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** How much later each answer of the slows-down fault comes than the one before. */
const SLOWDOWN_MS = 8;

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function withoutHeader(r: Reply, name: string): Reply {
  const headers = { ...r.headers };
  delete headers[name];
  return { ...r, headers };
}

/** What create-400-still-created stores out of a rejected body: whatever of a pet it can read. */
function salvage(body: unknown): Omit<NewPetRecord, 'id'> | null {
  if (!isObject(body) || typeof body.name !== 'string') return null;
  const c = exactInteger(body.categoryId);
  const categoryId = c !== null && c >= INT64_MIN && c <= INT64_MAX ? c : 0n;
  const status = typeof body.status === 'string' && STATUSES.has(body.status) ? body.status : 'available';
  return { name: body.name, categoryId, status };
}

/** The limits of this server's Free key, when it has one (tests scale the plans down). */
function freeLimits(keys: ReadonlyMap<string, ReferenceKey>): PlanLimits | undefined {
  for (const k of keys.values()) if (k.plan === 'free') return k.limits;
  return undefined;
}

/** The id a client put in its body, when it is an int64. */
function clientId(body: unknown): bigint | undefined {
  const n = isObject(body) ? exactInteger(body.id) : null;
  return n !== null && n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/**
 * A path the conformant router does not know, routed again as `normalise` reads it, outside the authentication
 * layer (which guards the exact paths only): a variant of a path is served without a key.
 */
function routedUnguardedAs(normalise: (path: string) => string): Modifier {
  return wrap('route', (prev) => (method, path) => {
    const exact = prev(method, path);
    if (exact.route !== null) return exact;
    const again = prev(method, normalise(path));
    return again.route !== null ? { route: again.route, guarded: false } : exact;
  });
}

/**
 * A Bearer token the conformant lookup refused, looked up again with both sides folded by `fold` (a collation, a
 * trim): a near miss of a valid key is served as that key.
 */
function bearerKeyMatchedBy(fold: (s: string) => string): Modifier {
  return wrap('authenticate', (prev) => (ctx, header, route) => {
    const a = prev(ctx, header, route);
    if (a.ok || !a.tokenGiven || header === undefined) return a;
    const { scheme, token } = splitAuthorization(header);
    if (scheme.toLowerCase() !== 'bearer') return a;
    for (const k of ctx.keys.values()) if (fold(k.key) === fold(token)) return { ok: true, key: k };
    return a;
  });
}

/** A fault that coerces a categoryId of the wrong type into a number before validation (undefined: leaves it). */
function coerceCategoryId(to: (c: unknown) => unknown): Modifier {
  return wrap('validate', (prev) => (body) => {
    if (!isObject(body) || !Object.hasOwn(body, 'categoryId')) return prev(body);
    const c = to(body.categoryId);
    return c === undefined ? prev(body) : prev({ ...body, categoryId: c });
  });
}

const catalogue = [
  // --- authentication
  {
    id: 'auth-any-token',
    description: 'any bearer token is accepted, known or not',
    catches: 'auth-rejected',
    suite: 'auth',
    apply: wrap('authenticate', (prev) => (ctx, header, route) => {
      const a = prev(ctx, header, route);
      return !a.ok && a.tokenGiven ? { ok: true, key: null } : a;
    }),
  },
  {
    id: 'auth-wrong-scheme',
    description: 'a valid key is accepted under any scheme (Basic, Token, none)',
    catches: 'auth-rejected',
    suite: 'auth',
    apply: wrap('authenticate', (prev) => (ctx, header, route) => {
      const a = prev(ctx, header, route);
      if (a.ok || header === undefined) return a;
      const { scheme, token, value } = splitAuthorization(header);
      const key = scheme.toLowerCase() === 'bearer' ? undefined : (ctx.keys.get(token) ?? ctx.keys.get(value));
      return key ? { ok: true, key } : a;
    }),
  },
  {
    id: 'auth-create-open',
    description: 'POST /pets is served without an Authorization header',
    catches: 'auth-rejected',
    suite: 'auth',
    apply: wrap(
      'authenticate',
      (prev) => (ctx, header, route) =>
        (header ?? '').trim() === '' && route?.op === 'createPet' ? { ok: true, key: null } : prev(ctx, header, route),
    ),
  },
  {
    id: 'auth-403',
    description: 'a missing or invalid key gets 403 instead of 401',
    catches: 'auth-rejected',
    suite: 'auth',
    apply: wrap('unauthorized', (prev) => (ctx, tokenGiven) => {
      const r = prev(ctx, tokenGiven);
      return { ...r, status: 403, ...(r.error ? { error: { ...r.error, code: 'forbidden' } } : {}) };
    }),
  },
  {
    id: 'auth-401-no-body',
    description: '401 is sent with an empty body',
    catches: 'json-parses',
    suite: 'auth',
    apply: wrap('unauthorized', (prev) => (ctx, tokenGiven) => ({
      ...prev(ctx, tokenGiven),
      error: undefined,
      body: '',
    })),
  },
  {
    id: 'auth-bearer-case-sensitive',
    description: 'the scheme is compared case-sensitively: "bearer KEY" gets 401',
    catches: 'auth-valid-accepted',
    suite: 'auth',
    apply: wrap('authenticate', (prev) => (ctx, header, route) => {
      const scheme = header === undefined ? '' : splitAuthorization(header).scheme;
      return scheme !== 'Bearer' && scheme.toLowerCase() === 'bearer'
        ? { ok: false, tokenGiven: false }
        : prev(ctx, header, route);
    }),
  },
  {
    id: 'auth-no-www-authenticate',
    description: '401 carries no WWW-Authenticate header',
    catches: 'www-authenticate',
    suite: 'auth',
    apply: wrap(
      'unauthorized',
      (prev) => (ctx, tokenGiven) => withoutHeader(prev(ctx, tokenGiven), 'www-authenticate'),
    ),
  },

  // --- response shape, on whatever operation shows it first
  {
    id: 'error-status-mismatch',
    description: 'Error.status is always 400, whatever the HTTP status',
    catches: 'error-status-matches',
    suite: 'getPet',
    apply: wrap('errorBody', (prev) => (e) => prev({ ...e, status: 400 })),
  },
  {
    id: 'error-text-plain',
    description: 'error responses are served as text/plain',
    catches: 'content-type-json',
    suite: 'createPet',
    apply: wrap('contentType', (prev) => (r) => (r.status >= 400 && r.contentType === undefined ? TEXT : prev(r))),
  },
  {
    id: 'success-text-html',
    description: '2xx responses are served as text/html',
    catches: 'content-type-json',
    suite: 'listPets',
    apply: wrap(
      'contentType',
      (prev) => (r) => (r.status >= 200 && r.status < 300 ? 'text/html; charset=utf-8' : prev(r)),
    ),
  },
  {
    id: 'list-truncated-json',
    description: 'the list body loses its last byte (truncated JSON)',
    catches: 'json-parses',
    suite: 'listPets',
    apply: wrap('listed', (prev) => (ctx, q, reply) => prev(ctx, q, { ...reply, body: reply.body?.slice(0, -1) })),
  },
  {
    id: 'list-wrapped',
    description: 'the list is wrapped in an object {"items":[...]}',
    catches: 'body-schema',
    suite: 'listPets',
    apply: wrap('listed', (prev) => (ctx, q, reply) => prev(ctx, q, { ...reply, body: `{"items":${reply.body}}` })),
  },
  {
    // A Go service's nil slice: `json.Marshal` of a `[]Pet` that was never made is `null`. Only the first empty answer
    // is, on a fresh store the run's first request: the preflight's GET /pets (every suite creates a pet before it
    // lists), caught because every answer is judged.
    id: 'list-empty-null',
    description: 'the first list that selects nothing (a fresh store) answers 200 null (a nil slice), not []',
    catches: 'body-schema',
    suite: 'preflight',
    apply: wrap('listed', (prev) => {
      let first = true;
      return (ctx, q, reply) => {
        const nil = first && reply.status === 200 && reply.body === '[]';
        if (nil) first = false;
        return prev(ctx, q, nil ? { ...reply, body: 'null' } : reply);
      };
    }),
  },
  {
    id: 'pet-missing-categoryId',
    description: 'Pet bodies omit categoryId',
    catches: 'body-schema',
    suite: 'createPet',
    apply: wrap('petMembers', (prev) => (pet) => {
      const { categoryId: _, ...rest } = prev(pet);
      return rest;
    }),
  },
  {
    id: 'pet-id-string',
    description: 'Pet.id is serialized as a quoted string',
    catches: 'body-schema',
    suite: 'createPet',
    apply: wrap('petMembers', (prev) => (pet) => {
      const m = prev(pet);
      return { ...m, id: `"${m.id}"` };
    }),
  },
  {
    id: 'ids-beyond-int64',
    description: 'ids start at 2^63, beyond int64',
    catches: 'int64-exact',
    suite: 'createPet',
    apply: replace('firstId', 2n ** 63n),
  },
  {
    id: 'create-202',
    description: 'createPet answers 202 Accepted, an undocumented status',
    catches: 'status-documented',
    suite: 'createPet',
    apply: replace('createdStatus', 202),
  },

  // --- listPets
  {
    id: 'list-limit-ignored',
    description: 'limit is parsed but not applied: every matching pet comes back',
    catches: 'list-limit-respected',
    suite: 'listPets',
    apply: wrap('listQuery', (prev) => (q) => ({ ...prev(q), limit: Infinity })),
  },
  {
    id: 'list-default-50',
    description: 'the default page size is 50 instead of 20',
    catches: 'list-default-limit',
    suite: 'listPets',
    apply: replace('defaultLimit', 50),
  },
  {
    id: 'list-filter-leak',
    description: 'the status filter is ignored: other statuses leak into the list',
    catches: 'list-status-filter',
    suite: 'listPets',
    apply: wrap('listQuery', (prev) => (q) => ({ ...prev(q), status: undefined })),
  },
  {
    id: 'list-limit-100-rejected',
    description: 'off-by-one range check: limit=100 gets 400',
    catches: 'list-200',
    suite: 'listPets',
    apply: wrap('limitRange', (prev) => ({ ...prev, max: prev.max - 1 })),
  },
  {
    id: 'list-limit-1-rejected',
    description: 'off-by-one range check: limit=1 gets 400',
    catches: 'list-200',
    suite: 'listPets',
    apply: wrap('limitRange', (prev) => ({ ...prev, min: prev.min + 1 })),
  },
  {
    id: 'list-invalid-limit-500',
    description: 'a non-numeric limit crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'listPets',
    apply: wrap(
      'rejectQuery',
      (prev) => (ctx, p) =>
        p.kind === 'limit-not-integer'
          ? errorReply(500, 'internal_error', `cannot read property of NaN (limit=${p.raw})`)
          : prev(ctx, p),
    ),
  },

  // --- createPet
  {
    id: 'create-200',
    description: 'createPet answers 200 instead of 201',
    catches: 'create-201',
    suite: 'createPet',
    apply: replace('createdStatus', 200),
  },
  {
    id: 'create-missing-field-accepted',
    description: 'a body missing name or categoryId is accepted with a filler value',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: wrap(
      'validate',
      (prev) => (body) => prev(isObject(body) ? { name: '', categoryId: new LosslessNumber('0'), ...body } : body),
    ),
  },
  {
    id: 'create-categoryid-string-accepted',
    description: 'categoryId given as a string of digits ("42") is accepted',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      const c = isObject(body) ? body.categoryId : undefined;
      return typeof c === 'string' && /^-?\d{1,19}$/.test(c)
        ? prev({ ...(body as object), categoryId: new LosslessNumber(c) })
        : prev(body);
    }),
  },
  // Type coercion, as web frameworks do by default in body validation: each class is its own defect.
  {
    id: 'create-coerce-boolean',
    description: 'a boolean categoryId is accepted as 1 or 0',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: coerceCategoryId((c) => (typeof c === 'boolean' ? new LosslessNumber(c ? '1' : '0') : undefined)),
  },
  {
    id: 'create-coerce-null',
    description: 'a null categoryId is accepted as 0',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: coerceCategoryId((c) => (c === null ? new LosslessNumber('0') : undefined)),
  },
  {
    id: 'create-coerce-array',
    description: 'a one-element array categoryId ([7]) is accepted as its element',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: coerceCategoryId((c) => (Array.isArray(c) && c.length === 1 && isLosslessNumber(c[0]) ? c[0] : undefined)),
  },
  {
    id: 'create-coerce-number-name',
    description: 'a number given as name (123) is accepted as its text ("123")',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      const name = isObject(body) ? body.name : undefined;
      return isLosslessNumber(name) ? prev({ ...(body as object), name: (name as LosslessNumber).value }) : prev(body);
    }),
  },
  {
    id: 'create-fractional-accepted',
    description: 'a fractional categoryId (1.5) is accepted and truncated',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      const c = isObject(body) ? body.categoryId : undefined;
      if (!isLosslessNumber(c) || exactInteger(c) !== null) return prev(body);
      const truncated = Math.trunc(Number((c as LosslessNumber).value));
      if (!Number.isFinite(truncated)) return prev(body);
      return prev({ ...(body as object), categoryId: new LosslessNumber(BigInt(truncated).toString()) });
    }),
  },
  {
    id: 'create-invalid-status-accepted',
    description: 'a status outside the enum is accepted and stored',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      if (!isObject(body) || typeof body.status !== 'string' || STATUSES.has(body.status)) return prev(body);
      const { status, ...rest } = body;
      const v = prev(rest);
      return v.ok ? { ok: true, pet: { ...v.pet, status } } : v;
    }),
  },
  {
    id: 'create-400-still-created',
    description: 'an invalid body gets 400 but the pet is stored anyway',
    catches: 'create-invalid-no-effect',
    suite: 'createPet',
    apply: wrap('rejectBody', (prev) => (ctx, p) => {
      const kept = p.kind === 'invalid' ? salvage(p.body) : null;
      if (kept) ctx.store.add(kept, ctx.now);
      return prev(ctx, p);
    }),
  },
  {
    id: 'create-big-categoryid-rejected',
    description: 'categoryId beyond 2^53 (a valid int64) gets 400',
    catches: 'create-201',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      const v = prev(body);
      const big = v.ok && (v.pet.categoryId > MAX_SAFE || v.pet.categoryId < -MAX_SAFE);
      return big ? { ok: false, reason: 'categoryId is too large' } : v;
    }),
  },
  {
    id: 'create-int64-rounded',
    description: 'categoryId goes through a JS number and is rounded beyond 2^53',
    catches: 'create-echo',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      const v = prev(body);
      return v.ok ? { ok: true, pet: { ...v.pet, categoryId: BigInt(Number(v.pet.categoryId)) } } : v;
    }),
  },
  {
    id: 'create-name-nfc',
    description: 'names are NFC-normalised (e + U+0301 becomes U+00E9)',
    catches: 'create-echo',
    suite: 'createPet',
    apply: wrap('storePet', (prev) => (ctx, pet) => prev(ctx, { ...pet, name: pet.name.normalize('NFC') })),
  },
  {
    id: 'create-name-emoji-stripped',
    description: 'characters beyond the BMP (emoji) are stripped from names',
    catches: 'create-echo',
    suite: 'createPet',
    apply: wrap(
      'storePet',
      (prev) => (ctx, pet) => prev(ctx, { ...pet, name: pet.name.replace(/[\u{10000}-\u{10FFFF}]/gu, '') }),
    ),
  },
  {
    id: 'create-name-trimmed',
    description: 'leading and trailing whitespace is trimmed from names',
    catches: 'create-echo',
    suite: 'createPet',
    apply: wrap('storePet', (prev) => (ctx, pet) => prev(ctx, { ...pet, name: pet.name.trim() })),
  },
  {
    id: 'create-status-not-persisted',
    description: 'the sent status is ignored: every pet is stored and returned as available',
    catches: 'create-echo',
    suite: 'createPet',
    apply: wrap('storePet', (prev) => (ctx, pet) => prev(ctx, { ...pet, status: 'available' })),
  },
  {
    id: 'create-status-echo-only',
    description: 'the 201 echoes the sent status but the store keeps available',
    catches: 'create-retrievable',
    suite: 'createPet',
    apply: wrap('storePet', (prev) => (ctx, pet) => {
      const c = prev(ctx, { ...pet, status: 'available' });
      return { ...c, shown: { ...c.shown, status: pet.status } };
    }),
  },
  {
    id: 'create-malformed-500',
    description: 'malformed JSON crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'createPet',
    apply: wrap(
      'rejectBody',
      (prev) => (ctx, p) =>
        p.kind === 'malformed' ? errorReply(500, 'internal_error', 'Unexpected token in JSON') : prev(ctx, p),
    ),
  },
  {
    id: 'create-client-id-honoured',
    description: 'a client-supplied id is used as the pet id',
    catches: 'create-id-not-client-supplied',
    suite: 'createPet',
    apply: wrap('chooseId', (prev) => (ctx) => {
      const later = prev(ctx);
      return async (body) => clientId(body) ?? (await later(body));
    }),
  },
  {
    id: 'create-duplicate-ids',
    description: 'the id is read at request start and stored 30 ms later: concurrent creates share ids',
    catches: 'ids-unique',
    suite: 'createPet',
    apply: wrap('chooseId', (prev) => (ctx) => {
      // Read before the body arrives, as a naive "count + 1" would be.
      const racy = ctx.store.peekNextId();
      const later = prev(ctx);
      return async (body) => {
        await delay(30);
        return (await later(body)) ?? racy;
      };
    }),
  },
  {
    id: 'create-not-listed',
    description: 'the list is served from a cache that hides pets younger than 60 s',
    catches: 'create-listed',
    suite: 'createPet',
    apply: wrap(
      'listSelection',
      (prev) => (ctx, q) =>
        prev(ctx, { ...q, limit: Infinity })
          .filter((p) => p.createdAt <= ctx.now - 60_000)
          .slice(0, q.limit),
    ),
  },

  // --- getPet
  {
    id: 'get-odd-404',
    description: 'getPet answers 404 for every odd id (an index off by one)',
    catches: 'get-200',
    suite: 'getPet',
    apply: wrap('lookup', (prev) => (ctx, id) => (id % 2n !== 0n ? undefined : prev(ctx, id))),
  },
  {
    id: 'slows-down',
    description: `every answer comes ${SLOWDOWN_MS} ms later than the one before (a leak that grows with each request)`,
    catches: 'latency-trend',
    suite: 'listPets',
    // Every request is authenticated first: the answer's end is held back by the lag so far, the answer itself is
    // the conformant one (its Date and rate-limit headers are made on time).
    apply: wrap('authenticate', (prev) => {
      let answered = 0;
      return (ctx, header, route) => {
        const lag = SLOWDOWN_MS * answered++;
        const res = ctx.res;
        const end = res.end.bind(res) as (...args: unknown[]) => unknown;
        res.end = ((...args: unknown[]) => {
          ctx.clock.later(lag, () => end(...args));
          return res;
        }) as typeof res.end;
        return prev(ctx, header, route);
      };
    }),
  },
  {
    id: 'list-reset-at-max',
    description: 'GET /pets?limit=100 resets the connection instead of answering',
    catches: 'transport-ok',
    suite: 'listPets',
    apply: wrap(
      'listed',
      (prev) => (ctx, q, reply) => (q.limit === 100 ? { ...reply, drop: true } : prev(ctx, q, reply)),
    ),
  },
  {
    id: 'list-marks-sold',
    description: 'any list request marks every pending pet as sold',
    catches: 'model-consistency',
    suite: 'stateful',
    apply: wrap('listed', (prev) => (ctx, q, reply) => {
      for (const p of ctx.store.list('pending', Infinity)) ctx.store.overwrite({ ...p, status: 'sold' });
      return prev(ctx, q, reply);
    }),
  },
  {
    id: 'get-absent-500',
    description: 'an absent id crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'getPet',
    apply: replace('notFound', () => errorReply(500, 'internal_error', 'cannot read properties of undefined')),
  },
  {
    id: 'get-absent-200-null',
    description: 'an absent id gets 200 with a null body',
    catches: 'get-404',
    suite: 'getPet',
    apply: replace('notFound', () => ({ status: 200, body: 'null' })),
  },
  {
    id: 'get-invalid-id-500',
    description: 'a non-numeric petId crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'getPet',
    apply: replace('invalidId', () => errorReply(500, 'internal_error', 'cannot convert petId to BigInt')),
  },
  {
    id: 'get-not-retrievable',
    description: 'getPet answers 404 for every id, created or not',
    catches: 'create-retrievable',
    suite: 'createPet',
    apply: replace('lookup', () => undefined),
  },
  {
    id: 'get-wrong-name',
    description: 'getPet returns a display name ("<name> (deprecated)") instead of the name',
    catches: 'create-retrievable',
    suite: 'createPet',
    apply: wrap('lookup', (prev) => (ctx, id) => {
      const p = prev(ctx, id);
      return p && { ...p, name: `${p.name} (deprecated)` };
    }),
  },

  // --- rate-limit headers (checked on every response)
  {
    id: 'rl-headers-missing',
    description: 'no X-RateLimit-* headers on any response',
    catches: 'rate-limit-headers-present',
    suite: 'listPets',
    apply: replace('rateHeadersOn', () => false),
  },
  {
    id: 'rl-headers-missing-4xx',
    description: 'X-RateLimit-* headers missing on 4xx responses',
    catches: 'rate-limit-headers-present',
    suite: 'auth',
    apply: wrap('rateHeadersOn', (prev) => (status) => status < 400 && prev(status)),
  },
  {
    id: 'rl-form-counted-apart',
    description:
      'the limiter keys its counter on the Authorization header as sent: bearer <key> (scheme case-insensitive, RFC 9110), or two spaces after Bearer, is served on a counter of its own, never counted against the key',
    catches: 'rl-every-form-counted',
    suite: 'rate-limit',
    // A limiter whose key generator reads the raw header (req.headers.authorization) while the token helper parses
    // it: every form but the plain one gets the plan's limit again. Its answers carry that counter's headers (the
    // plan's Limit), so only the count is wrong: what rl-every-form-counted measures.
    apply: wrap('authenticate', (prev) => (ctx, header, route) => {
      const a = prev(ctx, header, route);
      if (!a.ok || a.key === null || header === undefined) return a;
      const sent = header.replace(/^[ \t]+|[ \t]+$/g, '');
      return sent === `Bearer ${a.key.key}` ? a : { ...a, counter: `${a.key.key} as ${sent}` };
    }),
  },
  {
    id: 'rl-headers-missing-429',
    description: 'X-RateLimit-* headers missing on 429 responses',
    catches: 'rate-limit-headers-present',
    suite: 'rate-limit',
    apply: wrap('rateHeadersOn', (prev) => (status) => status !== 429 && prev(status)),
  },
  {
    id: 'rl-reset-ms',
    description: 'X-RateLimit-Reset is epoch milliseconds',
    catches: 'rate-limit-reset-epoch',
    suite: 'listPets',
    apply: replace('resetHeader', (_ctx, rl) => String(Math.ceil(rl.resetAt))),
  },
  {
    id: 'rl-reset-relative',
    description: 'X-RateLimit-Reset is seconds until the reset, not an epoch time',
    catches: 'rate-limit-reset-epoch',
    suite: 'listPets',
    apply: replace('resetHeader', (ctx, rl) => String(Math.max(0, Math.ceil((rl.resetAt - ctx.now) / 1000)))),
  },
  {
    id: 'rl-reset-fractional',
    description: 'X-RateLimit-Reset carries a fraction (1712345678.123)',
    catches: 'rate-limit-headers-present',
    suite: 'listPets',
    apply: replace('resetHeader', (_ctx, rl) => (rl.resetAt / 1000).toFixed(3)),
  },
  {
    id: 'rl-remaining-above-limit',
    description: 'Remaining reports the day window while Limit reports the minute window',
    catches: 'rate-limit-remaining-range',
    suite: 'listPets',
    apply: wrap('rateHeaders', (prev) => (ctx, status, rl) => ({
      ...prev(ctx, status, rl),
      remaining: String(rl.dayRemaining),
    })),
  },
  {
    id: 'rl-remaining-negative',
    description: 'on 429, Remaining counts the rejected request and goes negative',
    catches: 'rate-limit-headers-present',
    suite: 'rate-limit',
    apply: wrap('rateHeaders', (prev) => (ctx, status, rl) => {
      const v = prev(ctx, status, rl);
      return status === 429 ? { ...v, remaining: '-1' } : v;
    }),
  },
  {
    id: 'rl-limit-constant',
    description: 'X-RateLimit-Limit is always 100, whatever the plan',
    catches: 'rate-limit-limit-plan',
    suite: 'listPets',
    apply: wrap('rateHeaders', (prev) => (ctx, status, rl) => ({ ...prev(ctx, status, rl), limit: '100' })),
  },

  // --- 429 responses
  {
    id: 'rl-no-retry-after',
    description: '429 without Retry-After',
    catches: 'retry-after-valid',
    suite: 'rate-limit',
    apply: wrap('limited', (prev) => (ctx, rl) => withoutHeader(prev(ctx, rl), 'retry-after')),
  },
  {
    id: 'rl-retry-after-fractional',
    description: 'Retry-After in fractional seconds (0.25)',
    catches: 'retry-after-valid',
    suite: 'rate-limit',
    apply: wrap('limited', (prev) => (ctx, rl) => {
      const r = prev(ctx, rl);
      return { ...r, headers: { ...r.headers, 'retry-after': (rl.waitMs / 1000).toFixed(2) } };
    }),
  },
  {
    id: 'rl-503',
    description: '503 instead of 429 when limited',
    catches: 'no-5xx',
    suite: 'rate-limit',
    apply: wrap('limited', (prev) => (ctx, rl) => {
      const r = prev(ctx, rl);
      return r.status === 429 ? { ...r, status: 503 } : r;
    }),
  },
  {
    id: 'rl-429-text-plain',
    description: '429 body is text/plain "Too Many Requests" (a gateway\'s default page)',
    catches: 'error-body-429-json',
    suite: 'rate-limit',
    apply: wrap('limited', (prev) => (ctx, rl) => ({
      ...prev(ctx, rl),
      error: undefined,
      body: 'Too Many Requests',
      contentType: TEXT,
    })),
  },
  {
    id: 'rl-429-not-error',
    description: '429 body is JSON but not an Error ({"statusCode":429,"error":"Too Many Requests",...})',
    catches: 'error-body-429',
    suite: 'rate-limit',
    apply: wrap('limited', (prev) => (ctx, rl) => ({
      ...prev(ctx, rl),
      error: undefined,
      body: '{"statusCode":429,"error":"Too Many Requests","message":"Rate limit exceeded"}',
    })),
  },

  {
    id: 'rl-429-error-status',
    description:
      "429 carries a complete Error whose status is 400 (section 7 rule 1 binds every Error body, a 429's too)",
    catches: 'error-status-matches',
    suite: 'rate-limit',
    apply: wrap('errorBody', (prev) => (e) => (e.status === 429 ? prev({ ...e, status: 400 }) : prev(e))),
  },

  // --- robustness: the inputs real services break on (runner/scenarios/robustness.ts sends each once)
  {
    id: 'auth-prototype-key-500',
    description:
      'keys are looked up in a plain object (keys[token]): a token named after a prototype property (constructor, __proto__, toString…) "matches" and reading its plan crashes: 500',
    catches: 'no-5xx',
    suite: 'robustness',
    apply: wrap('unauthorized', (prev) => (ctx, tokenGiven) => {
      const { token } = splitAuthorization(ctx.res.req.headers.authorization ?? '');
      return tokenGiven && token in PLAIN_OBJECT
        ? errorReply(500, 'internal_error', "Cannot read properties of undefined (reading 'requestsPerMinute')")
        : prev(ctx, tokenGiven);
    }),
  },
  {
    id: 'auth-prototype-key-accepted',
    description:
      'keys are looked up in a plain object and any value found lets the request through: a token named after a prototype property (constructor, toString…) is served, as if it were a key',
    catches: 'auth-rejected',
    suite: 'robustness',
    apply: wrap('authenticate', (prev) => (ctx, header, route) => {
      const a = prev(ctx, header, route);
      if (a.ok || header === undefined) return a;
      const { scheme, token } = splitAuthorization(header);
      return scheme.toLowerCase() === 'bearer' && token in PLAIN_OBJECT ? { ok: true, key: null } : a;
    }),
  },
  {
    id: 'deep-nesting-500',
    description: `the body is walked by a recursive function with no depth limit: JSON nested more than ${STACK_DEPTH} levels deep (even inside an unknown member) overflows the stack: 500`,
    catches: 'no-5xx',
    suite: 'robustness',
    apply: wrap('validate', (prev) => (body) => {
      walkRecursively(body, 0);
      return prev(body);
    }),
  },
  {
    id: 'create-form-decoded',
    description:
      "form-encoded bodies are decoded into a NewPet as Go's form decoders do: a missing field reads as its zero value (categoryId 0), so a form without categoryId creates a pet",
    catches: 'create-invalid-rejected',
    suite: 'robustness',
    apply: wrap('parseBody', (prev) => (ctx, bytes, contentType) => {
      if (!/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) return prev(ctx, bytes, contentType);
      const form = new URLSearchParams(bytes.toString('utf8'));
      const digits = form.get('categoryId') ?? '';
      const status = form.get('status');
      return {
        name: form.get('name') ?? '',
        categoryId: new LosslessNumber(/^-?\d+$/.test(digits) ? digits : '0'),
        ...(status !== null ? { status } : {}),
      };
    }),
  },
  {
    id: 'create-members-case-insensitive',
    description:
      "members are matched to fields case-insensitively, as Go's encoding/json does: a body with categoryid (and no categoryId) is accepted as complete",
    catches: 'create-invalid-rejected',
    suite: 'robustness',
    apply: readsFields(
      (body) => (field) => {
        const key = Object.hasOwn(body, field)
          ? field
          : Object.keys(body).find((k) => k.toLowerCase() === field.toLowerCase());
        return key === undefined ? undefined : body[key];
      },
      (body) => ({ ...body }),
    ),
  },
  {
    id: 'create-proto-member',
    description:
      'the body is merged onto a plain object with Object.assign and its fields read by property access: a "__proto__" member becomes the prototype and lends the fields it holds (a body without categoryId is accepted)',
    catches: 'create-invalid-rejected',
    suite: 'robustness',
    apply: readsFields((body) => {
      const merged: Record<string, unknown> = Object.assign({}, body);
      return (field) => merged[field];
    }),
  },
  {
    id: 'html-error-page',
    description: "a request that asks for text/html gets the framework's HTML error page instead of an Error (401)",
    catches: 'content-type-json',
    suite: 'robustness',
    apply: wrap('unauthorized', (prev) => (ctx, tokenGiven) => {
      const r = prev(ctx, tokenGiven);
      if (!/\btext\/html\b/i.test(ctx.res.req.headers.accept ?? '')) return r;
      const { error: _error, ...rest } = r;
      return {
        ...rest,
        body: '<!doctype html><title>401 Unauthorized</title><h1>Unauthorized</h1>',
        contentType: HTML,
      };
    }),
  },
  {
    id: 'router-case-insensitive',
    description:
      'the router matches paths case-insensitively while the authentication layer guards the exact paths only: GET /V1/PETS lists pets without a key',
    catches: 'no-operation-without-key',
    suite: 'robustness',
    apply: routedUnguardedAs((path) => path.toLowerCase()),
  },
  {
    id: 'create-name-truncated-64k',
    description:
      'names are stored in a 64 KiB column in non-strict mode (MySQL TEXT): a longer name is silently cut, and the 201 shows the cut name',
    catches: 'robust-body-understood',
    suite: 'robustness',
    apply: wrap('storePet', (prev) => (ctx, pet) => prev(ctx, { ...pet, name: pet.name.slice(0, 65_535) })),
  },
  {
    id: 'create-large-body-dropped',
    description: 'a body over the size limit gets no answer: the connection is closed while the client still sends',
    catches: 'transport-ok',
    suite: 'robustness',
    apply: wrap(
      'rejectBody',
      (prev) => (ctx, p) => (p.kind === 'too-large' ? { status: 400, drop: true } : prev(ctx, p)),
    ),
  },

  // --- issue 31: near misses of the key, parameters from another place, near-integers, what the catalogue names
  {
    id: 'auth-key-case-insensitive',
    description:
      "keys are looked up through a case-insensitive collation (a key table in MySQL's default collation): the key with its letters' case changed is served",
    catches: 'auth-rejected',
    suite: 'auth',
    apply: bearerKeyMatchedBy((s) => s.toLowerCase()),
  },
  {
    id: 'auth-key-trimmed',
    description:
      'the token is trimmed of whitespace before the lookup (String.prototype.trim, or a collation that ignores trailing spaces): the key followed by a no-break space is served',
    catches: 'auth-rejected',
    suite: 'auth',
    apply: bearerKeyMatchedBy((s) => s.trim()),
  },
  {
    id: 'auth-key-accent-insensitive',
    description:
      "keys are looked up through an accent- and case-insensitive collation (MySQL 8's utf8mb4_0900_ai_ci): the key with one letter accented is served",
    catches: 'auth-rejected',
    suite: 'auth',
    apply: bearerKeyMatchedBy((s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()),
  },
  {
    id: 'auth-first-header-wins',
    description:
      "only the first of two Authorization lines is read (Node's req.headers keeps the first): the key followed by a second, other Authorization is served",
    catches: 'auth-rejected',
    suite: 'auth',
    apply: wrap(
      'authenticate',
      (prev) => (ctx, header, route) =>
        prev(ctx, header === undefined ? header : ctx.res.req.headers.authorization, route),
    ),
  },
  {
    id: 'create-query-merged',
    description:
      "the query string is merged into the request's parameters (Rails' params, PHP's $_REQUEST): POST /pets?name=Q&categoryId=7 with {} as the body creates a pet",
    catches: 'create-invalid-rejected',
    suite: 'robustness',
    apply: wrap('parseBody', (prev) => (ctx, bytes, contentType) => {
      const body = prev(ctx, bytes, contentType);
      const url = ctx.res.req.url ?? '';
      const q = url.indexOf('?');
      if (q < 0 || !isObject(body)) return body;
      const merged: Record<string, unknown> = { ...body };
      for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
        if (Object.hasOwn(merged, name) || !(NEW_PET_FIELDS as readonly string[]).includes(name)) continue;
        merged[name] = name === 'categoryId' && /^-?\d+$/.test(value) ? new LosslessNumber(value) : value;
      }
      return merged;
    }),
  },
  {
    id: 'create-near-integer-accepted',
    description:
      'categoryId is checked for "integer" with a tolerance after converting to a double: 1.00000000000001 is accepted (and stored as 1)',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: coerceCategoryId((c) => {
      if (!isLosslessNumber(c) || exactInteger(c) !== null) return undefined;
      const n = Number((c as LosslessNumber).value);
      // Only what a double still tells from an integer: beyond 2^53 a fraction is another defect (rounding).
      if (!Number.isFinite(n) || Number.isInteger(n) || Math.abs(n - Math.round(n)) >= 1e-9) return undefined;
      return new LosslessNumber(String(Math.round(n)));
    }),
  },
  {
    id: 'router-version-case-insensitive',
    description:
      'the version prefix is mounted case-insensitively (Express routers are by default) while the authentication layer guards the exact prefix: GET /V1/pets lists pets without a key',
    catches: 'no-operation-without-key',
    suite: 'robustness',
    apply: routedUnguardedAs((path) => path.replace(/^\/v1(?=\/)/i, '/v1')),
  },
  {
    id: 'success-html-for-accept',
    description:
      'a client asking for text/html with a valid key gets an HTML page of the pets (a server-side view beside the API) instead of JSON',
    catches: 'content-type-json',
    suite: 'robustness',
    apply: wrap('listed', (prev) => (ctx, q, reply) => {
      const r = prev(ctx, q, reply);
      if (!/\btext\/html\b/i.test(ctx.res.req.headers.accept ?? '') || r.status !== 200) return r;
      return { ...r, body: '<!doctype html><title>Pets</title><ul></ul>', contentType: HTML };
    }),
  },
  {
    id: 'create-empty-status-stored',
    description: 'an empty status passes validation (a falsy value is taken for an absent one) and is stored as ""',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
    apply: wrap('validate', (prev) => (body) => {
      if (!isObject(body) || body.status !== '') return prev(body);
      const { status: _status, ...rest } = body;
      const v = prev(rest);
      return v.ok ? { ok: true, pet: { ...v.pet, status: '' } } : v;
    }),
  },

  // --- limiter behaviour
  {
    id: 'rl-off-by-one',
    description: 'the minute limit admits plan + 1 requests',
    catches: 'rl-burst-enforced',
    suite: 'rate-limit',
    apply: replace('minuteSlack', 1),
  },
  {
    id: 'rl-stricter',
    description: 'the minute limit admits plan - 1 requests while reporting the plan',
    catches: 'rl-not-stricter-than-plan',
    suite: 'rate-limit',
    apply: replace('minuteSlack', -1),
  },
  {
    id: 'rl-not-enforced',
    description: 'requests over the limit are counted but never refused',
    catches: 'rl-burst-enforced',
    suite: 'rate-limit',
    apply: replace('notEnforced', true),
  },
  {
    id: 'rl-retry-after-short',
    description: 'Retry-After is half the real wait (rounded down, at least 1)',
    catches: 'rl-retry-after-honoured',
    suite: 'rate-limit',
    apply: replace('retryAfterHalved', true),
  },
  {
    id: 'rl-window-never-resets',
    description: 'the minute counter never resets (tokens never refill)',
    catches: 'rl-honoured-not-banned',
    suite: 'rate-limit',
    apply: replace('neverResets', true),
  },
  {
    id: 'rl-rejected-counted',
    description: 'rejected requests are charged too, and the charge carries into the next window',
    catches: 'rl-rejected-not-counted',
    suite: 'rate-limit',
    apply: replace('chargeRejected', true),
  },
  {
    id: 'rl-shared-limits',
    description: 'all keys share one counter, with the limits of the first key seen',
    catches: 'rl-per-key',
    suite: 'rate-limit',
    apply: replace('sharedAcrossKeys', true),
  },
  {
    id: 'rl-shared-counter',
    description: "one counter for all keys, each key still held to and told its own plan's limit",
    catches: 'rl-per-key',
    suite: 'rate-limit',
    apply: replace('sharedCounter', true),
  },
  {
    id: 'rl-per-route',
    description: "one counter per key and operation: a key gets its plan's limit on every operation",
    catches: 'rl-one-counter-per-key',
    suite: 'rate-limit',
    apply: replace('perRoute', true),
  },
  {
    id: 'rl-lost-increments',
    description:
      "the count is read, then written back 20 ms later (a read-modify-write across an await): a key's requests in flight together lose increments",
    catches: 'rl-burst-enforced',
    suite: 'rate-limit',
    apply: replace('lostIncrementsMs', 20),
  },
  {
    id: 'rl-ban-honoured',
    description: 'every 429 bans the key for two windows, even when the client waits what Retry-After said',
    catches: 'rl-honoured-not-banned',
    suite: 'rate-limit',
    apply: replace('banOnLimit', true),
  },
  {
    id: 'rl-free-numbers',
    description: "every plan gets the limits of the server's Free key",
    catches: 'rate-limit-limit-plan',
    suite: 'rate-limit',
    apply: replace('planLimits', (ctx) => freeLimits(ctx.keys) ?? FREE),
  },
  {
    id: 'rl-ban-403',
    description: 'any request before Retry-After elapsed bans the key with 403',
    catches: 'rl-429-shape',
    suite: 'rate-limit',
    apply: replace('ban', { after: 0, status: 403 }),
  },
  {
    id: 'rl-daily-not-enforced',
    description: 'the daily quota is counted but never enforced',
    catches: 'rl-daily-quota',
    suite: 'quota',
    apply: replace('dailyNotEnforced', true),
  },
  {
    id: 'quota-lost-increments',
    description:
      "the day's count alone is read, then written back 20 ms later (a quota in a remote store, the minute window in memory): a key's requests in flight together lose daily increments",
    catches: 'rl-daily-quota',
    suite: 'quota',
    apply: replace('dayLostIncrementsMs', 20),
  },
] as const satisfies readonly Fault[];

export type FaultId = (typeof catalogue)[number]['id'];

/**
 * The coercion classics a web framework's body validation accepts by default (an integer as a numeric string,
 * booleans, null, a one-element array, a number for a string): the reference server's `coercion` setting.
 */

export const COERCION_FAULTS: readonly FaultId[] = [
  'create-categoryid-string-accepted',
  'create-coerce-boolean',
  'create-coerce-null',
  'create-coerce-array',
  'create-coerce-number-name',
];

export const faults: readonly Fault[] = Object.freeze(catalogue.map((f) => Object.freeze({ ...f })));

const index = new Map<string, number>(catalogue.map((f, i) => [f.id, i]));

/**
 * The faults of these ids, in catalogue order (so that wraps compose the same way whatever order they were asked
 * in). An unknown id throws, so a typo never runs a faultless server.
 */
export function selectFaults(ids: readonly string[]): Fault[] {
  for (const id of ids) if (!index.has(id)) throw new Error(`reference: unknown fault id ${JSON.stringify(id)}`);
  return [...new Set(ids)].sort((a, b) => index.get(a)! - index.get(b)!).map((id) => faults[index.get(id)!]!);
}

/** The server's seams with these faults on; throws for an unknown id or faults that cannot be combined. */
export function faultSeams(ids: readonly string[]): Seams {
  return composeSeams(selectFaults(ids));
}

/**
 * The findings by which `fault` is caught: violations and warnings of the check it names. A harness error of that
 * check (the warning `defineCheck` makes when the check threw) is not one: a check that crashed judged nothing, and
 * counting its crash as a catch would let a broken check pass its meta-test (rule 3). What the fault meta-tests and
 * the bench count, and nothing else.
 */
export function catchingFindings(fault: Pick<Fault, 'catches'>, findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.checkId === fault.catches && f.level !== 'observation' && f.harnessError !== true);
}

/** Whether a real finding of its check caught `fault` (see catchingFindings). */
export const isCaught = (fault: Pick<Fault, 'catches'>, findings: readonly Finding[]): boolean =>
  catchingFindings(fault, findings).length > 0;
