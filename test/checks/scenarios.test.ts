/** Checks of scenario evidence: auth, listPets, createPet, getPet, the model test. One file keeps the fork count (and the run) small. */
import { describe, expect, it } from 'vitest';
import { authRejected, authValidAccepted } from '../../checks/auth.js';
import * as c from '../../checks/create.js';
import { get200, get404, getInvalidId } from '../../checks/get.js';
import * as l from '../../checks/list.js';
import { modelConsistency } from '../../checks/stateful.js';
import { exchange, PET } from './fixtures.js';

// --- auth ---
const invalid = { name: 'missing Authorization', valid: false };
const valid = { name: 'lowercase bearer scheme', valid: true };

describe('auth-rejected', () => {
  it('passes 401; 429 and transport errors are inconclusive', () => {
    expect(authRejected.run({ exchange: exchange({ status: 401, keyPlan: 'none' }), variant: invalid })).toEqual([]);
    expect(authRejected.run({ exchange: exchange({ status: 429 }), variant: invalid })).toEqual([]);
    expect(
      authRejected.run({ exchange: exchange({ error: { code: 'ECONNRESET', message: 'x' } }), variant: invalid }),
    ).toEqual([]);
  });
  it('fails 200 and names 403 instead of 401', () => {
    const [ok] = authRejected.run({ exchange: exchange(), variant: invalid });
    expect(ok?.message).toBe(
      'received 200 for GET /pets with missing Authorization\nthe spec documents 401 for a missing or invalid key',
    );
    const [forbidden] = authRejected.run({ exchange: exchange({ status: 403 }), variant: invalid });
    expect(forbidden?.message.split('\n')[0]).toBe(
      'received 403 instead of 401 for GET /pets with missing Authorization',
    );
    expect(forbidden?.level).toBe('violation');
  });
  it('does not judge valid variants', () => {
    expect(authRejected.run({ exchange: exchange(), variant: valid })).toEqual([]);
  });
  it('a near miss or a second header served is an authentication bypass; two headers may be refused with 400', () => {
    const near = { name: 'key in another case', valid: false, nearMiss: 'case' };
    const [bypass] = authRejected.run({ exchange: exchange(), variant: near });
    expect(bypass?.message).toBe(
      'received 200 for GET /pets with key in another case (an authentication bypass: what is not the key was taken for it)\nthe spec documents 401 for a missing or invalid key',
    );
    expect(authRejected.run({ exchange: exchange({ status: 400 }), variant: near })).toHaveLength(1);
    const twice = {
      name: 'two Authorization headers, the key first',
      valid: false,
      repeated: 'Bearer other',
      malformed: true,
    };
    expect(authRejected.run({ exchange: exchange({ status: 400 }), variant: twice })).toEqual([]);
    expect(authRejected.run({ exchange: exchange(), variant: twice })[0]?.message).toContain('authentication bypass');
  });
});

describe('auth-valid-accepted', () => {
  it('passes 200 and 429, fails 401 and 403', () => {
    expect(authValidAccepted.run({ exchange: exchange(), variant: valid })).toEqual([]);
    expect(authValidAccepted.run({ exchange: exchange({ status: 429 }), variant: valid })).toEqual([]);
    expect(authValidAccepted.run({ exchange: exchange({ status: 401 }), variant: valid })).toHaveLength(1);
    expect(authValidAccepted.run({ exchange: exchange({ status: 403 }), variant: valid })[0]?.message).toBe(
      'received 403 for GET /pets with lowercase bearer scheme\nthe spec documents Authorization: Bearer <API_KEY> (scheme case-insensitive) as accepted',
    );
    expect(authValidAccepted.run({ exchange: exchange({ status: 401 }), variant: invalid })).toEqual([]);
  });
});

// --- listPets ---
const pets = (n: number, status = 'available') =>
  `[${Array.from({ length: n }, (_, i) => `{"id":${i + 1},"name":"p${i}","categoryId":1,"status":"${status}"}`).join(',')}]`;
const ev = (
  query: l.ListEvidence['query'],
  valid: boolean,
  init: Parameters<typeof exchange>[0] = {},
): l.ListEvidence => ({
  exchange: exchange({ path: `/pets${query.raw ? `?${query.raw}` : ''}`, ...init }),
  query,
  valid,
});

describe('list-200', () => {
  it('passes 200, 429 inconclusive, fails 400 for a valid query', () => {
    expect(l.list200.run(ev({ limit: 5, raw: 'limit=5' }, true))).toEqual([]);
    expect(l.list200.run(ev({ raw: '' }, true, { status: 429 }))).toEqual([]);
    expect(l.list200.run(ev({ limit: 5, raw: 'limit=5' }, true, { status: 400 }))[0]?.message).toBe(
      'received 400 for GET /pets with limit=5\nthe spec documents 200 for a valid query',
    );
  });
});

describe('list-limit-respected', () => {
  it('passes up to limit, fails beyond', () => {
    expect(l.listLimitRespected.run(ev({ limit: 3, raw: 'limit=3' }, true, { body: pets(3) }))).toEqual([]);
    expect(l.listLimitRespected.run(ev({ limit: 3, raw: 'limit=3' }, true, { body: pets(4) }))[0]?.message).toBe(
      'limit 3 not honoured: 4 animals for GET /pets\nthe spec documents limit as the maximum number returned',
    );
  });
});

describe('list-default-limit', () => {
  it('passes 20 without limit, fails 21; not applied when limit is given', () => {
    expect(l.listDefaultLimit.run(ev({ raw: '' }, true, { body: pets(20) }))).toEqual([]);
    expect(l.listDefaultLimit.run(ev({ raw: '' }, true, { body: pets(21) }))[0]?.message).toBe(
      'limit (default) 20 not honoured: 21 animals for GET /pets\nthe spec documents a default limit of 20',
    );
    expect(l.listDefaultLimit.run(ev({ limit: 50, raw: 'limit=50' }, true, { body: pets(21) }))).toEqual([]);
  });
});

describe('list-status-filter', () => {
  it('passes matching items, fails others and missing status', () => {
    expect(l.listStatusFilter.run(ev({ status: 'sold', raw: 'status=sold' }, true, { body: pets(3, 'sold') }))).toEqual(
      [],
    );
    expect(
      l.listStatusFilter.run(ev({ status: 'sold', raw: 'status=sold' }, true, { body: pets(2, 'available') })),
    ).toHaveLength(1);
    const [f] = l.listStatusFilter.run(
      ev({ status: 'sold', raw: 'status=sold' }, true, { body: '[{"id":9007199254740993,"name":"a","categoryId":1}]' }),
    );
    // The animals at fault are the cause's: the message says them from it.
    expect(f?.causes).toEqual([
      {
        kind: 'query',
        parameter: 'status',
        value: 'sold',
        observed: '1 of 1 animals not sold (id 9007199254740993 status absent)',
      },
    ]);
    expect(f?.message).toBe(
      'status sold not honoured: 1 of 1 animals not sold (id 9007199254740993 status absent) for GET /pets\nthe spec documents status as restricting the result to animals with this status',
    );
  });
});

describe('list-invalid-query', () => {
  it('records 400 and 200 as observations with the gap clause', () => {
    const [a] = l.listInvalidQuery.run(ev({ limit: 0, raw: 'limit=0' }, false, { status: 400 }));
    expect(a?.level).toBe('observation');
    expect(a?.message.split('\n')[0]).toBe('limit=0 answered 400');
    expect(a?.clause).toBe('gap-4-out-of-range-limit');
    const [b] = l.listInvalidQuery.run(ev({ status: 'lost', raw: 'status=lost' }, false, { body: '[]' }));
    expect(b?.message.split('\n')[0]).toBe('status=lost answered 200 with 0 animals');
    expect(b?.clause).toBe('gap-4-unknown-status-filter');
    expect(b?.level).toBe('observation');
  });
  it.each([
    ['?limit=0', 'an out-of-range limit (1..100)'],
    ['?limit=101&status=sold', 'an out-of-range limit (1..100)'],
    ['?limit=', 'an empty limit'],
    ['?limit', 'an empty limit'],
    ['?limit=5&limit=7', 'a repeated limit'],
    ['?limit=1.5', 'a limit that is not a whole number'],
    ['?limit=abc', 'a limit that is not a number'],
    ['?limit=1e2', 'a limit that is not a number'],
    ['?status=lost', 'an unknown status filter'],
    ['?status=', 'an empty status filter'],
    ['?status=sold&status=sold', 'a repeated status filter'],
  ])('%s is said as what it is: %s', (raw, gap) => {
    const [f] = l.listInvalidQuery.run(ev({ raw }, false, { status: 400 }));
    expect(f?.message.split('\n')[1]).toBe(`the spec does not show the answer to ${gap}`);
    expect(f?.clause).toBe(/status/.test(gap) ? 'gap-4-unknown-status-filter' : 'gap-4-out-of-range-limit');
  });
  it('is silent for valid queries and 429', () => {
    expect(l.listInvalidQuery.run(ev({ raw: '' }, true))).toEqual([]);
    expect(l.listInvalidQuery.run(ev({ limit: 0, raw: 'limit=0' }, false, { status: 429 }))).toEqual([]);
  });
});

describe('list-pagination', () => {
  it('records hints and their absence, as observations', () => {
    const [a] = l.listPagination.run(
      ev({ raw: '' }, true, { headers: { link: '<https://x/pets?cursor=2>; rel="next"', 'x-total-count': '42' } }),
    );
    expect(a?.level).toBe('observation');
    expect(a?.message).toContain('link, x-total-count');
    expect(l.listPagination.run(ev({ raw: '' }, true))[0]?.message).toContain('no pagination headers');
    expect(l.listPagination.run(ev({ raw: '' }, true, { status: 401 }))).toEqual([]);
  });
});

// --- createPet ---
const sent: c.SentPet = { name: 'Rex', categoryId: '9007199254740993', status: 'pending' };
const created = (body: string, seq?: number) => exchange({ operation: 'createPet', body, ...(seq ? { seq } : {}) });
const BIG = '{"id":9007199254740993,"name":"Rex","categoryId":9007199254740993,"status":"pending"}';

describe('create-201', () => {
  it('passes 201, 429 inconclusive, 400 accepted for an edge name', () => {
    expect(c.create201.run({ exchange: created(BIG), sent, nameEdge: false })).toEqual([]);
    expect(
      c.create201.run({ exchange: exchange({ operation: 'createPet', status: 429 }), sent, nameEdge: false }),
    ).toEqual([]);
    expect(
      c.create201.run({
        exchange: exchange({ operation: 'createPet', status: 400 }),
        sent: { ...sent, name: '' },
        nameEdge: true,
      }),
    ).toEqual([]);
  });
  it('fails 400 and 200 for a valid NewPet', () => {
    const [f] = c.create201.run({ exchange: exchange({ operation: 'createPet', status: 400 }), sent, nameEdge: false });
    expect(f?.message).toBe(
      'received 400 ("m") for POST /pets with a valid NewPet (the name "Rex")\nthe spec documents 201 for a valid NewPet',
    );
    expect(
      c.create201.run({
        exchange: exchange({ operation: 'createPet', status: 200, body: BIG }),
        sent,
        nameEdge: false,
      }),
    ).toHaveLength(1);
  });
});

describe('name-limits', () => {
  it('records edge-name answers as observations only', () => {
    const long = { ...sent, name: 'x'.repeat(10_000) };
    const [a] = c.nameLimits.run({
      exchange: exchange({ operation: 'createPet', status: 400 }),
      sent: long,
      nameEdge: true,
    });
    expect(a?.level).toBe('observation');
    expect(a?.message.split('\n')[0]).toBe('a name of 10000 chars answered 400');
    expect(
      c.nameLimits.run({ exchange: created(BIG), sent: { ...sent, name: ' ' }, nameEdge: true })[0]?.message,
    ).toContain('whitespace-only name');
    expect(c.nameLimits.run({ exchange: created(BIG), sent, nameEdge: false })).toEqual([]);
  });
});

describe('create-echo', () => {
  it('passes an exact echo beyond 2^53', () => {
    expect(c.createEcho.run({ exchange: created(BIG), sent, nameEdge: false })).toEqual([]);
  });
  it('fails 9007199254740992 for a sent 9007199254740993 (no rounding)', () => {
    const body = BIG.replace('"categoryId":9007199254740993', '"categoryId":9007199254740992');
    const [f] = c.createEcho.run({ exchange: created(body), sent, nameEdge: false });
    expect(f?.message).toContain('categoryId 9007199254740992 (sent 9007199254740993)');
  });
  it('fails a changed name (code units) and a dropped status', () => {
    expect(c.createEcho.run({ exchange: created(BIG.replace('"Rex"', '"rex"')), sent, nameEdge: false })).toHaveLength(
      1,
    );
    const cafe = { ...sent, name: 'Cafe\u0301' };
    expect(
      c.createEcho.run({ exchange: created(BIG.replace('"Rex"', '"Caf\u00e9"')), sent: cafe, nameEdge: false }),
    ).toHaveLength(1);
    expect(
      c.createEcho.run({
        exchange: created('{"id":1,"name":"Rex","categoryId":9007199254740993}'),
        sent,
        nameEdge: false,
      })[0]?.message,
    ).toContain('status absent');
  });
});

describe('create-default-status', () => {
  it('records what status came back when none was sent', () => {
    const noStatus = { name: 'Rex', categoryId: '1' };
    const [a] = c.createDefaultStatus.run({
      exchange: created('{"id":1,"name":"Rex","categoryId":1,"status":"available"}'),
      sent: noStatus,
      nameEdge: false,
    });
    expect(a?.level).toBe('observation');
    expect(a?.message.split('\n')[0]).toBe('a NewPet without status answered status "available"');
    expect(
      c.createDefaultStatus.run({
        exchange: created('{"id":1,"name":"Rex","categoryId":1}'),
        sent: noStatus,
        nameEdge: false,
      })[0]?.message,
    ).toContain('no status');
    expect(c.createDefaultStatus.run({ exchange: created(BIG), sent, nameEdge: false })).toEqual([]);
  });
});

describe('create-id-not-client-supplied', () => {
  it('passes an assigned id, fails the supplied id (exact), records a 400', () => {
    const suppliedId = '9007199254740993';
    expect(
      c.createIdNotClientSupplied.run({
        exchange: created(BIG.replace('"id":9007199254740993', '"id":9007199254740992')),
        suppliedId,
      }),
    ).toEqual([]);
    const [f] = c.createIdNotClientSupplied.run({ exchange: created(BIG), suppliedId });
    expect(f?.level).toBe('violation');
    expect(f?.message).toBe(
      "the client's id was taken (id 9007199254740993) in the 201 for POST /pets\nthe spec documents id as assigned by the service",
    );
    const [o] = c.createIdNotClientSupplied.run({
      exchange: exchange({ operation: 'createPet', status: 400 }),
      suppliedId,
    });
    expect(o?.level).toBe('observation');
  });
});

describe('create-invalid-rejected', () => {
  it('passes 400, 429 inconclusive, fails 201 and 422', () => {
    const bad = (status: number) => ({
      exchange: exchange({ operation: 'createPet', status, requestBody: '{}' }),
      reason: 'missing name and categoryId',
    });
    expect(c.createInvalidRejected.run(bad(400))).toEqual([]);
    expect(c.createInvalidRejected.run(bad(429))).toEqual([]);
    expect(c.createInvalidRejected.run(bad(201))[0]?.message).toBe(
      'accepted invalid body (missing name and categoryId): received 201 for POST /pets\nthe spec documents 400 for a body missing required fields or with invalid values',
    );
    expect(c.createInvalidRejected.run(bad(422))[0]?.message.split('\n')[0]).toBe(
      'received 422 for an invalid body (missing name and categoryId) for POST /pets',
    );
  });
});

describe('create-invalid-no-effect', () => {
  it('passes when the marker is not listed, fails when it is', () => {
    const marker = 'rejected-123';
    const list = (body: string) => exchange({ path: '/pets?status=available&limit=100', body });
    expect(
      c.createInvalidNoEffect.run({
        marker,
        lists: [list('[{"id":1,"name":"x","categoryId":1}]'), exchange({ status: 429 })],
      }),
    ).toEqual([]);
    const [f] = c.createInvalidNoEffect.run({ marker, lists: [list(`[{"id":5,"name":"${marker}","categoryId":1}]`)] });
    expect(f?.message).toBe(
      'a refused body was stored (id 5): name "rejected-123" listed by GET /pets\nthe spec documents that a rejected body adds no animal',
    );
    // Every animal left behind is said: the cause names the first, the first line the others.
    const twice = `[{"id":5,"name":"${marker}","categoryId":1},{"id":6,"name":"${marker}","categoryId":1}]`;
    expect(c.createInvalidNoEffect.run({ marker, lists: [list(twice)] })[0]?.message.split('\n')[0]).toBe(
      'a refused body was stored (id 5): name "rejected-123" listed by GET /pets (also id 6)',
    );
    expect(f?.operation).toBe('createPet');
  });
});

describe('create-retrievable', () => {
  const create = created(BIG);
  it('passes an exact round trip, 429 inconclusive', () => {
    expect(c.createRetrievable.run({ create, get: exchange({ operation: 'getPet', body: BIG }) })).toEqual([]);
    expect(c.createRetrievable.run({ create, get: exchange({ operation: 'getPet', status: 429 }) })).toEqual([]);
  });
  it('fails a rounded id, a changed field and a 404', () => {
    const rounded = BIG.replace('"id":9007199254740993', '"id":9007199254740992');
    expect(c.createRetrievable.run({ create, get: exchange({ operation: 'getPet', body: rounded }) })[0]?.message).toBe(
      'a stored animal differs from the one created (id 9007199254740993): id 9007199254740992, expected 9007199254740993 for GET /pets/9007199254740993\nthe spec documents the added animal as the one fetched',
    );
    expect(
      c.createRetrievable.run({ create, get: exchange({ operation: 'getPet', body: BIG.replace('pending', 'sold') }) }),
    ).toHaveLength(1);
    expect(c.createRetrievable.run({ create, get: exchange({ operation: 'getPet', status: 404 }) })[0]?.message).toBe(
      'a created animal is not retrievable (id 9007199254740993): 404, expected 200 for GET /pets/9007199254740993\nthe spec documents an added animal as retrievable (200)',
    );
  });
});

describe('create-listed', () => {
  const create = created(BIG);
  const list = (body: string, path = '/pets?status=pending&limit=100') => exchange({ path, body });
  it('passes when listed; no finding for a full page or another filter', () => {
    expect(c.createListed.run({ create, list: list(`[${BIG}]`), limit: 100 })).toEqual([]);
    expect(c.createListed.run({ create, list: list('[{"id":1,"name":"a","categoryId":1}]'), limit: 1 })).toEqual([]);
    expect(c.createListed.run({ create, list: list('[]', '/pets?status=sold'), limit: 100 })).toEqual([]);
  });
  it('fails when a short page lacks it (exact id comparison)', () => {
    const near = BIG.replace('"id":9007199254740993', '"id":9007199254740992');
    expect(c.createListed.run({ create, list: list(`[${near}]`), limit: 100 })[0]?.message).toBe(
      'a created animal is not listed (id 9007199254740993): expected listed with status=pending in the page of 1 animal received for GET /pets\nthe spec documents an added animal as listed',
    );
    // Unfiltered, the cause names no filter: the first line says the id and the page.
    const unfiltered = c.createListed.run({ create, list: list(`[${near},${near}]`, '/pets?limit=100'), limit: 100 });
    expect(unfiltered[0]?.message.split('\n')[0]).toBe(
      'a created animal is not listed (id 9007199254740993) in the page of 2 animals received for GET /pets',
    );
  });
});

describe('ids-unique', () => {
  it('passes distinct ids that round to the same double, fails a repeat', () => {
    const a = created(BIG, 1);
    const b = created(BIG.replace('"id":9007199254740993', '"id":9007199254740992'), 2);
    expect(c.idsUnique.run({ creates: [a, b, exchange({ operation: 'createPet', status: 429 })] })).toEqual([]);
    const [f] = c.idsUnique.run({ creates: [a, b, created(BIG, 3)] });
    expect(f?.message).toBe(
      'one id was given to two animals (id 9007199254740993) in the 201s of POST /pets\nthe spec documents id as a unique identifier',
    );
    expect(f?.exchanges.map((e) => e.seq)).toEqual([1, 3]);
  });
});

// --- getPet ---
const createdBy7 = exchange({ operation: 'createPet', seq: 7 });

describe('get-200', () => {
  it('passes 200, 429 inconclusive, fails 404', () => {
    expect(get200.run({ exchange: exchange({ operation: 'getPet' }), expected: createdBy7 })).toEqual([]);
    expect(get200.run({ exchange: exchange({ operation: 'getPet', status: 429 }), expected: createdBy7 })).toEqual([]);
    const [f] = get200.run({ exchange: exchange({ operation: 'getPet', status: 404 }), expected: createdBy7 });
    expect(f?.message).toBe(
      'received 404 for GET /pets/{petId} of an animal created by #7\nthe spec documents 200 for an animal that exists',
    );
    expect(f?.exchanges).toHaveLength(2);
  });
});

describe('get-404', () => {
  it('passes 404, fails 200 and 400 for an int64 never created', () => {
    const petId = '9223372036854775807';
    expect(
      get404.run({ exchange: exchange({ operation: 'getPet', status: 404, path: `/pets/${petId}` }), petId }),
    ).toEqual([]);
    expect(get404.run({ exchange: exchange({ operation: 'getPet', status: 429 }), petId })).toEqual([]);
    expect(get404.run({ exchange: exchange({ operation: 'getPet', status: 200 }), petId })[0]?.message).toContain(
      `GET /pets/${petId} which was never created`,
    );
    expect(get404.run({ exchange: exchange({ operation: 'getPet', status: 400 }), petId })).toHaveLength(1);
  });

  it("a 200 with a valid Pet of exactly that id is another client's pet (observation); any other 200 fails", () => {
    const petId = '9007199254740993';
    const pet = (id: string) => `{"id":${id},"name":"theirs","categoryId":1,"status":"sold"}`;
    const judged = (body: string) =>
      get404.run({ exchange: exchange({ operation: 'getPet', status: 200, body }), petId });
    expect(judged(pet(petId)).map((f) => f.level)).toEqual(['observation']);
    expect(judged(pet('9007199254740992')).map((f) => f.level)).toEqual(['violation']);
    expect(judged(`{"id":${petId},"name":"no category"}`).map((f) => f.level)).toEqual(['violation']);
    expect(judged('null').map((f) => f.level)).toEqual(['violation']);
  });
});

describe('get-invalid-id', () => {
  it('records any answer as an observation, never a violation', () => {
    for (const status of [400, 404, 422, 500]) {
      const [f] = getInvalidId.run({
        exchange: exchange({ operation: 'getPet', status, path: '/pets/abc' }),
        petId: 'abc',
      });
      expect(f?.level).toBe('observation');
      expect(f?.message.split('\n')[0]).toBe(`petId "abc" answered ${status}`);
    }
    expect(getInvalidId.run({ exchange: exchange({ operation: 'getPet', status: 429 }), petId: 'abc' })).toEqual([]);
  });
});

// --- stateful ---
describe('model-consistency', () => {
  const rex = { name: 'Rex', categoryId: '2', status: 'available' };
  it('judges a fetched pet against the model: agreement and 429 pass, any other answer fails', () => {
    const ok = exchange({ operation: 'getPet', body: PET });
    expect(modelConsistency.run({ kind: 'fetched', exchange: ok, id: '1', pet: rex })).toEqual([]);
    const limited = exchange({ operation: 'getPet', status: 429 });
    expect(modelConsistency.run({ kind: 'fetched', exchange: limited, id: '1', pet: rex })).toEqual([]);
    const [f] = modelConsistency.run({
      kind: 'fetched',
      exchange: exchange({ operation: 'getPet', status: 404 }),
      id: '1',
      pet: rex,
    });
    expect(f?.level).toBe('violation');
    expect(f?.message).toMatch(
      /^a created animal is not retrievable \(id 1\): 404, expected 200 for GET \/pets\/\{petId\}\nthe model of the spec expects 200 with \{"id":1,"name":"Rex"/,
    );
    const sold = exchange({ operation: 'getPet', body: PET.replace('available', 'sold') });
    const [g] = modelConsistency.run({ kind: 'fetched', exchange: sold, id: '1', pet: rex });
    expect(g?.message.split('\n')[0]).toBe('received status "sold" (sent "available") for GET /pets/{petId} of pet 1');
    const garbled = exchange({ operation: 'getPet', body: '"Rex"' });
    expect(modelConsistency.run({ kind: 'fetched', exchange: garbled, id: '1', pet: rex })[0]?.message).toMatch(
      /^received a body that is no Pet object: a created animal is not retrievable \(id 1\): 200, expected 200 for GET \/pets\/\{petId\}\n/,
    );
  });
  it('judges a list only where it shows a pet the model holds', () => {
    const pets = new Map([['1', rex]]);
    const other = '{"id":9,"name":"x","categoryId":2,"status":"sold"}';
    expect(modelConsistency.run({ kind: 'listed', exchange: exchange({ body: `[${PET},${other}]` }), pets })).toEqual(
      [],
    );
    const drifted = PET.replace('available', 'sold');
    const found = modelConsistency.run({ kind: 'listed', exchange: exchange({ body: `[${drifted},${other}]` }), pets });
    expect(found.map((f) => f.message.split('\n')[1])).toEqual([
      'the model of the spec expects pet 1 listed as created: {"id":1,"name":"Rex","categoryId":2,"status":"available"}',
    ]);
  });
  it('prints ids and categories as the JSON numbers they are, exact beyond 2^53', () => {
    const big = '9007199254740993';
    const pet = { name: 'Rex', categoryId: big, status: 'available' };
    const body = `[{"id":${big},"name":"Rex","categoryId":${big},"status":"sold"}]`;
    const [f] = modelConsistency.run({ kind: 'listed', exchange: exchange({ body }), pets: new Map([[big, pet]]) });
    // The first line says the field that differs (its cause); the actual keeps the item as the target sent it.
    expect(f?.message).toBe(
      `received status "sold" (sent "available") for pet ${big}\n` +
        `the model of the spec expects pet ${big} listed as created: {"id":${big},"name":"Rex","categoryId":${big},"status":"available"}`,
    );
    expect(f?.actual).toBe(`{"id":${big},"name":"Rex","categoryId":${big},"status":"sold"}`);
    const rounded = `[{"id":${big},"name":"Rex","categoryId":9007199254740992,"status":"available"}]`;
    const [g] = modelConsistency.run({
      kind: 'listed',
      exchange: exchange({ body: rounded }),
      pets: new Map([[big, pet]]),
    });
    expect(g?.causes).toEqual([
      {
        kind: 'field',
        schema: 'Pet',
        path: '/0/categoryId',
        field: 'categoryId',
        problem: 'changed',
        value: '9007199254740992',
        sent: big,
      },
    ]);
  });
  it('a created id the model already holds is a duplicate', () => {
    const ex = exchange({ operation: 'createPet' });
    expect(modelConsistency.run({ kind: 'created', exchange: ex, knownIds: ['7'] })).toEqual([]);
    const [f] = modelConsistency.run({ kind: 'created', exchange: ex, knownIds: ['7', '1'] });
    expect(f?.actual).toBe('id 1 (already assigned to another pet)');
    expect(f?.message).toBe(
      'one id was given to two animals (id 1) in the 201 for POST /pets\nthe model of the spec expects a new id, not one of the 2 this run created',
    );
  });
});
