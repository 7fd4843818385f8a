/**
 * Whether a request went outside what the spec defines, so that any 4xx answer to it is no violation of the status
 * list: an out-of-range limit, an unknown status filter or query parameter, a petId that is not an int64, a body that
 * is not a plain NewPet or a name at the edges (all gaps of the spec). Behavioural checks judge those requests with
 * their own evidence; the response checks only must not invent a rule the spec does not have.
 */
import { contract, parameter } from '../spec/contract.js';
import { validateSchema } from '../spec/validators.js';
import type { Exchange } from '../http/exchange.js';
import { INT64_MAX, parseLossless, plain } from '../http/lossless.js';
import { exactId, isObject, queryOf } from './facts.js';
import { mediaType } from './headers.js';
import { isEdgeName } from '../generators/names.js';

/** Bodies larger than this are unusual enough that a 413 is plausible and not a spec matter. */
const LARGE_BODY_BYTES = 64 * 1024;

function inRange(value: string, min: number, max: number): boolean {
  if (!/^(0|[1-9]\d{0,5})$/.test(value)) return false;
  const n = Number(value);
  return n >= min && n <= max;
}

/** A list query the spec defines: only limit (an integer in range) and status (an enum value), each at most once. */
export function isDefinedListQuery(ex: Exchange): boolean {
  const q = queryOf(ex);
  if (!q) return false;
  const limit = parameter('listPets', 'limit').schema as { minimum?: number; maximum?: number };
  for (const key of new Set(q.keys())) {
    const values = q.getAll(key);
    if (values.length !== 1) return false;
    const v = values[0]!;
    if (key === 'limit') {
      if (!inRange(v, limit.minimum ?? 1, limit.maximum ?? Number.MAX_SAFE_INTEGER)) return false;
    } else if (key === 'status') {
      if (!contract.petStatuses.includes(v)) return false;
    } else return false;
  }
  return true;
}

/** A petId that is an int64 in canonical decimal form. */
export function isDefinedPetId(ex: Exchange): boolean {
  try {
    const path = String(ex.request.path).split('?', 1)[0]!;
    const raw = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
    if (!/^(0|-?[1-9]\d*)$/.test(raw)) return false;
    const n = BigInt(raw);
    // Ids ≤ 0 are int64 but never assigned by a service that counts from 1: a 4xx for them is no status violation.
    return n > 0n && n <= INT64_MAX;
  } catch {
    return false;
  }
}

/** A name nobody would dispute: the plain names of generators/names.ts (the spec shows no name limits). */
export function isOrdinaryName(name: string): boolean {
  return !isEdgeName(name);
}

/** A create request with a JSON NewPet of ordinary values: the spec leaves it no answer but 201 (or 401/429). */
export function isOrdinaryCreate(ex: Exchange): boolean {
  try {
    const req = ex.request;
    if (!req.body || req.body.length > LARGE_BODY_BYTES) return false;
    if (mediaType(req.headers['content-type']) !== 'application/json') return false;
    const body = parseLossless(Buffer.from(req.body).toString('utf8'));
    if (!isObject(body) || validateSchema('NewPet', plain(body)).length > 0) return false;
    if (Object.keys(body).some((k) => !['name', 'categoryId', 'status'].includes(k))) return false;
    const cat = exactId(body.categoryId);
    // Category records are a gap (gap-2-category-record): only positive int64 categories are ordinary.
    return cat !== null && cat > 0n && cat <= INT64_MAX && typeof body.name === 'string' && isOrdinaryName(body.name);
  } catch {
    return false;
  }
}

/**
 * Whether the request's Accept admits application/json (absent, application/json, application/*, or * / *, with a q
 * above 0). A request that asks only for what a JSON service cannot serve (text/html, application/xml) is outside
 * what the spec defines: a 406 is then no violation of the status list (the gap gap-1-media-types).
 */
export function acceptsJson(ex: Exchange): boolean {
  const accept = ex.request.headers.accept;
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const [range, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
    return range === 'application/json' || range === 'application/*' || range === '*/*';
  });
}

/** Whether the spec leaves the answer to this request open enough that an undocumented 4xx is no violation. */
export function requestOutsideSpec(ex: Exchange): boolean {
  if (!acceptsJson(ex)) return true;
  switch (ex.operation) {
    case 'listPets':
      return !isDefinedListQuery(ex);
    case 'getPet':
      return !isDefinedPetId(ex);
    case 'createPet':
      return !isOrdinaryCreate(ex);
    default:
      return true;
  }
}
