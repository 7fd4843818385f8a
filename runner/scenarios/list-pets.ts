/**
 * listPets: valid queries get 200 with at most `limit` pets (20 when absent) of the filtered status; invalid queries
 * are a gap of the spec, so whatever the target does (400, clamping, empty list) is recorded, never failed.
 */
import fc from 'fast-check';
import { contract, parameter } from '../../spec/contract.js';
import {
  invalidListQuery,
  invalidListQueryKinds,
  listQueryCase,
  validListQuery,
  type CaseRef,
  type ListQuery,
} from '../../generators/index.js';
import {
  list200,
  listDefaultLimit,
  listInvalidQuery,
  listLimitRespected,
  listPagination,
  listStatusFilter,
} from '../../checks/list.js';
import type { RunContext } from '../context.js';
import { checkProperties, property } from '../property.js';
import { createAndJudge } from '../steps/create-and-judge.js';
import * as req from '../requests.js';

/** Pets per status made before the queries, so that limits and the default page size are actually exercised. */
const SEED_PER_STATUS = 9;

export async function seedStore(ctx: RunContext, perStatus = SEED_PER_STATUS): Promise<void> {
  const pets = fc.sample(ctx.newPets(), { seed: ctx.seed + 7, numRuns: perStatus * contract.petStatuses.length });
  let i = 0;
  for (const status of contract.petStatuses) {
    for (let n = 0; n < perStatus; n++) await createAndJudge(ctx, { ...pets[i++]!, status });
  }
}

/** The boundary queries, every time: each documented limit edge (absent, minimum, default, maximum) with each filter. */
export function edgeQueries(): ListQuery[] {
  const schema = parameter('listPets', 'limit').schema;
  const limits = [undefined, Number(schema.minimum), Number(schema.default), Number(schema.maximum)];
  const out: ListQuery[] = [];
  for (const status of [undefined, ...contract.petStatuses]) {
    for (const limit of limits) {
      const parts = [
        limit !== undefined ? `limit=${limit}` : '',
        status !== undefined ? `status=${encodeURIComponent(status)}` : '',
      ].filter(Boolean);
      out.push({
        raw: parts.length ? `?${parts.join('&')}` : '',
        ...(limit !== undefined ? { limit } : {}),
        ...(status !== undefined ? { status } : {}),
        valid: true,
        kind: 'edge',
      });
    }
  }
  return out;
}

/** The case of a list query in a finding's signature (generators/list-query.ts). */
export const queryCase = (q: ListQuery): CaseRef => listQueryCase(q);

async function judgeValidQuery(ctx: RunContext, q: ListQuery): Promise<void> {
  ctx.log.count('listPets', 'cases');
  await ctx.inCase(queryCase(q), async () => {
    const exchange = await ctx.send(req.listPets(ctx.auth(), q.raw));
    const evidence = { exchange, query: q, valid: true };
    ctx.judge(list200, evidence);
    ctx.judge(listLimitRespected, evidence);
    ctx.judge(listDefaultLimit, evidence);
    ctx.judge(listStatusFilter, evidence);
    ctx.judge(listPagination, evidence);
  });
}

/** One invalid query of each kind, whatever the seed: no kind is left to chance in a short run. */
export function oneOfEachInvalidQuery(seed: number): ListQuery[] {
  return invalidListQueryKinds().map((arb, i) => fc.sample(arb, { seed: seed + i, numRuns: 1 })[0]!);
}

async function judgeInvalidQuery(ctx: RunContext, q: ListQuery): Promise<void> {
  ctx.log.count('listPets', 'cases');
  await ctx.inCase(queryCase(q), async () => {
    const exchange = await ctx.send(req.listPets(ctx.auth(), q.raw));
    ctx.judge(listInvalidQuery, { exchange, query: q, valid: false });
  });
}

/** Requests of the coverage phase: the seeded pets, each edge query, one invalid query of each kind. */
export const listPetsCoverage = (): number =>
  SEED_PER_STATUS * contract.petStatuses.length + edgeQueries().length + invalidListQueryKinds().length;

const invalidRuns = (runs: number) => Math.max(10, Math.ceil(runs / 4));

/** Requests of the random phase for a --runs. */
export const listPetsExplore = (runs: number): number => runs + invalidRuns(runs);

export async function listPetsScenario(ctx: RunContext): Promise<void> {
  ctx.guard.phase('coverage: seeding the store');
  await seedStore(ctx);
  ctx.guard.phase('coverage: each limit edge with each filter');
  for (const q of edgeQueries()) await judgeValidQuery(ctx, q);
  ctx.guard.phase('coverage: each kind of invalid query');
  for (const q of oneOfEachInvalidQuery(ctx.seed)) await judgeInvalidQuery(ctx, q);
  ctx.guard.phase(null);
  await checkProperties(ctx, [
    property('listPets answers valid queries', validListQuery(), (q, own) => judgeValidQuery(own, q), { share: 1 / 2 }),
    property('listPets invalid queries (gap)', invalidListQuery(), (q, own) => judgeInvalidQuery(own, q), {
      numRuns: invalidRuns(ctx.runs),
    }),
  ]);
}
