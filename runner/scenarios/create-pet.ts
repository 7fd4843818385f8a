/**
 * createPet: valid NewPets are added exactly as sent and can be fetched and listed; invalid ones get 400 and add
 * nothing; ids are unique, also across concurrent creates; a client-supplied id is not honoured.
 */
import fc from 'fast-check';
import { parameter } from '../../spec/contract.js';
import {
  COVERAGE_NAMES,
  integerEdges,
  integerRange,
  invalidBodyCase,
  invalidKind,
  invalidNewPet,
  invalidNewPetKinds,
  isEdgeName,
  newPetBody,
  newPetShape,
  type CaseRef,
  type GeneratedPet,
  type InvalidBody,
} from '../../generators/index.js';
import {
  createIdNotClientSupplied,
  createInvalidNoEffect,
  createInvalidRejected,
  createListed,
  createRetrievable,
  idsUnique,
} from '../../checks/create.js';
import type { Exchange } from '../../http/exchange.js';
import type { RunContext } from '../context.js';
import { checkProperty, property } from '../property.js';
import { contract } from '../../spec/contract.js';
import { returnedPet, listedPets, usableId } from '../pets.js';
import * as req from '../requests.js';
import { createAndJudge, fetchCreated } from '../steps/create-and-judge.js';

/** How many rejected bodies are followed by a search of the store for them (each search costs two lists). */
const NO_EFFECT_SAMPLES = 12;
/** Of those, how many in the coverage phase: the rest are left to the random phase. */
const NO_EFFECT_COVERAGE = 3;
/** How many creates are also looked for in the list (each costs a list). */
const LISTED_SAMPLES = 15;
const CONCURRENT_CREATES = 10;

/**
 * A create as ids-unique needs it for the whole scenario (one per case, so it grows with --runs): the request (the
 * finding's curl) and the answer's status and id; the body and headers of the answer, judged already, are dropped.
 */
function idOnly(ex: Exchange): Exchange {
  if (!ex.response) return ex;
  const json = ex.response.json;
  const id =
    typeof json === 'object' && json !== null && !Array.isArray(json) ? { id: (json as { id?: unknown }).id } : json;
  return { ...ex, response: { ...ex.response, headers: {}, body: new Uint8Array(0), bodyText: '', json: id } };
}

const maxLimit = () => Number(parameter('listPets', 'limit').schema.maximum);

/** The case of an invalid body (generators/invalid-new-pet.ts), in a finding's signature. */
export const invalidCase = (inv: InvalidBody): CaseRef => invalidBodyCase(inv);

/** One invalid body of each kind the generator knows, whatever the seed: no kind is left to chance in a short run. */
export function oneOfEachInvalidKind(seed: number): InvalidBody[] {
  const kinds = new Map<string, InvalidBody>();
  // Each kind from its own seed, so that their marker names differ.
  for (const [i, arb] of invalidNewPetKinds().entries()) {
    const inv = fc.sample(arb, { seed: seed + i, numRuns: 1 })[0]!;
    const kind = invalidKind(inv);
    if (!kinds.has(kind)) kinds.set(kind, inv);
  }
  return [...kinds.values()];
}

/**
 * The coverage phase's valid pets: one of each name class a store is known to mangle, with each status (and none) in
 * turn and categoryIds at the edges of their int64 range (its ends, the double-precision border), whatever the seed.
 */
export function coveragePets(ctx: RunContext): GeneratedPet[] {
  const plain = fc.sample(
    ctx.newPets().filter((p) => !p.nameEdge),
    { seed: ctx.seed + 5, numRuns: 1 },
  )[0]!;
  const edges = integerEdges(integerRange(newPetShape().categoryId.schema))
    .filter((n) => n > 2n ** 52n || n < -(2n ** 52n))
    .map(String);
  const statuses = [...contract.petStatuses, undefined];
  // The run's prefix marks the edge names too where the class survives it (a mark, an emoji, a NUL, a long name stay
  // what they are after a prefix); a leading pad would not.
  const prefix = ctx.settings.namePrefix ?? '';
  return COVERAGE_NAMES.map((edge, i) => {
    const status = statuses[i % statuses.length];
    const name = edge === null ? plain.name : /^\s/.test(edge) ? edge : prefix + edge;
    const pet = { name, categoryId: edges[i % edges.length]!, nameEdge: isEdgeName(name) };
    return status === undefined ? pet : { ...pet, status };
  });
}

/**
 * How many kinds the coverage phase sends: arbitraries of one kind (two fractions, four malformed JSONs) are sent once.
 * The kind is the reason without its values, so the count is the same for every seed.
 */
let kindCount: number | undefined;

/** Requests of the coverage phase: each invalid kind (a few searched for), each coverage pet, the concurrent creates, the client id. */
export function createPetCoverage(): number {
  kindCount ??= oneOfEachInvalidKind(0).length;
  return kindCount + 2 * NO_EFFECT_COVERAGE + 3 * COVERAGE_NAMES.length + CONCURRENT_CREATES + 1;
}

/** Requests of the random phase for a --runs: each invalid body (a few searched for), each valid pet created, fetched and (some) listed. */
export const createPetExplore = (runs: number): number =>
  runs + 2 * (NO_EFFECT_SAMPLES - NO_EFFECT_COVERAGE) + runs * 2 + (LISTED_SAMPLES - COVERAGE_NAMES.length);

/** What the scenario keeps across its phases. */
interface CreateRun {
  /** Every create, for ids-unique (idOnly). */
  readonly creates: Exchange[];
  /** Rejected bodies searched for in the store so far, and the most that may be. */
  searched: number;
  searchCap: number;
  /**
   * Markers a target ever accepted (or that were already in its store) are not searched for: finding them later would
   * prove nothing about the rejection at hand (shrinking resends markers; a staging store keeps old runs').
   */
  readonly tainted: Set<string>;
  /** Creates also looked for in the list so far. */
  listed: number;
}

/** An invalid body: 400, and (for a few) no pet with its marker in the list after. */
async function rejectInvalid(s: CreateRun, inv: InvalidBody, ctx: RunContext): Promise<void> {
  ctx.log.count('createPet', 'cases');
  const search = inv.marker !== null && !s.tainted.has(inv.marker) && s.searched < s.searchCap;
  const listAll = () => ctx.send(req.listPets(ctx.auth(), `?limit=${maxLimit()}`));
  if (search && listedPets(await listAll()).some((p) => p.name === inv.marker)) s.tainted.add(inv.marker!);
  const ex = await ctx.inCase(invalidCase(inv), async () => {
    const sent = await ctx.send(req.createPet(ctx.auth(), inv.body));
    ctx.judge(createInvalidRejected, { exchange: sent, reason: inv.reason });
    return sent;
  });
  if (ex.response?.status === 201) s.creates.push(idOnly(ex));
  if (inv.marker !== null && ex.response && ex.response.status < 300) s.tainted.add(inv.marker);
  if (search && !s.tainted.has(inv.marker!) && ex.response?.status === 400) {
    s.searched++;
    ctx.judge(createInvalidNoEffect, { marker: inv.marker!, lists: [await listAll()] }, invalidCase(inv));
  }
}

/** A valid pet: created as sent, fetched, and (for a few) found in the list by its status. */
async function addValid(s: CreateRun, pet: GeneratedPet, ctx: RunContext): Promise<void> {
  ctx.log.count('createPet', 'cases');
  const ex = await createAndJudge(ctx, pet);
  s.creates.push(idOnly(ex));
  const id = usableId(returnedPet(ex)?.id ?? null);
  if (id === null) return;
  const get = await fetchCreated(ctx, id);
  ctx.judge(createRetrievable, { create: ex, get });
  const status = returnedPet(ex)?.status;
  if (s.listed < LISTED_SAMPLES && typeof status === 'string') {
    s.listed++;
    const limit = maxLimit();
    const list = await ctx.send(req.listPets(ctx.auth(), `?status=${encodeURIComponent(status)}&limit=${limit}`));
    ctx.judge(createListed, { create: ex, list, limit });
  }
}

/** Concurrent creates: ids stay unique when requests overlap. True when ids-unique found a duplicate. */
async function concurrentCreates(ctx: RunContext, s: CreateRun): Promise<boolean> {
  const batch = await fc.sample(ctx.newPets(), { seed: ctx.seed, numRuns: CONCURRENT_CREATES });
  const concurrent = await Promise.all(
    batch.map((p) => ctx.send(req.createPet(ctx.auth(), newPetBody(p)), { burst: true })),
  );
  ctx.log.count('createPet', 'cases', concurrent.length);
  s.creates.push(...concurrent);
  return ctx.judge(idsUnique, { creates: [...s.creates] }).some((f) => f.level !== 'observation');
}

/** The service assigns ids (section 2): an id in the request must not be taken over. */
async function clientSuppliedId(ctx: RunContext): Promise<void> {
  const [pet] = fc.sample(ctx.newPets(), { seed: ctx.seed + 1, numRuns: 1 });
  const suppliedId = '987654321987654321';
  const body = newPetBody(pet!).replace(/^\{/, `{"id":${suppliedId},`);
  const ex = await ctx.send(req.createPet(ctx.auth(), body));
  ctx.log.count('createPet', 'cases');
  ctx.judge(createIdNotClientSupplied, { exchange: ex, suppliedId });
}

/** The random phase: invalid bodies, then valid pets, with ids-unique over every create once more at the end. */
async function randomPhase(ctx: RunContext, s: CreateRun, duplicates: boolean): Promise<void> {
  s.searchCap = NO_EFFECT_SAMPLES;
  const before = s.creates.length;
  try {
    // One after the other: rejections first, while the store is small (see createPetScenario).
    await checkProperty(
      ctx,
      property('createPet rejects invalid bodies', invalidNewPet(), (inv, c) => rejectInvalid(s, inv, c), {
        share: 1 / 2,
      }),
    );
    await checkProperty(
      ctx,
      property('createPet adds valid pets', ctx.newPets(), (pet, c) => addValid(s, pet, c)),
    );
  } finally {
    // Ids stay unique over every create of the suite, the random phase's too (judged once: a duplicate is one defect).
    if (s.creates.length > before && !duplicates) ctx.judge(idsUnique, { creates: s.creates });
  }
}

export async function createPetScenario(ctx: RunContext): Promise<void> {
  const s: CreateRun = { creates: [], searched: 0, searchCap: NO_EFFECT_COVERAGE, tainted: new Set(), listed: 0 };
  // Coverage: each kind of invalid body, each class of valid pet, concurrent creates and a client-supplied id, once
  // each and whatever the seed, before the random phase spends what the budget leaves. Rejections first, while the
  // store is small enough for a list to show all of it.
  ctx.guard.phase('coverage: each kind of invalid body');
  for (const inv of oneOfEachInvalidKind(ctx.seed)) await rejectInvalid(s, inv, ctx);
  ctx.guard.phase('coverage: each class of valid pet');
  for (const pet of coveragePets(ctx)) await addValid(s, pet, ctx);
  ctx.guard.phase('coverage: concurrent creates');
  const duplicates = await concurrentCreates(ctx, s);
  ctx.guard.phase('coverage: a client-supplied id');
  await clientSuppliedId(ctx);
  ctx.guard.phase(null);
  await randomPhase(ctx, s, duplicates);
}
