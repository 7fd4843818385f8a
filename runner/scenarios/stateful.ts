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
  validNewPet,
  type GeneratedPet,
  type InvalidBody,
  type ListQuery,
} from '../../generators/index.js';
import { createInvalidRejected } from '../../checks/create.js';
import { listLimitRespected, listStatusFilter } from '../../checks/list.js';
import { modelConsistency, type ModelPet } from '../../checks/stateful.js';
import { show } from '../../checks/check.js';
import type { RunContext } from '../context.js';
import { checkProperty } from '../property.js';
import { returnedPet, usableId } from '../pets.js';
import { createAndJudge, invalidCase } from './create-pet.js';
import * as req from '../requests.js';

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

export function commands() {
  return fc.commands(
    [
      validNewPet().map((p) => new CreateValid(p)),
      invalidNewPet().map((i) => new CreateInvalid(i)),
      fc.nat().map((n) => new GetKnown(n)),
      validListQuery().map((q) => new List(q)),
    ],
    { maxCommands: 15, size: 'large' },
  );
}

export async function statefulScenario(ctx: RunContext): Promise<void> {
  await checkProperty(
    ctx,
    'stateful model',
    commands(),
    async (cmds) => {
      ctx.log.count('createPet', 'cases');
      await fc.asyncModelRun(() => ({ model: { pets: new Map() }, real: ctx }), cmds);
    },
    { numRuns: Math.max(20, Math.ceil(ctx.runs / 5)) },
  );
}
