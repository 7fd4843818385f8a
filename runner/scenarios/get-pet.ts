/**
 * getPet (deprecated, still documented until 2030-12-05): a created pet is found with the fields it was created
 * with, an int64 id never created gets 404, and ids that are not int64 get some 4xx (a gap, recorded).
 */
import fc from 'fast-check';
import {
  absentPetId,
  absentPetIdEdges,
  existingPetId,
  invalidPetId,
  invalidPetIdEdges,
  petIdCase,
  type PetIdCase,
} from '../../generators/index.js';
import { createRetrievable } from '../../checks/create.js';
import { get200, get404, getInvalidId } from '../../checks/get.js';
import type { Exchange } from '../../http/exchange.js';
import type { RunContext } from '../context.js';
import { checkProperties, property } from '../property.js';
import { returnedPet, usableId } from '../pets.js';
import { createAndJudge } from '../steps/create-and-judge.js';
import * as req from '../requests.js';

const PETS_TO_FETCH = 8;
/** Created pets fetched in the coverage phase: two, so that both parities of a counting store's ids are asked for. */
const EXISTING_COVERAGE = 2;

const existingRuns = (runs: number) => Math.max(10, Math.ceil(runs / 3));
const absentRuns = (runs: number) => Math.max(10, Math.ceil(runs / 3));
const invalidRuns = (runs: number) => Math.max(10, Math.ceil(runs / 4));

/** Requests of the coverage phase: the pets created, two fetched, each far edge of int64 absent, each invalid id class. */
export const getPetCoverage = (): number =>
  PETS_TO_FETCH + EXISTING_COVERAGE + absentPetIdEdges([]).length + invalidPetIdEdges().length;

/** Requests of the random phase for a --runs. */
export const getPetExplore = (runs: number): number => existingRuns(runs) + absentRuns(runs) + invalidRuns(runs);

export async function getPetScenario(ctx: RunContext): Promise<void> {
  const byId = new Map<string, Exchange>();
  ctx.guard.phase('coverage: pets to fetch');
  for (const pet of fc.sample(ctx.newPets(), { seed: ctx.seed + 11, numRuns: PETS_TO_FETCH })) {
    const ex = await createAndJudge(ctx, pet);
    const id = usableId(returnedPet(ex)?.id ?? null);
    if (id !== null) byId.set(id, ex);
  }
  const ids = [...byId.keys()];
  const existing = async (c: PetIdCase, ctx: RunContext) => {
    ctx.log.count('getPet', 'cases');
    await ctx.inCase(petIdCase(c), async () => {
      const exchange = await ctx.send(req.getPet(ctx.auth(), c.segment));
      const create = byId.get(c.digits ?? '')!;
      ctx.judge(get200, { exchange, expected: create });
      ctx.judge(createRetrievable, { create, get: exchange });
    });
  };
  const absent = async (c: PetIdCase, ctx: RunContext) => {
    ctx.log.count('getPet', 'cases');
    await ctx.inCase(petIdCase(c), async () => {
      const exchange = await ctx.send(req.getPet(ctx.auth(), c.segment));
      ctx.judge(get404, { exchange, petId: c.digits ?? c.segment });
    });
  };
  const invalid = async (c: PetIdCase, ctx: RunContext) => {
    ctx.log.count('getPet', 'cases');
    await ctx.inCase(petIdCase(c), async () => {
      const exchange = await ctx.send(req.getPet(ctx.auth(), c.segment));
      ctx.judge(getInvalidId, { exchange, petId: c.segment });
    });
  };
  // Coverage: each id class once (existing, absent at each far edge of int64, not an int64), whatever the seed.
  ctx.guard.phase('coverage: each class of petId');
  for (const id of ids.slice(0, EXISTING_COVERAGE))
    await existing({ segment: encodeURIComponent(id), kind: 'existing', digits: id }, ctx);
  for (const c of absentPetIdEdges(ids)) await absent(c, ctx);
  for (const c of invalidPetIdEdges()) await invalid(c, ctx);
  ctx.guard.phase(null);
  await checkProperties(ctx, [
    ...(ids.length > 0
      ? [
          property('getPet finds created pets', existingPetId(ids), existing, {
            numRuns: existingRuns(ctx.runs),
            share: 1 / 3,
          }),
        ]
      : []),
    property('getPet answers 404 for absent ids', absentPetId(ids), absent, {
      numRuns: absentRuns(ctx.runs),
      share: 1 / 2,
    }),
    property('getPet ids that are not int64 (gap)', invalidPetId(), invalid, { numRuns: invalidRuns(ctx.runs) }),
  ]);
}
