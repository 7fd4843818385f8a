/**
 * The realistic request mix: list with filters (half the traffic), create, get. Each response goes through the
 * conformance tally. The API key is written into the Authorization header here and lives only in autocannon's
 * in-memory request buffers.
 */
import { contract, parameter } from '../spec/contract.js';
import type { ApiKey } from '../http/redact.js';
import { autocannon, type AcRequest, type RawHeaders } from './autocannon.js';
import type { ConformanceTally } from './conformance.js';

/** Filters cycled through by the list requests: the documented limit range and every status, plus no filter. */
export function listQueries(): string[] {
  const max = Number(parameter('listPets', 'limit').schema.maximum ?? 100);
  const queries = ['', `?limit=${max}`, '?limit=1'];
  for (const status of contract.petStatuses) queries.push(`?status=${status}&limit=10`);
  return queries;
}

const CREATED_ID = /"id"\s*:\s*(-?\d+)/;

/** How many gets one cycle of the mix holds (one per group of four requests), hence how many pets to seed. */
export function mixGetCount(): number {
  return Math.ceil(listQueries().length / 2);
}

/**
 * Creates `count` pets before a mix scenario, one at a time (bounded in requests and time), and returns their ids for
 * the mix's gets; an id that could not be created is "1" (200 or 404 are both documented). These few requests are
 * set-up, not load: they are neither recorded nor checked. Bounded: `count` requests, `timeoutSeconds`, the first error.
 */
export async function seedPets(url: string, key: ApiKey, count: number, timeoutSeconds: number): Promise<string[]> {
  const ids: string[] = [];
  const instance = autocannon({
    url,
    connections: 1,
    duration: Math.max(1, timeoutSeconds),
    maxOverallRequests: count,
    timeout: timeoutSeconds,
    // autocannon notices that it is done (or stopped) at its sampling tick: 1 s by default.
    sampleInt: 50,
    requests: [
      {
        method: 'POST',
        path: `${new URL(url).pathname}/pets`,
        headers: { authorization: `Bearer ${key.reveal()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'load-seed', categoryId: 1 }),
        onResponse: (status, body) => {
          const m = status === 201 || status === 200 ? CREATED_ID.exec(body) : null;
          if (m && ids.length < count) ids.push(m[1]!);
        },
      },
    ],
    skipAggregateResult: true,
  });
  // A refused connection or a timeout ends the set-up at once (the scenario itself will show the errors).
  instance.on('reqError', () => instance.stop());
  await instance;
  while (ids.length < count) ids.push('1');
  return ids;
}

/**
 * The realistic mix, in cycles of four: two lists (cycling through the filters), a create, and a get of a seeded pet
 * (`getIds`, see seedPets). Every request is static, so autocannon builds each once: a per-request setupRequest (to get
 * the pet just created) would cost a tenth of the generator's CPU and make the harness slower than the plain
 * autocannon it is measured against. Each response goes through the conformance tally, in hooks made once per
 * request template.
 */
export function mixRequests(
  basePath: string,
  key: ApiKey,
  tally: ConformanceTally,
  getIds: readonly string[],
): AcRequest[] {
  const auth = { authorization: `Bearer ${key.reveal()}` };
  const queries = listQueries();
  const onList = (status: number, body: string, _ctx: unknown, headers: RawHeaders): void =>
    void tally.check('listPets', status, headers, body);
  const onCreate = (status: number, body: string, _ctx: unknown, headers: RawHeaders): void =>
    void tally.check('createPet', status, headers, body);
  const onGet = (status: number, body: string, _ctx: unknown, headers: RawHeaders): void =>
    void tally.check('getPet', status, headers, body);
  const requests: AcRequest[] = [];
  for (let i = 0, n = 0; i < queries.length; i += 2, n++) {
    requests.push(
      { method: 'GET', path: `${basePath}/pets${queries[i]!}`, headers: auth, onResponse: onList },
      {
        method: 'GET',
        path: `${basePath}/pets${queries[(i + 1) % queries.length]!}`,
        headers: auth,
        onResponse: onList,
      },
      {
        method: 'POST',
        path: `${basePath}/pets`,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `load-${n}`,
          categoryId: n + 1,
          status: contract.petStatuses[n % contract.petStatuses.length],
        }),
        onResponse: onCreate,
      },
      {
        method: 'GET',
        path: `${basePath}/pets/${getIds[n % Math.max(1, getIds.length)] ?? '1'}`,
        headers: auth,
        onResponse: onGet,
      },
    );
  }
  return requests;
}

/** The same requests without hooks: what plain autocannon sends when the harness is measured against it. */
export function withoutHooks(requests: readonly AcRequest[]): AcRequest[] {
  return requests.map(({ onResponse: _o, setupRequest: _s, ...plain }) => plain);
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
