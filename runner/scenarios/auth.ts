/**
 * Authentication (section 5) on every operation: each bad Authorization gets 401 with an Error body (near misses of
 * the key included: another case, an accented letter, a trailing space, a suffix, a second header), and each valid
 * form of the bearer scheme (scheme names are case-insensitive, RFC 9110 §11.1) is accepted.
 */
import fc from 'fast-check';
import { contract, type OperationId } from '../../spec/contract.js';
import { AUTH_VARIANTS, authCase, NEAR_MISSES, newPetBody, type AuthVariant } from '../../generators/index.js';
import { changedKey } from '../../http/redact.js';
import { authRejected, authValidAccepted } from '../../checks/auth.js';
import type { OutgoingRequest, AuthSpec } from '../../http/client.js';
import type { RunContext } from '../context.js';
import type { Exchange } from '../../http/exchange.js';
import { returnedPet, usableId } from '../pets.js';
import * as req from '../requests.js';
import { endOfPart } from '../property.js';

export async function authScenario(ctx: RunContext): Promise<void> {
  ctx.guard.phase('coverage: every auth variant on every operation');
  const [pet] = fc.sample(ctx.newPets(), { seed: ctx.seed + 3, numRuns: 1 });
  const body = newPetBody(pet!);
  // getPet asks for a pet the matrix's createPet row made with the key (pet 1 until then): createPet comes first.
  let id: string | null = null;
  const build: Record<OperationId, (auth: AuthSpec) => OutgoingRequest> = {
    listPets: (auth) => req.listPets(auth),
    createPet: (auth) => req.createPet(auth, body),
    getPet: (auth) => req.getPet(auth, id ?? '1'),
  };
  const ops = [...contract.operations.keys()].sort((a, b) => Number(b === 'createPet') - Number(a === 'createPet'));
  // Coverage: every variant on every operation once. Then the same matrix again, a few rounds, so a flaky acceptance
  // shows up: that repetition is the suite's random phase, and shares what the budget leaves.
  const matrix = async (ctx: RunContext) => {
    for (const op of ops) {
      for (const variant of AUTH_VARIANTS) {
        const ex = await sendVariant(ctx, build[op], variant);
        if (op === 'createPet' && variant.valid && ex !== null) id ??= usableId(returnedPet(ex)?.id ?? null);
      }
    }
  };
  await matrix(ctx);
  ctx.guard.phase(null);
  const repeated = await ctx.part('repeated auth matrix', 1, async (own) => {
    for (let r = 1; r < authRounds(own.runs) && !own.guard.stopped; r++) await matrix(own).catch(endOfPart(own));
  });
  ctx.absorb(repeated);
}

/** Rounds of the whole matrix for a --runs (the first is the coverage phase). */
export const authRounds = (runs: number): number => Math.max(1, Math.min(5, Math.ceil(runs / 25)));

/** Requests of the coverage phase: each variant on each operation (a near miss a key has no letter for is not sent). */
export const authCoverage = (): number => contract.operations.size * AUTH_VARIANTS.length;

/** Requests of the random phase for a --runs. */
export const authExplore = (runs: number): number =>
  (authRounds(runs) - 1) * contract.operations.size * AUTH_VARIANTS.length;

async function sendVariant(
  ctx: RunContext,
  build: (auth: AuthSpec) => OutgoingRequest,
  variant: AuthVariant,
): Promise<Exchange | null> {
  const usesKey = variant.template?.includes('{key}') ?? false;
  // A near miss stands in for the key: its own secret, shown as a placeholder derived from the key's.
  const key = usesKey && variant.nearMiss ? changedKey(ctx.key.key, NEAR_MISSES[variant.nearMiss]) : ctx.key.key;
  if (key === null) return null;
  const auth: AuthSpec = {
    template: variant.template,
    key: usesKey ? key : null,
    keyPlan: variant.valid ? ctx.key.plan : variant.template === null ? 'none' : 'invalid',
    ...(variant.repeated !== undefined && { repeated: variant.repeated }),
  };
  const op = build(auth).operation;
  if (op !== null) ctx.log.count(op, 'cases');
  return ctx.inCase(authCase(variant), async () => {
    const exchange = await ctx.send(build(auth));
    ctx.judge(variant.valid ? authValidAccepted : authRejected, { exchange, variant });
    return exchange;
  });
}
