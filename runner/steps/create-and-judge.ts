/**
 * Shared steps of the scenarios that create pets: create one valid pet and judge the answer (201, the echo, the
 * default status), and fetch a pet just created allowing a replica a moment to catch up. What they learn across a
 * suite run (categories the target accepted, pauses left) is their own state, kept for the suite (ctx.suiteState).
 */
import { create201, createDefaultStatus, createEcho } from '../../checks/create.js';
import { type GeneratedPet, newPetBody } from '../../generators/index.js';
import type { Exchange } from '../../http/exchange.js';
import type { RunContext, SuiteStateKey } from '../context.js';
import * as req from '../requests.js';

const READ_AFTER_WRITE_PAUSE_MS = 500;

/** What these steps keep for a suite run, whichever part of it creates. */
const CREATIONS: SuiteStateKey<{
  /**
   * Large categoryIds (beyond 2^32) the target accepted in a 201: two distinct ones show it takes categories it cannot
   * have known before, so it does not require categories to exist (gap-2-category-record).
   */
  readonly acceptedCategories: Set<string>;
  /** Pauses left for a created pet that is not yet retrievable: a target whose retries keep failing is not lagging. */
  lagRetriesLeft: number;
}> = { name: 'create-and-judge', init: () => ({ acceptedCategories: new Set(), lagRetriesLeft: 3 }) };

/**
 * Fetches a pet just created. The spec promises it is retrievable but not how soon: a 404 is retried once after a
 * short pause (a replica catching up), and the second answer is the one judged. A target whose retries keep
 * failing is not lagging, so the pauses stop after a few (they would only slow a failing run).
 */
export async function fetchCreated(ctx: RunContext, id: string): Promise<Exchange> {
  const first = await ctx.send(req.getPet(ctx.auth(), id));
  const state = ctx.suiteState(CREATIONS);
  if (first.response?.status !== 404 || state.lagRetriesLeft === 0) return first;
  await ctx.sleep(READ_AFTER_WRITE_PAUSE_MS);
  const second = await ctx.send(req.getPet(ctx.auth(), id));
  if (second.response?.status === 404) state.lagRetriesLeft--;
  return second;
}

export function sentOf(p: GeneratedPet) {
  return { name: p.name, categoryId: p.categoryId, ...(p.status !== undefined ? { status: p.status } : {}) };
}

/** Creates one valid pet and judges the answer; returns the create exchange. */
export async function createAndJudge(ctx: RunContext, pet: GeneratedPet): Promise<Exchange> {
  const ex = await ctx.send(req.createPet(ctx.auth(), newPetBody(pet)));
  const sent = sentOf(pet);
  const accepted = ctx.suiteState(CREATIONS).acceptedCategories;
  ctx.judge(create201, {
    exchange: ex,
    sent,
    nameEdge: pet.nameEdge,
    categoriesOpen: accepted.size >= 2,
  });
  if (ex.response?.status === 201) {
    const category = BigInt(pet.categoryId);
    if (category > 2n ** 32n || category < -(2n ** 32n)) accepted.add(pet.categoryId);
    ctx.judge(createEcho, { exchange: ex, sent, nameEdge: pet.nameEdge });
    if (pet.status === undefined) ctx.judge(createDefaultStatus, { exchange: ex, sent, nameEdge: pet.nameEdge });
  }
  return ex;
}
