/**
 * Shared steps of the scenarios that create pets: create one valid pet and judge the answer (201, the echo, the
 * default status), and fetch a pet just created allowing a replica a moment to catch up. The state they keep across a
 * suite (categories the target accepted, pauses left) is the suite's, in its context.
 */
import { create201, createDefaultStatus, createEcho } from '../../checks/create.js';
import { type GeneratedPet, newPetBody } from '../../generators/index.js';
import type { Exchange } from '../../http/exchange.js';
import { sleep } from '../../http/pacing.js';
import type { RunContext } from '../context.js';
import * as req from '../requests.js';

const READ_AFTER_WRITE_PAUSE_MS = 500;

/**
 * Fetches a pet just created. The spec promises it is retrievable but not how soon: a 404 is retried once after a
 * short pause (a replica catching up), and the second answer is the one judged. A target whose retries keep
 * failing is not lagging, so the pauses stop after a few (they would only slow a failing run).
 */
export async function fetchCreated(ctx: RunContext, id: string): Promise<Exchange> {
  const first = await ctx.send(req.getPet(ctx.auth(), id));
  if (first.response?.status !== 404 || ctx.lagRetriesLeft === 0) return first;
  await sleep(READ_AFTER_WRITE_PAUSE_MS);
  const second = await ctx.send(req.getPet(ctx.auth(), id));
  if (second.response?.status === 404) ctx.lagRetriesLeft--;
  return second;
}

export function sentOf(p: GeneratedPet) {
  return { name: p.name, categoryId: p.categoryId, ...(p.status !== undefined ? { status: p.status } : {}) };
}

/** Creates one valid pet and judges the answer; returns the create exchange. */
export async function createAndJudge(ctx: RunContext, pet: GeneratedPet): Promise<Exchange> {
  const ex = await ctx.send(req.createPet(ctx.auth(), newPetBody(pet)));
  const sent = sentOf(pet);
  ctx.judge(create201, {
    exchange: ex,
    sent,
    nameEdge: pet.nameEdge,
    categoriesOpen: ctx.acceptedCategories.size >= 2,
  });
  if (ex.response?.status === 201) {
    const category = BigInt(pet.categoryId);
    if (category > 2n ** 32n || category < -(2n ** 32n)) ctx.acceptedCategories.add(pet.categoryId);
    ctx.judge(createEcho, { exchange: ex, sent, nameEdge: pet.nameEdge });
    if (pet.status === undefined) ctx.judge(createDefaultStatus, { exchange: ex, sent, nameEdge: pet.nameEdge });
  }
  return ex;
}
