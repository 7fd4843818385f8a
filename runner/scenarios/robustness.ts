/**
 * The robustness catalogue (generators/robustness.ts): the inputs real services break on, each sent once whatever the
 * seed, as this suite's coverage phase (it has no random phase). Every exchange is judged by the response checks (never
 * a 5xx, a documented status or a recorded gap, the right Content-Type, an Error body on errors); besides, keys named
 * after prototype properties must get 401 (auth-rejected), bodies the target must refuse must get 400 and leave no pet
 * (create-invalid-rejected, create-invalid-no-effect: their markers are looked for in the list before and after),
 * nothing is served without a key (no-operation-without-key), and what the spec leaves open is recorded, one line per
 * case (checks/robustness.ts). A target that closes the connection or never answers is a transport-ok finding: the
 * client's deadlines bound each exchange, and the suite goes on.
 */
import fc from 'fast-check';
import { authRejected } from '../../checks/auth.js';
import type { Finding } from '../../checks/check.js';
import { createInvalidNoEffect, createInvalidRejected } from '../../checks/create.js';
import { getInvalidId } from '../../checks/get.js';
import {
  acceptAnswer,
  authBeforeBody,
  bodyUnderstood,
  contentTypeAccepted,
  noOperationWithoutKey,
  pathVariantAnswer,
  queryShapeAnswer,
} from '../../checks/robustness.js';
import { markerName, newPetBody, prototypeKeyCase } from '../../generators/index.js';
import {
  ACCEPT_CASES,
  BODY_MARKERS,
  BODY_OPERATION,
  bodyCases,
  MALFORMED_BODY,
  MALFORMED_WITHOUT_KEY,
  PATH_VARIANTS,
  PET_ID_VARIANTS,
  PROTOTYPE_KEYS,
  PROTOTYPE_KEYS_EVERYWHERE,
  QUERY_SHAPE_OPERATION,
  QUERY_SHAPES,
  robustnessCase,
  UNDOCUMENTED_METHOD,
  type BodyCase,
} from '../../generators/robustness.js';
import type { AuthSpec, OutgoingRequest } from '../../http/client.js';
import type { Exchange } from '../../http/exchange.js';
import { contract, parameter, type OperationId } from '../../spec/contract.js';
import type { RunContext } from '../context.js';
import { listedPets, returnedPet, usableId } from '../pets.js';
import * as req from '../requests.js';

const NO_KEY: AuthSpec = { template: null, key: null, keyPlan: 'none' };
const ONE_MIB = 1024 * 1024;
const failing = (f: Finding): boolean => f.level !== 'observation';
/** The store is searched for the refused bodies' markers twice: before (a marker already there proves nothing) and after. */
const SEARCHES = 2;

let bodyCount: number | undefined;

/** Requests of the catalogue: what robustnessScenario sends, counted from the catalogue's own lists. */
export function robustnessCoverage(): number {
  // The bodies are counted once: they weigh megabytes, and the budget plan asks again and again.
  bodyCount ??= bodyCases(() => 'm').length;
  return (
    PROTOTYPE_KEYS.length +
    PROTOTYPE_KEYS_EVERYWHERE.length * (contract.operations.size - 1) +
    bodyCount +
    SEARCHES +
    ACCEPT_CASES.length * contract.operations.size +
    PATH_VARIANTS.length +
    PATH_VARIANTS.filter((v) => v.alsoKeyed).length +
    QUERY_SHAPES.length +
    1 + // an undocumented method (DELETE) without a key
    PET_ID_VARIANTS.length +
    1 // a malformed body without a key
  );
}

/** The requests of the operations the catalogue names for its bodies and its queries (BODY_OPERATION, QUERY_SHAPE_OPERATION). */
const requestOf = { listPets: req.listPets, createPet: req.createPet } as const;

/** Builds an operation's request with a given Authorization (getPet's id read when it is called). */
type Build = Record<OperationId, (auth: AuthSpec) => OutgoingRequest>;

/**
 * Keys named after prototype properties (the cheapest classic, and the most often broken): each must get 401. All of
 * them on the first operation, constructor on every other.
 */
async function prototypeKeys(ctx: RunContext, build: Build): Promise<void> {
  for (const [i, op] of [...contract.operations.keys()].entries()) {
    for (const token of i === 0 ? PROTOTYPE_KEYS : PROTOTYPE_KEYS_EVERYWHERE) {
      ctx.log.count(op, 'cases');
      const c = prototypeKeyCase(token);
      const variant = { name: c.variant, valid: false };
      await ctx.inCase(c, async () => {
        const exchange = await ctx.send(build[op]({ template: `Bearer ${token}`, key: null, keyPlan: 'invalid' }));
        ctx.judge(authRejected, { exchange, variant });
      });
    }
  }
}

/** One body of the catalogue, sent and judged in its case. */
function sendBody(ctx: RunContext, c: BodyCase): Promise<Exchange> {
  return ctx.inCase(robustnessCase(c), async () => {
    const built = requestOf[BODY_OPERATION](ctx.auth(), null);
    const sent = await ctx.send({
      ...built,
      ...(c.query !== undefined && { path: built.path + c.query }),
      body: c.body,
      // After a body of megabytes, a fresh connection: a target that answered before reading it all may close it.
      headers: { 'content-type': c.contentType, ...(c.body.length > ONE_MIB && { connection: 'close' }) },
    });
    if (c.verdict === 'refuse') ctx.judge(createInvalidRejected, { exchange: sent, reason: c.reason });
    else if (c.topic === 'json') ctx.judge(bodyUnderstood, { exchange: sent, what: c.reason, readings: c.readings });
    // Another media type: content-type-accepted records the answer; a pet accepted must still be one it sent.
    else ctx.record(bodyUnderstood.run({ exchange: sent, what: c.reason, readings: c.readings }).filter(failing));
    if (c.topic === 'media-type') ctx.judge(contentTypeAccepted, { exchange: sent, what: c.name });
    return sent;
  });
}

/**
 * The bodies (the one phase that creates), with the store listed before and after so that a refused body's marker
 * shows whether it left a pet. Returns the id of a pet the run created, if any.
 */
async function bodies(ctx: RunContext, cases: readonly BodyCase[]): Promise<string | null> {
  let petId: string | null = null;
  const limit = Number(parameter('listPets', 'limit').schema.maximum);
  const listAll = () => ctx.send(req.listPets(ctx.auth(), `?limit=${limit}`));
  const before = new Set(listedPets(await listAll()).map((p) => p.name));
  const refused: BodyCase[] = [];
  for (const c of cases) {
    ctx.log.count(BODY_OPERATION, 'cases');
    const ex = await sendBody(ctx, c);
    petId ??= usableId(returnedPet(ex)?.id ?? null);
    if (c.verdict === 'refuse' && c.marker !== null && ex.response?.status === 400) refused.push(c);
  }
  const after = await listAll();
  for (const c of refused) {
    // A marker already in the store (a run before with this seed) proves nothing about this rejection.
    if (before.has(c.marker)) continue;
    ctx.judge(createInvalidNoEffect, { marker: c.marker!, lists: [after] }, robustnessCase(c));
  }
  return petId;
}

/** Accept values a JSON service cannot serve, on every operation. */
async function acceptValues(ctx: RunContext, build: Build): Promise<void> {
  for (const op of contract.operations.keys()) {
    for (const entry of ACCEPT_CASES) {
      const { accept, keyed } = entry;
      ctx.log.count(op, 'cases');
      const what = `Accept: ${accept} ${keyed ? 'and the key' : 'and no key'}`;
      await ctx.inCase(robustnessCase(entry), async () => {
        const built = build[op](keyed ? ctx.auth() : NO_KEY);
        const exchange = await ctx.send({ ...built, headers: { ...built.headers, accept } });
        ctx.judge(acceptAnswer, { exchange, what });
        if (!keyed) ctx.judge(noOperationWithoutKey, { exchange, what });
      });
    }
  }
}

/** Path variants a router may normalise, without a key (never served), and a trailing slash with it (recorded). */
async function pathVariants(ctx: RunContext): Promise<void> {
  const basePath = new URL(ctx.settings.target).pathname.replace(/\/+$/, '');
  for (const v of PATH_VARIANTS) {
    const target = v.target(basePath);
    const path = target.startsWith(`${basePath}/`) ? target.slice(basePath.length) : target;
    const send = (auth: AuthSpec) => ctx.send({ operation: null, method: 'GET', path, rawTarget: target, auth });
    await ctx.inCase(robustnessCase(v), async () => {
      const exchange = await send(NO_KEY);
      const what = v.name;
      ctx.judge(noOperationWithoutKey, { exchange, what, resembles: v.resembles });
      ctx.judge(pathVariantAnswer, { exchange, what, resembles: v.resembles });
      if (v.alsoKeyed) ctx.judge(pathVariantAnswer, { exchange: await send(ctx.auth()), what, resembles: v.resembles });
    });
  }
}

/** List parameters in another shape: never a 5xx (the response checks), whatever else is recorded. */
async function queryShapes(ctx: RunContext): Promise<void> {
  for (const shape of QUERY_SHAPES) {
    ctx.log.count(QUERY_SHAPE_OPERATION, 'cases');
    await ctx.inCase(robustnessCase(shape), async () => {
      const exchange = await ctx.send(requestOf[QUERY_SHAPE_OPERATION](ctx.auth(), shape.query));
      ctx.judge(queryShapeAnswer, { exchange, what: shape.name });
    });
  }
}

/** An undocumented method on a documented path: only ever without a key, and on a pet of the run's own. */
async function undocumentedMethod(ctx: RunContext, id: string): Promise<void> {
  await ctx.inCase(robustnessCase(UNDOCUMENTED_METHOD), async () => {
    const exchange = await ctx.send({
      operation: null,
      method: 'DELETE',
      path: req.pathOf('getPet', { petId: id }),
      auth: NO_KEY,
    });
    const what = 'an undocumented method';
    ctx.judge(noOperationWithoutKey, { exchange, what });
    ctx.judge(pathVariantAnswer, { exchange, what });
  });
}

/** petIds a lenient integer parser may read as an id (any 4xx is fine; a 200 is recorded). */
async function petIdVariants(ctx: RunContext): Promise<void> {
  for (const v of PET_ID_VARIANTS) {
    ctx.log.count('getPet', 'cases');
    await ctx.inCase(robustnessCase(v), async () => {
      const exchange = await ctx.send(req.getPet(ctx.auth(), v.segment));
      ctx.judge(getInvalidId, { exchange, petId: v.segment });
    });
  }
}

/** The order of 400 and 401: a malformed body without a key. */
async function malformedWithoutKey(ctx: RunContext): Promise<void> {
  ctx.log.count(BODY_OPERATION, 'cases');
  await ctx.inCase(robustnessCase(MALFORMED_WITHOUT_KEY), async () => {
    const exchange = await ctx.send(requestOf[BODY_OPERATION](NO_KEY, MALFORMED_BODY));
    ctx.judge(authBeforeBody, { exchange, what: 'a malformed body without a key' });
    ctx.judge(noOperationWithoutKey, { exchange, what: 'a malformed body' });
  });
}

export async function robustnessScenario(ctx: RunContext): Promise<void> {
  const prefix = ctx.settings.namePrefix ?? '';
  const markers = fc.sample(markerName(), { seed: ctx.seed + 21, numRuns: BODY_MARKERS }).map((m) => prefix + m);
  const cases = bodyCases((i) => markers[i]!);
  let id = '1';

  ctx.guard.phase('coverage: robustness catalogue, prototype-named keys');
  // createPet's carries a valid body, so it also shows the order of the checks for a valid body with an invalid key
  // (401, never a 201). getPet asks for pet 1 until the run has one of its own.
  const body = newPetBody({ name: `${markers[0]}-key`, categoryId: '5', nameEdge: false });
  const build: Build = {
    listPets: (auth) => req.listPets(auth),
    createPet: (auth) => req.createPet(auth, body),
    getPet: (auth) => req.getPet(auth, id),
  };
  await prototypeKeys(ctx, build);

  // The bodies before the cases that name a pet of the run's own.
  ctx.guard.phase('coverage: robustness catalogue, bodies and media types');
  const petId = await bodies(ctx, cases);
  if (petId !== null) id = petId;

  ctx.guard.phase('coverage: robustness catalogue, Accept values');
  await acceptValues(ctx, build);

  ctx.guard.phase('coverage: robustness catalogue, paths and methods');
  await pathVariants(ctx);
  await queryShapes(ctx);
  await undocumentedMethod(ctx, id);
  await petIdVariants(ctx);

  ctx.guard.phase('coverage: robustness catalogue, order of checks');
  await malformedWithoutKey(ctx);
  ctx.guard.phase(null);
}
