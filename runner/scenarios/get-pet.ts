/**
 * getPet (deprecated, still documented until 2030-12-05): a created pet is found with the fields it was created
 * with, an int64 id never created gets 404, and ids that are not int64 get some 4xx (a gap, recorded).
 */
import fc from 'fast-check';
import { absentPetId, existingPetId, invalidPetId, validNewPet } from '../../generators/index.js';
import { createRetrievable } from '../../checks/create.js';
import { get200, get404, getInvalidId } from '../../checks/get.js';
import type { Exchange } from '../../http/exchange.js';
import type { RunContext } from '../context.js';
import { checkProperty } from '../property.js';
import { returnedPet, usableId } from '../pets.js';
import { createAndJudge } from './create-pet.js';
import * as req from '../requests.js';

const PETS_TO_FETCH = 8;

export async function getPetScenario(ctx: RunContext): Promise<void> {
  const byId = new Map<string, Exchange>();
  for (const pet of fc.sample(validNewPet(), { seed: ctx.seed + 11, numRuns: PETS_TO_FETCH })) {
    const ex = await createAndJudge(ctx, pet);
    const id = usableId(returnedPet(ex)?.id ?? null);
    if (id !== null) byId.set(id, ex);
  }
  const ids = [...byId.keys()];
  if (ids.length > 0) {
    await checkProperty(
      ctx,
      'getPet finds created pets',
      existingPetId(ids),
      async (c) => {
        ctx.log.count('getPet', 'cases');
        await ctx.inCase(`petId ${c.kind}`, async () => {
          const exchange = await ctx.send(req.getPet(ctx.auth(), c.segment));
          const create = byId.get(c.digits ?? '')!;
          ctx.judge(get200, { exchange, expected: create });
          ctx.judge(createRetrievable, { create, get: exchange });
        });
      },
      { numRuns: Math.max(10, Math.ceil(ctx.runs / 3)) },
    );
  }
  await checkProperty(
    ctx,
    'getPet answers 404 for absent ids',
    absentPetId(ids),
    async (c) => {
      ctx.log.count('getPet', 'cases');
      await ctx.inCase(`petId ${c.kind}`, async () => {
        const exchange = await ctx.send(req.getPet(ctx.auth(), c.segment));
        ctx.judge(get404, { exchange, petId: c.digits ?? c.segment });
      });
    },
    { numRuns: Math.max(10, Math.ceil(ctx.runs / 3)) },
  );
  await checkProperty(
    ctx,
    'getPet ids that are not int64 (gap)',
    invalidPetId(),
    async (c) => {
      ctx.log.count('getPet', 'cases');
      await ctx.inCase(`petId ${c.kind}`, async () => {
        const exchange = await ctx.send(req.getPet(ctx.auth(), c.segment));
        ctx.judge(getInvalidId, { exchange, petId: c.segment });
      });
    },
    { numRuns: Math.max(10, Math.ceil(ctx.runs / 4)) },
  );
}
