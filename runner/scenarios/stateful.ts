/**
 * Model-based test (fast-check commands): creates (valid and invalid), lists with filters and limits, and gets,
 * interleaved, against a simple model of what this run added. The target may hold other pets (other suites, other
 * clients), so the model only speaks for the pets it made: their fields never drift, and they are found by id.
 */
import fc from 'fast-check';
import {
  invalidNewPet,
  newPetBody,
  validListQuery,
  type GeneratedPet,
  type InvalidBody,
  type ListQuery,
} from '../../generators/index.js';
import { createInvalidRejected } from '../../checks/create.js';
import { listLimitRespected, listStatusFilter } from '../../checks/list.js';
import { modelConsistency, type ModelPet } from '../../checks/stateful.js';
import { show } from '../../checks/check.js';
import type { RunContext } from '../context.js';
import { checkProperty, property } from '../property.js';
import { returnedPet, usableId } from '../pets.js';
import { createAndJudge } from '../steps/create-and-judge.js';
import { invalidCase } from './create-pet.js';
import * as req from '../requests.js';
import { contract } from '../../spec/contract.js';

interface Model {
  readonly pets: Map<string, ModelPet>;
}
type Real = RunContext;

class CreateValid implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pet: GeneratedPet) {}
  check = () => true;
  async run(m: Model, ctx: Real): Promise<void> {
    const ex = await createAndJudge(ctx, this.pet);
    const pet = returnedPet(ex);
    const id = usableId(pet?.id ?? null);
    if (ex.response?.status !== 201 || id === null || pet === null) return;
    ctx.judge(modelConsistency, { kind: 'created', exchange: ex, knownIds: [...m.pets.keys()] });
    m.pets.set(id, { name: this.pet.name, categoryId: this.pet.categoryId, status: pet.status });
  }
  toString = () => `createPet(${show(newPetBody(this.pet), 120)})`;
}

class CreateInvalid implements fc.AsyncCommand<Model, Real> {
  constructor(readonly inv: InvalidBody) {}
  check = () => true;
  async run(_m: Model, ctx: Real): Promise<void> {
    await ctx.inCase(invalidCase(this.inv), async () => {
      const ex = await ctx.send(req.createPet(ctx.auth(), this.inv.body));
      ctx.judge(createInvalidRejected, { exchange: ex, reason: this.inv.reason });
    });
  }
  toString = () => `createPet(invalid: ${this.inv.reason})`;
}

class GetKnown implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.pets.size > 0;
  async run(m: Model, ctx: Real): Promise<void> {
    const ids = [...m.pets.keys()];
    const id = ids[this.index % ids.length]!;
    const expected = m.pets.get(id)!;
    const ex = await ctx.send(req.getPet(ctx.auth(), id));
    ctx.judge(modelConsistency, { kind: 'fetched', exchange: ex, id, pet: expected });
  }
  toString = () => `getPet(created #${this.index})`;
}

class List implements fc.AsyncCommand<Model, Real> {
  constructor(readonly query: ListQuery) {}
  check = () => true;
  async run(m: Model, ctx: Real): Promise<void> {
    const ex = await ctx.send(req.listPets(ctx.auth(), this.query.raw));
    const evidence = { exchange: ex, query: this.query, valid: true };
    ctx.judge(listLimitRespected, evidence);
    ctx.judge(listStatusFilter, evidence);
    ctx.judge(modelConsistency, { kind: 'listed', exchange: ex, pets: m.pets });
  }
  toString = () => `listPets(${this.query.raw || 'no query'})`;
}

export function commands(ctx: RunContext) {
  return fc.commands(
    [
      ctx.newPets().map((p) => new CreateValid(p)),
      invalidNewPet().map((i) => new CreateInvalid(i)),
      fc.nat().map((n) => new GetKnown(n)),
      validListQuery().map((q) => new List(q)),
    ],
    { maxCommands: 15, size: 'large' },
  );
}

/**
 * The coverage phase: each command once, whatever the seed: a pet of each status, an invalid body, a list, each pet
 * fetched back after that list, and a filtered list.
 */
export function coverageCommands(ctx: RunContext): fc.AsyncCommand<Model, Real>[] {
  const pets = fc.sample(ctx.newPets(), { seed: ctx.seed + 13, numRuns: contract.petStatuses.length });
  const [invalid] = fc.sample(invalidNewPet(), { seed: ctx.seed + 13, numRuns: 1 });
  const query = (raw: string, status?: string): ListQuery => ({
    raw,
    ...(status !== undefined ? { status } : {}),
    valid: true,
    kind: 'valid',
  });
  const filtered = contract.petStatuses[1] ?? contract.petStatuses[0]!;
  return [
    ...contract.petStatuses.map((status, i) => new CreateValid({ ...pets[i]!, status })),
    new CreateInvalid(invalid!),
    new List(query('')),
    ...contract.petStatuses.map((_s, i) => new GetKnown(i)),
    new List(query(`?status=${encodeURIComponent(filtered)}`, filtered)),
  ];
}

/** Requests of the coverage phase. */
export const statefulCoverage = (): number => 2 * contract.petStatuses.length + 3;

const statefulRuns = (runs: number) => Math.max(20, Math.ceil(runs / 5));

/** Requests of the random phase for a --runs: sequences of up to 15 commands, about 8 on average. */
export const statefulExplore = (runs: number): number => statefulRuns(runs) * 8;

export async function statefulScenario(ctx: RunContext): Promise<void> {
  ctx.guard.phase('coverage: each command once');
  ctx.log.count('createPet', 'cases');
  await fc.asyncModelRun(() => ({ model: { pets: new Map() }, real: ctx }), coverageCommands(ctx));
  ctx.guard.phase(null);
  await checkProperty(
    ctx,
    property(
      'stateful model',
      commands(ctx),
      async (cmds, own) => {
        own.log.count('createPet', 'cases');
        await fc.asyncModelRun(() => ({ model: { pets: new Map() }, real: own }), cmds);
      },
      { numRuns: statefulRuns(ctx.runs) },
    ),
  );
}
