/**
 * Authentication (section 5) on every operation: each bad Authorization gets 401 with an Error body, and each valid
 * form of the bearer scheme (scheme names are case-insensitive, RFC 9110 §11.1) is accepted.
 */
import fc from 'fast-check';
import { contract, type OperationId } from '../../spec/contract.js';
import { AUTH_VARIANTS, newPetBody, validNewPet, type AuthVariant } from '../../generators/index.js';
import { authRejected, authValidAccepted } from '../../checks/auth.js';
import type { OutgoingRequest, AuthSpec } from '../../http/client.js';
import type { RunContext } from '../context.js';
import { returnedPet, usableId } from '../pets.js';
import * as req from '../requests.js';

export async function authScenario(ctx: RunContext): Promise<void> {
  const [pet] = fc.sample(validNewPet(), { seed: ctx.seed + 3, numRuns: 1 });
  const body = newPetBody(pet!);
  const made = await ctx.send(req.createPet(ctx.auth(), body));
  const id = usableId(returnedPet(made)?.id ?? null) ?? '1';
  const build: Record<OperationId, (auth: AuthSpec) => OutgoingRequest> = {
    listPets: (auth) => req.listPets(auth),
    createPet: (auth) => req.createPet(auth, body),
    getPet: (auth) => req.getPet(auth, id),
  };
  // Every variant on every operation: a fixed, small matrix, repeated so a flaky acceptance shows up.
  const rounds = Math.max(1, Math.min(5, Math.ceil(ctx.runs / 25)));
  for (let r = 0; r < rounds; r++) {
    for (const op of contract.operations.keys()) {
      for (const variant of AUTH_VARIANTS) {
        ctx.log.count(op, 'cases');
        await sendVariant(ctx, build[op], variant);
      }
    }
  }
}

async function sendVariant(ctx: RunContext, build: (auth: AuthSpec) => OutgoingRequest, variant: AuthVariant) {
  const usesKey = variant.template?.includes('{key}') ?? false;
  const auth: AuthSpec = {
    template: variant.template,
    key: usesKey ? ctx.key.key : null,
    keyPlan: variant.valid ? ctx.key.plan : variant.template === null ? 'none' : 'invalid',
  };
  await ctx.inCase(`auth: ${variant.name}`, async () => {
    const exchange = await ctx.send(build(auth));
    ctx.judge(variant.valid ? authValidAccepted : authRejected, { exchange, variant });
  });
}
