/**
 * The robustness catalogue's own verdicts (generators/robustness.ts; every exchange is judged by the response checks
 * too, and prototype-named keys by auth-rejected, refused bodies by create-invalid-rejected and create-invalid-no-effect).
 * Where the spec is explicit, a violation: nothing is served without a key (sections 1 and 5), and a pet accepted comes
 * back as the target read it (4.2). Where it is silent, an observation with one line per case: which Content-Types
 * createPet accepts, what Accept values it cannot serve get, the order of 400 and 401, what path variants (a trailing
 * slash) do, what list parameters in another shape get, how JSON at its edges is answered.
 */
import type { Exchange } from '../http/exchange.js';
import type { OperationId } from '../spec/contract.js';
import { defineCheck, finding, observation, show, type AnyCheck, type Check, type CheckDefinition } from './check.js';
import type { CheckId } from './check-id.js';
import { createdPet } from './create.js';
import { markersIn } from './cause.js';
import type { FieldCause } from './field-causes.js';
import { exactId, opLabel, isAnswered, statusOf } from './facts.js';
import { readHeader } from '../http/header-read.js';
import { BODY_OPERATION, PATH_VARIANTS, QUERY_SHAPE_OPERATION } from '../generators/robustness.js';

/** An answer recorded: a 429 is no answer to the case (the observation checks record none). */
const answered = <E extends RobustEvidence>(ev: E): boolean => isAnswered(ev.exchange);

/** One exchange of the catalogue and the case it sent, in words ('upper-case path', 'Accept: text/html'). */
export interface RobustEvidence {
  readonly exchange: Exchange;
  readonly what: string;
  /**
   * The operation a variant stands in for (GET /V1/PETS for listPets), for the finding's operation; the exchange names
   * none, so that no response check judges it by that operation's statuses.
   */
  readonly resembles?: OperationId;
}

/** A catalogue body and what a target that accepts it may have read from it (null: no reading is certain). */
export interface BodyEvidence extends RobustEvidence {
  readonly readings: readonly { readonly name: string; readonly categoryId: string }[] | null;
}

/** "GET /v1/pets/ without a key" — the request line as sent, for the message. */
function requestLine(ex: Exchange): string {
  // The path as sent, dot segments and all (a URL parser would resolve them).
  const path = String(ex.request.url ?? ex.request.path)
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    .split('?', 1)[0]!;
  return `${ex.request.method} ${show(path, 80).slice(1, -1)}`;
}

function answer(ex: Exchange): string {
  const status = statusOf(ex);
  if (status === null) return `no answer (${ex.error?.code ?? 'no response'})`;
  const type = readHeader(ex, 'content-type');
  return `${status}${type.kind === 'value' ? ` ${type.value.split(';', 1)[0]!.trim()}` : ''}`;
}

export const noOperationWithoutKey: Check<RobustEvidence, 'no-operation-without-key'> = defineCheck({
  id: 'no-operation-without-key',
  clauses: ['1-auth-required', '5-401-missing-invalid'],
  // Whatever a target answers to a path variant, an undocumented method or a request it cannot serve as asked (a 404,
  // a 405, a redirect, a 406, a 400 before the 401 are the gaps' business), a 2xx without a key serves something
  // without authentication: every operation requires it (section 1), and a router that matches a variant the
  // authentication layer does not guard hands out the operation to anyone.
  levels: ['violation'],
  causes: ['status'],
  area: 'robustness',
  title: 'A request without a key (a path variant, another method, any Accept or body) is never answered 2xx.',
  appliesTo: {
    what: 'answers to requests without a key',
    test: ({ exchange: ex }) => statusOf(ex) !== null,
    operation: ({ exchange: ex, resembles }) => resembles ?? ex.operation,
  },
  run: ({ exchange: ex, what, resembles }) => {
    const status = statusOf(ex);
    if (status === null || status < 200 || status > 299) return [];
    return [
      finding(
        noOperationWithoutKey,
        ex,
        {
          on: `for ${requestLine(ex)} (${what}) without a key`,
          because: 'the spec requires authentication for every operation: a missing key gets 401',
        },
        {
          expected: '401 (or any refusal)',
          actual: String(status),
          keyPlan: 'none',
          causes: [{ kind: 'status', status, expected: [401] }],
          ...(resembles !== undefined && { operation: resembles }),
        },
      ),
    ];
  },
});

/**
 * A check of one observation per exchange, `says` what its answer was (a 429 is no answer, so none): the answer is the
 * finding's actual, and with `namesOperation` the operation the case resembles (when it resembles one) its operation.
 */
function answerObservation<const Id extends CheckId>(
  definition: Omit<CheckDefinition<RobustEvidence, Id>, 'run' | 'causes'>,
  says: (ev: RobustEvidence, shown: string, status: number | null) => string,
  { namesOperation = false }: { readonly namesOperation?: boolean } = {},
): Check<RobustEvidence, Id> {
  const check: Check<RobustEvidence, Id> = defineCheck({
    ...definition,
    // What the target did where the spec is silent: a record, never a defect.
    causes: ['gap'],
    run: (ev) => {
      const status = statusOf(ev.exchange);
      if (status === 429) return [];
      const shown = answer(ev.exchange);
      const operation = namesOperation ? ev.resembles : undefined;
      return [
        observation(check, ev.exchange, says(ev, shown, status), {
          actual: shown,
          causes: [{ kind: 'gap', clause: check.clause, answer: shown }],
          ...(operation !== undefined && { operation }),
        }),
      ];
    },
  });
  return check;
}

export const pathVariantAnswer: Check<RobustEvidence, 'path-variant-answer'> = answerObservation(
  {
    id: 'path-variant-answer',
    clauses: ['gap-4-path-variants'],
    levels: ['observation'],
    area: 'robustness',
    title: 'Records what path variants a router may normalise (a trailing slash, another case) and other methods get.',
    appliesTo: {
      what: 'answers to path variants of a documented path, a trailing slash or another case, and to an undocumented method',
      test: answered,
      operation: ({ exchange: ex, resembles }) => resembles ?? ex.operation,
    },
    // The operations the catalogue's path variants stand in for (the undocumented method stands in for none).
    operations: [...new Set(PATH_VARIANTS.map((v) => v.resembles))],
  },
  ({ exchange: ex, what }, shown) => {
    const keyed = ex.keyPlan !== 'none' && ex.keyPlan !== 'invalid';
    return `${requestLine(ex)} (${what}) ${keyed ? 'with the key' : 'without a key'} answered ${shown}\nthe spec shows no answer for paths or methods other than the documented ones`;
  },
  { namesOperation: true },
);

export const queryShapeAnswer: Check<RobustEvidence, 'query-shape-answer'> = answerObservation(
  {
    id: 'query-shape-answer',
    clauses: ['gap-4-parameter-shapes'],
    levels: ['observation'],
    area: 'robustness',
    title:
      'Records what listPets answers to its parameters in another shape (arrays in brackets); a 5xx is judged apart.',
    appliesTo: { what: 'answers to list queries with parameters in another shape, arrays in brackets', test: answered },
    operations: [QUERY_SHAPE_OPERATION],
  },
  ({ exchange: ex, what }, shown) =>
    `${opLabel(ex)} with ${what} answered ${shown}\nthe spec shows no answer for parameters in another shape than name=value once`,
);

export const contentTypeAccepted: Check<RobustEvidence, 'content-type-accepted'> = answerObservation(
  {
    id: 'content-type-accepted',
    clauses: ['gap-1-media-types'],
    levels: ['observation'],
    area: 'robustness',
    title: 'Records which request Content-Types createPet accepts (the spec documents application/json only).',
    appliesTo: { what: 'answers to createPet bodies sent as another media type or none', test: answered },
    operations: [BODY_OPERATION],
  },
  ({ what }, shown, status) => {
    const verdict = status === 201 ? 'accepted' : status !== null && status < 500 ? 'refused' : 'not answered';
    return `createPet with ${what}: ${verdict} (${shown})\nthe spec documents application/json request bodies and no answer for other media types`;
  },
);

export const acceptAnswer: Check<RobustEvidence, 'accept-answer'> = answerObservation(
  {
    id: 'accept-answer',
    clauses: ['gap-1-media-types'],
    levels: ['observation'],
    area: 'robustness',
    title: 'Records what an Accept value the service cannot serve gets (a JSON answer anyway, or a 406).',
    appliesTo: {
      what: 'answers to a request whose Accept excludes JSON, text/html or application/xml',
      test: answered,
    },
  },
  ({ exchange: ex, what }, shown) =>
    `${opLabel(ex)} with ${what} answered ${shown}\nthe spec documents JSON bodies only and no answer for an Accept that excludes them (a JSON answer is judged as any other)`,
);

export const authBeforeBody: Check<RobustEvidence, 'auth-before-body'> = defineCheck({
  id: 'auth-before-body',
  clauses: ['gap-5-auth-order'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'robustness',
  title: 'Records whether a malformed body without a key gets 401 (key first) or 400 (body first).',
  appliesTo: { what: 'answers to a malformed createPet body sent without a key', test: answered },
  operations: [BODY_OPERATION],
  run: ({ exchange: ex }) => {
    const status = statusOf(ex);
    if (status === null || status === 429) return [];
    const order =
      status === 401
        ? 'the key is judged first (401)'
        : status === 400
          ? 'the body is judged before the key (400 before 401)'
          : `answered ${status}`;
    return [
      observation(
        authBeforeBody,
        ex,
        `a malformed body without a key: ${order}\nthe spec documents 400 for a bad body and 401 for a missing key, not which comes first`,
        { actual: String(status), causes: [{ kind: 'gap', clause: authBeforeBody.clause, answer: order }] },
      ),
    ];
  },
});

/** Whether a created pet shows a reading's name and categoryId (exact digits). */
function shows(pet: Record<string, unknown>, r: { readonly name: string; readonly categoryId: string }): boolean {
  const got = exactId(pet.categoryId);
  return pet.name === r.name && got !== null && got === exactId(r.categoryId);
}

export const bodyUnderstood: Check<BodyEvidence, 'robust-body-understood'> = defineCheck({
  id: 'robust-body-understood',
  clauses: ['4.2-create-echo', 'gap-2-json-edges'],
  // RFC 8259 leaves duplicate members and a byte order mark to implementations, the spec shows no limits on nesting
  // or size, and other media types are not documented: refusing any of these bodies is fine, and recorded. A 201
  // says the target read a NewPet: the pet it shows must then be one the body can be read as (section 4.2, the animal
  // added as sent), or it stored something the client never sent.
  levels: ['violation', 'observation'],
  causes: ['field', 'gap'],
  area: 'robustness',
  title: 'A catalogue body the target accepts comes back as one reading of what was sent; any answer is recorded.',
  // Every answer is recorded (the JSON edge); only a pet created from it bears on the echo.
  appliesTo: {
    what: "answers to the catalogue's createPet bodies at the edges of JSON, and a pet created from one for the echo",
    test: (ev) => {
      if (!answered(ev)) return false;
      return createdPet(ev.exchange) && Array.isArray(ev.readings) ? true : ['gap-2-json-edges'];
    },
  },
  operations: [BODY_OPERATION],
  run: ({ exchange: ex, what, readings }) => {
    const status = statusOf(ex);
    if (status === null || status === 429) return [];
    const pet = createdPet(ex);
    if (pet && Array.isArray(readings) && !readings.some((r) => shows(pet, r))) {
      const sent = readings.map((r) => `name ${show(r.name, 40)}, categoryId ${r.categoryId}`).join(' or ');
      return [
        finding(
          bodyUnderstood,
          ex,
          // The causes name the fields no reading explains; the documented line gives the readings whole.
          {
            lead: `createPet with ${what} answered 201 with`,
            because: `the spec documents the animal added as sent: ${sent}`,
          },
          {
            expected: sent.slice(0, 200),
            actual: show({ name: pet.name, categoryId: pet.categoryId }, 200),
            causes: misread(pet, readings),
          },
        ),
      ];
    }
    return [
      observation(
        bodyUnderstood,
        ex,
        `createPet with ${what} answered ${answer(ex)}\nthe spec shows no answer for this body (JSON's edges, other media types)`,
        {
          actual: answer(ex),
          clause: 'gap-2-json-edges',
          causes: [{ kind: 'gap', clause: 'gap-2-json-edges', answer: answer(ex) }],
        },
      ),
    ];
  },
});

/**
 * The fields of a created pet no reading of the body explains, one cause each (`sent`: the readings' values); when
 * each field matches some reading but no reading both, the pair is at fault: both fields, against the first reading.
 */
function misread(
  pet: Record<string, unknown>,
  readings: readonly { readonly name: string; readonly categoryId: string }[],
): FieldCause[] {
  const markers = markersIn(pet);
  const fields = [
    {
      field: 'name',
      value: show(pet.name, 60),
      matches: (r: (typeof readings)[number]) => pet.name === r.name,
      sent: (r: (typeof readings)[number]) => show(r.name, 60),
    },
    {
      field: 'categoryId',
      value: exactId(pet.categoryId)?.toString() ?? show(pet.categoryId, 30),
      matches: (r: (typeof readings)[number]) => {
        const got = exactId(pet.categoryId);
        return got !== null && got === exactId(r.categoryId);
      },
      sent: (r: (typeof readings)[number]) => r.categoryId,
    },
  ];
  const unexplained = fields.filter((f) => !readings.some(f.matches));
  return (unexplained.length > 0 ? unexplained : fields).map((f) => ({
    kind: 'field',
    schema: 'Pet',
    path: `/${f.field}`,
    field: f.field,
    problem: 'changed',
    value: f.value,
    sent: [...new Set(readings.map(f.sent))].join(' or '),
    ...(markers.length > 0 && { markers }),
  }));
}

export const robustnessChecks = [
  noOperationWithoutKey,
  pathVariantAnswer,
  queryShapeAnswer,
  contentTypeAccepted,
  acceptAnswer,
  authBeforeBody,
  bodyUnderstood,
] satisfies readonly AnyCheck[];
