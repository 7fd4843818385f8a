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

export async function createPetScenario(ctx: RunContext): Promise<void> {
  const creates: Exchange[] = [];
  let searched = 0;
  let searchCap = NO_EFFECT_COVERAGE;
  // Rejections first, while the store is small enough for a list to show all of it.
  // Markers a target ever accepted (or that were already in its store) are not searched for: finding them later
  // would prove nothing about the rejection at hand (shrinking resends markers; a staging store keeps old runs').
  const tainted = new Set<string>();
  const rejectInvalid = async (inv: InvalidBody, ctx: RunContext) => {
    ctx.log.count('createPet', 'cases');
    const search = inv.marker !== null && !tainted.has(inv.marker) && searched < searchCap;
    const listAll = () => ctx.send(req.listPets(ctx.auth(), `?limit=${maxLimit()}`));
    if (search && listedPets(await listAll()).some((p) => p.name === inv.marker)) tainted.add(inv.marker!);
    const ex = await ctx.inCase(invalidCase(inv), async () => {
      const sent = await ctx.send(req.createPet(ctx.auth(), inv.body));
      ctx.judge(createInvalidRejected, { exchange: sent, reason: inv.reason });
      return sent;
    });
    if (ex.response?.status === 201) creates.push(idOnly(ex));
    if (inv.marker !== null && ex.response && ex.response.status < 300) tainted.add(inv.marker);
    if (search && !tainted.has(inv.marker!) && ex.response?.status === 400) {
      searched++;
      ctx.judge(createInvalidNoEffect, { marker: inv.marker!, lists: [await listAll()] }, invalidCase(inv));
    }
  };
  let listed = 0;
  const addValid = async (pet: GeneratedPet, ctx: RunContext) => {
    ctx.log.count('createPet', 'cases');
    const ex = await createAndJudge(ctx, pet);
    creates.push(idOnly(ex));
    const id = usableId(returnedPet(ex)?.id ?? null);
    if (id === null) return;
    const get = await fetchCreated(ctx, id);
    ctx.judge(createRetrievable, { create: ex, get });
    const status = returnedPet(ex)?.status;
    if (listed < LISTED_SAMPLES && typeof status === 'string') {
      listed++;
      const limit = maxLimit();
      const list = await ctx.send(req.listPets(ctx.auth(), `?status=${encodeURIComponent(status)}&limit=${limit}`));
      ctx.judge(createListed, { create: ex, list, limit });
    }
  };

  // Coverage: each kind of invalid body, each class of valid pet, concurrent creates and a client-supplied id, once
  // each and whatever the seed, before the random phase spends what the budget leaves.
  ctx.guard.phase('coverage: each kind of invalid body');
  for (const inv of oneOfEachInvalidKind(ctx.seed)) await rejectInvalid(inv, ctx);
  ctx.guard.phase('coverage: each class of valid pet');
  for (const pet of coveragePets(ctx)) await addValid(pet, ctx);

  // Concurrent creates: ids stay unique when requests overlap.
  ctx.guard.phase('coverage: concurrent creates');
  const batch = await fc.sample(ctx.newPets(), { seed: ctx.seed, numRuns: CONCURRENT_CREATES });
  const concurrent = await Promise.all(
    batch.map((p) => ctx.send(req.createPet(ctx.auth(), newPetBody(p)), { burst: true })),
  );
  ctx.log.count('createPet', 'cases', concurrent.length);
  creates.push(...concurrent);
  const duplicates = ctx.judge(idsUnique, { creates: [...creates] }).some((f) => f.level !== 'observation');

  // The service assigns ids (section 2): an id in the request must not be taken over.
  ctx.guard.phase('coverage: a client-supplied id');
  const [pet] = fc.sample(ctx.newPets(), { seed: ctx.seed + 1, numRuns: 1 });
  const suppliedId = '987654321987654321';
  const body = newPetBody(pet!).replace(/^\{/, `{"id":${suppliedId},`);
  const ex = await ctx.send(req.createPet(ctx.auth(), body));
  ctx.log.count('createPet', 'cases');
  ctx.judge(createIdNotClientSupplied, { exchange: ex, suppliedId });
  ctx.guard.phase(null);

  searchCap = NO_EFFECT_SAMPLES;
  const before = creates.length;
  try {
    // One after the other: rejections first, while the store is small (see above).
    await checkProperty(
      ctx,
      property('createPet rejects invalid bodies', invalidNewPet(), rejectInvalid, { share: 1 / 2 }),
    );
    await checkProperty(ctx, property('createPet adds valid pets', ctx.newPets(), addValid));
  } finally {
    // Ids stay unique over every create of the suite, the random phase's too (judged once: a duplicate is one defect).
    if (creates.length > before && !duplicates) ctx.judge(idsUnique, { creates });
  }
}
