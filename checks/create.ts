/**
 * createPet (4.2): a valid NewPet gets 201 with the animal as sent and a service-assigned id; an invalid body gets 400
 * and adds nothing; an added animal can be fetched and listed; ids are unique. Exact-digit comparisons throughout:
 * int64 values beyond 2^53 must not compare equal by rounding.
 */
import type { Exchange } from '../http/exchange.js';
import { defineCheck, finding, observation, show, type Check, type AnyCheck } from './check.js';
import { causeText, markersIn, type Cause } from './cause.js';
import type { FieldCause } from './field-causes.js';
import { exactId, isObject, jsonOf, opLabel, queryOf, isAnswered, statusOf } from './facts.js';

export interface SentPet {
  readonly name: string;
  /** Exact decimal digits as sent. */
  readonly categoryId: string;
  readonly status?: string;
}

export interface CreateEvidence {
  readonly exchange: Exchange;
  readonly sent: SentPet;
  /** The name is at an edge (empty, whitespace, very long, unusual characters): name limits are a gap. */
  readonly nameEdge: boolean;
  /**
   * Whether the target is known to accept categoryIds it cannot have known before (it accepted fresh ones earlier in
   * the run). Category records are a gap (gap-2-category-record): a target that only takes existing categories may
   * reject a valid NewPet, so until this is known a 400 is recorded, not failed. Absent means known.
   */
  readonly categoriesOpen?: boolean;
}

export interface SuppliedIdEvidence {
  readonly exchange: Exchange;
  /** Exact digits of the id the client put in the NewPet. */
  readonly suppliedId: string;
}

export interface InvalidCreateEvidence {
  readonly exchange: Exchange;
  /** Why the body is invalid, e.g. 'missing name'. */
  readonly reason: string;
}

export interface NoEffectEvidence {
  /** The name of the rejected body, unique to it. */
  readonly marker: string;
  /** GET /pets?status=…&limit=100 after the rejection. */
  readonly lists: readonly Exchange[];
}

export interface RetrievableEvidence {
  readonly create: Exchange;
  readonly get: Exchange;
}

export interface ListedEvidence {
  readonly create: Exchange;
  readonly list: Exchange;
  /** The limit the list asked for: a full page may hold the animal on a later page. */
  readonly limit: number;
}

export interface IdsUniqueEvidence {
  readonly creates: readonly Exchange[];
}

/** The Pet object of a 201, or null. */
export function createdPet(ex: Exchange): Record<string, unknown> | null {
  const json = jsonOf(ex);
  return statusOf(ex) === 201 && isObject(json) ? json : null;
}

const idText = (v: unknown): string => {
  const n = exactId(v);
  return n !== null ? n.toString() : show(v, 40);
};

function describeName(name: string): string {
  if (name.length === 0) return 'an empty name';
  if (name.trim().length === 0) return `a whitespace-only name (${name.length} chars)`;
  if (name.length > 100) return `a name of ${name.length} chars`;
  return `the name ${show(name, 60)}`;
}

export const create201: Check<CreateEvidence, 'create-201'> = defineCheck({
  id: 'create-201',
  clauses: ['4.2-create-201', 'gap-2-category-record'],
  levels: ['violation', 'observation'],
  causes: ['status', 'gap'],
  area: 'createPet',
  title: 'A valid NewPet gets 201 (a 400 for an edge name is recorded by name-limits instead).',
  appliesTo: { what: 'answers to a create of a valid NewPet', test: ({ exchange: ex }) => isAnswered(ex) },
  run: ({ exchange: ex, sent, nameEdge, categoriesOpen }) => {
    const status = statusOf(ex);
    if (status === null || status === 201 || status === 429) return [];
    // A refusal (any 4xx but auth) of what the spec leaves open is recorded by name-limits or here, never failed:
    // edge names (gap-2-name-limits), categories the target may not know, and categoryId ≤ 0 (gap-2-category-record).
    const refusal = status >= 400 && status < 500 && status !== 401 && status !== 403;
    if (refusal && nameEdge) return [];
    const category = /^-?\d+$/.test(sent.categoryId) ? BigInt(sent.categoryId) : null;
    if (refusal && (categoriesOpen === false || category === null || category <= 0n)) {
      return [
        observation(
          create201,
          ex,
          `a valid NewPet with categoryId ${sent.categoryId} answered ${status}${categoriesOpen === false ? ' before the target had accepted fresh categoryIds' : ''}\nthe spec does not show which categories exist`,
          {
            actual: String(status),
            clause: 'gap-2-category-record',
            causes: [{ kind: 'gap', clause: 'gap-2-category-record', answer: String(status) }],
          },
        ),
      ];
    }
    // The target's own words about its refusal, when its Error says any: no cause carries them.
    const err = jsonOf(ex);
    const said = isObject(err) && typeof err.message === 'string' ? `(${show(err.message, 80)}) ` : '';
    return [
      finding(
        create201,
        ex,
        {
          on: `${said}for ${opLabel(ex)} with a valid NewPet (${describeName(sent.name)})`,
          because: 'the spec documents 201 for a valid NewPet',
        },
        {
          expected: '201',
          actual: String(status),
          causes: [{ kind: 'status', status, expected: [201] }],
        },
      ),
    ];
  },
});

export const nameLimits: Check<CreateEvidence, 'name-limits'> = defineCheck({
  id: 'name-limits',
  clauses: ['gap-2-name-limits'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'createPet',
  title: 'Records how names at the edges (empty, whitespace, very long, unusual) are answered.',
  appliesTo: {
    what: 'answers below 500 to a create whose name is at an edge: empty, whitespace only, very long or unusual',
    test: ({ exchange: ex, nameEdge }) => {
      const status = statusOf(ex);
      return nameEdge && status !== null && status !== 429 && status >= 200 && status <= 499;
    },
  },
  run: ({ exchange: ex, sent, nameEdge }) => {
    const status = statusOf(ex);
    if (!nameEdge || status === null || status === 429 || status < 200 || status > 499) return [];
    return [
      observation(
        nameLimits,
        ex,
        `${describeName(sent.name)} answered ${status}\nthe spec shows no length or character limits for name`,
        {
          actual: String(status),
          causes: [{ kind: 'gap', clause: nameLimits.clause, answer: String(status) }],
        },
      ),
    ];
  },
});

export const createEcho: Check<CreateEvidence, 'create-echo'> = defineCheck({
  id: 'create-echo',
  clauses: ['4.2-create-echo'],
  levels: ['violation'],
  causes: ['field'],
  area: 'createPet',
  title: 'The 201 body carries name, categoryId (exact digits) and status as sent.',
  appliesTo: { what: '201 answers to a create', test: ({ exchange: ex }) => createdPet(ex) !== null },
  run: ({ exchange: ex, sent }) => {
    const pet = createdPet(ex);
    if (!pet) return [];
    // One cause per changed field, each grouped on its own: two faults changing two fields are two defects.
    const causes: FieldCause[] = [];
    const markers = markersIn(pet);
    const changed = (field: string, value: string | undefined, was: string): void => {
      causes.push({
        kind: 'field',
        schema: 'Pet',
        path: `/${field}`,
        field,
        problem: 'changed',
        ...(value !== undefined && { value }),
        sent: was,
        ...(markers.length > 0 && { markers }),
      });
    };
    // Fields of the wrong type are the schema's business (body-schema): compare only comparable values.
    if (typeof pet.name === 'string' && pet.name !== sent.name)
      changed('name', show(pet.name, 60), show(sent.name, 60));
    const got = exactId(pet.categoryId);
    const want = exactId(sent.categoryId);
    if (got !== null && want !== null && got !== want) changed('categoryId', String(got), String(want));
    if (
      sent.status !== undefined &&
      (pet.status === undefined || typeof pet.status === 'string') &&
      pet.status !== sent.status
    ) {
      changed('status', pet.status === undefined ? undefined : show(pet.status, 30), show(sent.status, 30));
    }
    if (causes.length === 0) return [];
    return [
      finding(
        createEcho,
        ex,
        {
          lead: 'received',
          on: `in the 201 for ${opLabel(ex)}`,
          because: 'the spec documents the animal added as the NewPet sent',
        },
        {
          expected: show(sent, 200),
          actual: causes.map(causeText).join(', '),
          causes,
        },
      ),
    ];
  },
});

export const createDefaultStatus: Check<CreateEvidence, 'create-default-status'> = defineCheck({
  id: 'create-default-status',
  clauses: ['gap-2-default-status'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'createPet',
  title: 'Records the status of an animal created without one.',
  appliesTo: {
    what: '201 answers to a create sent without a status',
    test: ({ exchange: ex, sent }) => sent.status === undefined && createdPet(ex) !== null,
  },
  run: ({ exchange: ex, sent }) => {
    const pet = createdPet(ex);
    if (!pet || sent.status !== undefined) return [];
    const got = pet.status === undefined ? 'no status' : `status ${show(pet.status, 30)}`;
    return [
      observation(
        createDefaultStatus,
        ex,
        `a NewPet without status answered ${got}\nthe spec does not show the default status`,
        { actual: got, causes: [{ kind: 'gap', clause: createDefaultStatus.clause, answer: got }] },
      ),
    ];
  },
});

export const createIdNotClientSupplied: Check<SuppliedIdEvidence, 'create-id-not-client-supplied'> = defineCheck({
  id: 'create-id-not-client-supplied',
  clauses: ['2-pet-id-assigned'],
  levels: ['violation', 'observation'],
  causes: ['state', 'gap'],
  area: 'createPet',
  title: 'An id sent in a NewPet is not taken: the service assigns ids.',
  appliesTo: { what: 'answers to a NewPet sent with an id of its own', test: ({ exchange: ex }) => isAnswered(ex) },
  run: ({ exchange: ex, suppliedId }) => {
    const status = statusOf(ex);
    if (status === 400) {
      return [
        observation(
          createIdNotClientSupplied,
          ex,
          `a NewPet with an extra id answered 400\nthe spec says the client does not send id (rejecting it is allowed)`,
          {
            actual: '400',
            causes: [{ kind: 'gap', clause: createIdNotClientSupplied.clause, answer: '400' }],
          },
        ),
      ];
    }
    const pet = createdPet(ex);
    const supplied = exactId(suppliedId);
    if (!pet || supplied === null || exactId(pet.id) !== supplied) return [];
    return [
      finding(
        createIdNotClientSupplied,
        ex,
        { on: `in the 201 for ${opLabel(ex)}`, because: 'the spec documents id as assigned by the service' },
        {
          expected: `an id other than ${supplied}`,
          actual: String(supplied),
          causes: [{ kind: 'state', problem: 'client-id', field: 'id', id: String(supplied), value: String(supplied) }],
        },
      ),
    ];
  },
});

export const createInvalidRejected: Check<InvalidCreateEvidence, 'create-invalid-rejected'> = defineCheck({
  id: 'create-invalid-rejected',
  clauses: ['4.2-create-400'],
  levels: ['violation'],
  causes: ['status'],
  area: 'createPet',
  title: 'A body missing required fields or with invalid values gets 400.',
  appliesTo: {
    what: 'answers to a create body missing required fields or with invalid values',
    test: ({ exchange: ex }) => isAnswered(ex),
  },
  run: ({ exchange: ex, reason }) => {
    const status = statusOf(ex);
    if (status === null || status === 400 || status === 429) return [];
    const accepted = status >= 200 && status < 300;
    return [
      finding(
        createInvalidRejected,
        ex,
        {
          ...(accepted && { lead: `accepted invalid body (${reason}):` }),
          on: accepted ? `for ${opLabel(ex)}` : `for an invalid body (${reason}) for ${opLabel(ex)}`,
          because: 'the spec documents 400 for a body missing required fields or with invalid values',
        },
        {
          expected: '400',
          actual: String(status),
          causes: [{ kind: 'status', status, expected: [400] }],
        },
      ),
    ];
  },
});

export const createInvalidNoEffect: Check<NoEffectEvidence, 'create-invalid-no-effect'> = defineCheck({
  id: 'create-invalid-no-effect',
  clauses: ['4.2-create-400-no-effect'],
  levels: ['violation'],
  causes: ['state'],
  // Whatever kind of body was rejected, an animal left behind is one defect of the operation.
  signature: 'operation',
  area: 'createPet',
  title: 'A rejected body adds no animal.',
  // The scenarios hand it only the lists read after a body was refused with 400.
  appliesTo: { what: 'lists of the store read after a body was refused with 400', test: () => true },
  run: ({ marker, lists }) => {
    const hits: Exchange[] = [];
    const ids: string[] = [];
    for (const ex of lists ?? []) {
      const json = jsonOf(ex);
      if (statusOf(ex) !== 200 || !Array.isArray(json)) continue;
      const found = json.filter((p) => isObject(p) && p.name === marker);
      if (found.length) {
        hits.push(ex);
        ids.push(...found.map((p) => idText((p as Record<string, unknown>).id)));
      }
    }
    if (hits.length === 0) return [];
    // The cause names the first animal left behind; the others are said after it.
    const others = ids.length > 1 ? ` (also id ${ids.slice(1, 3).join(', ')}${ids.length > 3 ? ' …' : ''})` : '';
    return [
      finding(
        createInvalidNoEffect,
        hits,
        {
          on: `listed by ${opLabel(hits[0]!)}${others}`,
          because: 'the spec documents that a rejected body adds no animal',
        },
        {
          expected: 'no animal with that name',
          actual: `id ${ids.join(', ')}`.slice(0, 200),
          operation: 'createPet',
          causes: [
            {
              kind: 'state',
              problem: 'refused-stored',
              field: 'name',
              value: show(marker, 60),
              ...(ids[0] !== undefined && { id: ids[0] }),
            },
          ],
        },
      ),
    ];
  },
});

/** A field of two pets compared: ids exactly, strings by code units; both absent is equal. */
function sameField(field: string, a: unknown, b: unknown): boolean {
  if (field === 'id' || field === 'categoryId') {
    const x = exactId(a);
    return x !== null && x === exactId(b);
  }
  return a === b;
}

function fieldText(field: string, v: unknown): string {
  if (v === undefined) return 'absent';
  return field === 'id' || field === 'categoryId' ? idText(v) : show(v, 40);
}

export const createRetrievable: Check<RetrievableEvidence, 'create-retrievable'> = defineCheck({
  id: 'create-retrievable',
  clauses: ['4.2-create-retrievable'],
  levels: ['violation'],
  causes: ['state'],
  area: 'createPet',
  title: 'GET /pets/{id} of a created animal gives 200 with the same id, name, categoryId and status.',
  appliesTo: {
    what: 'answers to a get of an animal a create returned with its id',
    test: ({ create, get }) => {
      const pet = createdPet(create);
      return pet !== null && exactId(pet.id) !== null && isAnswered(get);
    },
  },
  run: ({ create, get }) => {
    const pet = createdPet(create);
    const status = statusOf(get);
    if (!pet || exactId(pet.id) === null || status === null || status === 429) return [];
    const id = idText(pet.id);
    if (status !== 200) {
      return [
        finding(
          createRetrievable,
          [create, get],
          { on: `for GET /pets/${id}`, because: 'the spec documents an added animal as retrievable (200)' },
          {
            expected: '200',
            actual: String(status),
            operation: 'getPet',
            causes: [
              { kind: 'state', problem: 'not-retrievable', field: null, id, value: String(status), expected: '200' },
            ],
          },
        ),
      ];
    }
    const got = jsonOf(get);
    if (!isObject(got)) return [];
    const fields = ['id', 'name', 'categoryId', 'status'].filter((f) => !sameField(f, pet[f], got[f]));
    if (fields.length === 0) return [];
    // One cause per field the store changed (status not stored is not a name changed).
    const causes: Cause[] = fields.map((f) => ({
      kind: 'state',
      problem: 'changed',
      field: f,
      id,
      value: fieldText(f, got[f]),
      expected: fieldText(f, pet[f]),
    }));
    return [
      finding(
        createRetrievable,
        [create, get],
        { on: `for GET /pets/${id}`, because: 'the spec documents the added animal as the one fetched' },
        {
          expected: show(pet, 200),
          actual: show(got, 200),
          operation: 'getPet',
          causes,
        },
      ),
    ];
  },
});

function queryStatus(ex: Exchange): string | null {
  return queryOf(ex)?.get('status') ?? null;
}

/**
 * Whether a list read after a create can show whether the animal is listed: a 200 list of a page that is not full (a
 * full page may hold it on a later one), that points to no next page (pagination is a gap: a short page with a next
 * link may still hold it later), filtered by its status or not at all (another filter says nothing of it).
 */
function listedJudgeable(create: Exchange, list: Exchange, limit: number): boolean {
  const pet = createdPet(create);
  const json = jsonOf(list);
  if (!pet || exactId(pet.id) === null || statusOf(list) !== 200 || !Array.isArray(json)) return false;
  if (!(json.length < limit) || hasMorePages(list, json.length)) return false;
  const filter = queryStatus(list);
  return filter === null || filter === pet.status;
}

export const createListed: Check<ListedEvidence, 'create-listed'> = defineCheck({
  id: 'create-listed',
  clauses: ['4.2-create-retrievable'],
  levels: ['violation'],
  causes: ['state'],
  area: 'createPet',
  title: 'A created animal appears in the list filtered by its status (judged only when the page is not full).',
  appliesTo: {
    what: 'lists read after a create, filtered by its status or not at all, on a page that is not full',
    test: ({ create, list, limit }) => listedJudgeable(create, list, limit),
  },
  run: ({ create, list, limit }) => {
    if (!listedJudgeable(create, list, limit)) return [];
    const pet = createdPet(create)!;
    const json = jsonOf(list) as unknown[];
    const id = exactId(pet.id);
    const filter = queryStatus(list);
    if (json.some((p) => isObject(p) && exactId(p.id) === id)) return [];
    return [
      finding(
        createListed,
        [create, list],
        {
          // The cause says the id and the filter; the page it is missing from is said here.
          on: `in the page of ${json.length} ${json.length === 1 ? 'animal' : 'animals'} received for ${opLabel(list)}`,
          because: 'the spec documents an added animal as listed',
        },
        {
          expected: `id ${id} listed`,
          actual: `${json.length} animals, none with id ${id}`,
          operation: 'listPets',
          causes: [
            {
              kind: 'state',
              problem: 'not-listed',
              field: null,
              id: String(id),
              ...(filter !== null && { expected: `listed with status=${filter}` }),
            },
          ],
        },
      ),
    ];
  },
});

export const idsUnique: Check<IdsUniqueEvidence, 'ids-unique'> = defineCheck({
  id: 'ids-unique',
  clauses: ['2-pet-id-unique'],
  levels: ['violation'],
  causes: ['state'],
  area: 'createPet',
  title: 'No two created animals share an id (exact digits).',
  appliesTo: {
    what: 'the animals a suite created, compared by id',
    test: ({ creates }) => (creates ?? []).some((ex) => createdPet(ex) !== null),
  },
  run: ({ creates }) => {
    const seen = new Map<bigint, Exchange>();
    const dups: Exchange[] = [];
    const dupIds = new Set<string>();
    for (const ex of creates ?? []) {
      const pet = createdPet(ex);
      const id = pet ? exactId(pet.id) : null;
      if (id === null) continue;
      const first = seen.get(id);
      if (first) {
        if (!dups.includes(first)) dups.push(first);
        dups.push(ex);
        dupIds.add(id.toString());
      } else seen.set(id, ex);
    }
    if (dupIds.size === 0) return [];
    return [
      finding(
        idsUnique,
        dups.slice(0, 10),
        { on: `in the 201s of ${opLabel(dups[0]!)}`, because: 'the spec documents id as a unique identifier' },
        {
          expected: 'unique ids',
          actual: `duplicated: ${[...dupIds].join(', ')}`.slice(0, 200),
          operation: 'createPet',
          causes: [...dupIds]
            .slice(0, 10)
            .map((d) => ({ kind: 'state', problem: 'duplicate-id', field: 'id', id: d, value: d }) as const),
        },
      ),
    ];
  },
});

export const createChecks = [
  create201,
  nameLimits,
  createEcho,
  createDefaultStatus,
  createIdNotClientSupplied,
  createInvalidRejected,
  createInvalidNoEffect,
  createRetrievable,
  createListed,
  idsUnique,
] satisfies readonly AnyCheck[];

function hasMorePages(ex: Exchange, shown: number): boolean {
  const h = ex.response?.headers ?? {};
  const text = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));
  if (/rel="?next"?/i.test(text(h.link))) return true;
  const total = Number(text(h['x-total-count']));
  if (Number.isFinite(total) && total > shown) return true;
  return Object.keys(h).some((k) => /cursor|next-page|page-token/i.test(k));
}

/**
 * The checks a create's own request and answer show whole, with nothing else to know (no lead-up, no state of the
 * run): a replay resends the create and judges its answer with them again (reports/replay-file.ts, judge `create`).
 */
export const judgedByOneCreate: readonly Check<CreateEvidence>[] = [createEcho];

/** What a NewPet body sent, as the create checks compare it (categoryId by its exact digits), or null if it is none. */
export function sentPetOf(body: unknown): SentPet | null {
  if (!isObject(body) || typeof body.name !== 'string' || typeof body.categoryId === 'string') return null;
  const category = exactId(body.categoryId);
  if (category === null) return null;
  const status = body.status;
  if (status !== undefined && typeof status !== 'string') return null;
  return { name: body.name, categoryId: category.toString(), ...(status !== undefined && { status }) };
}
