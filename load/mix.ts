/**
 * The realistic request mix: list with filters (half the traffic), create, then get of the pet just created. Each
 * request's response goes through the conformance tally. The API key is written into the Authorization header here
 * and lives only in autocannon's in-memory request buffers.
 */
import { contract, parameter } from '../spec/contract.js';
import type { ApiKey } from '../http/redact.js';
import type { AcRequest } from './autocannon.js';
import type { ConformanceTally } from './conformance.js';

/** Filters cycled through by the list requests: the documented limit range and every status, plus no filter. */
export function listQueries(): string[] {
  const max = Number(parameter('listPets', 'limit').schema.maximum ?? 100);
  const queries = ['', `?limit=${max}`, '?limit=1'];
  for (const status of contract.petStatuses) queries.push(`?status=${status}&limit=10`);
  return queries;
}

const CREATED_ID = /"id"\s*:\s*(-?\d+)/;

export function mixRequests(basePath: string, key: ApiKey, tally: ConformanceTally): AcRequest[] {
  const auth = { authorization: `Bearer ${key.reveal()}` };
  const queries = listQueries();
  // Static requests are built once by autocannon; only the get of the created pet is rebuilt per request (a
  // setupRequest on every request costs about a tenth of the generator's CPU).
  const list = (query: string): AcRequest => ({
    method: 'GET',
    path: `${basePath}/pets${query}`,
    headers: auth,
    onResponse: (status, body, _ctx, headers) => void tally.check('listPets', status, headers, body),
  });
  const create = (n: number): AcRequest => ({
    method: 'POST',
    path: `${basePath}/pets`,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `load-${n}`, categoryId: n + 1, status: contract.petStatuses[n % contract.petStatuses.length] }),
    onResponse: (status, body, ctx, headers) => {
      tally.check('createPet', status, headers, body);
      const m = status === 201 ? CREATED_ID.exec(body) : null;
      ctx.petId = m ? m[1] : undefined;
    },
  });
  const get: AcRequest = {
    method: 'GET',
    headers: auth,
    // Without a created pet (the create was refused), ask for id 1: 200 or 404 are both documented.
    setupRequest: (req, ctx) => ({ ...req, path: `${basePath}/pets/${typeof ctx.petId === 'string' ? ctx.petId : '1'}` }),
    onResponse: (status, body, _ctx, headers) => void tally.check('getPet', status, headers, body),
  };
  const requests: AcRequest[] = [];
  // Half lists (cycling through the filters), a quarter creates, a quarter gets of the pet just created.
  for (let i = 0; i < queries.length; i += 2) {
    requests.push(list(queries[i]!), list(queries[(i + 1) % queries.length]!), create(i / 2), { ...get });
  }
  return requests;
}

/** One plain list request for the per-plan rate runs (cheap, idempotent, leaves no data behind). */
export function listRequest(basePath: string, key: ApiKey, tally: ConformanceTally): AcRequest[] {
  return [
    {
      method: 'GET',
      path: `${basePath}/pets?limit=1`,
      headers: { authorization: `Bearer ${key.reveal()}` },
      onResponse: (status, body, _ctx, headers) => void tally.check('listPets', status, headers, body),
    },
  ];
}
