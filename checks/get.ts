/** getPet (4.3, deprecated but working until 2030-12-05): found gives 200, never created gives 404. */
import type { Exchange } from '../http/exchange.js';
import { defineCheck, finding, observation, show, type Check, type AnyCheck } from './check.js';
import { plain } from '../http/lossless.js';
import { validateSchema } from '../spec/validators.js';
import { exactId, isObject, jsonOf, opLabel, isAnswered, statusOf } from './facts.js';

export interface GetFoundEvidence {
  readonly exchange: Exchange;
  /** The create exchange that made the animal (fields are compared by create-retrievable). */
  readonly expected: Exchange;
}

export interface GetIdEvidence {
  readonly exchange: Exchange;
  /** The petId as sent in the path. */
  readonly petId: string;
}

/** An answer to judge: a 429 answers nothing of the pet. */
const answered = <E extends { readonly exchange: Exchange }>(ev: E): boolean => isAnswered(ev.exchange);

export const get200: Check<GetFoundEvidence, 'get-200'> = defineCheck({
  id: 'get-200',
  clauses: ['4.3-get-200'],
  covers: ['4.3-deprecated'],
  levels: ['violation'],
  causes: ['status'],
  area: 'getPet',
  title: 'GET /pets/{petId} of an existing animal gets 200.',
  appliesTo: { what: 'answers to a get of an animal the run created', test: answered },
  run: ({ exchange: ex, expected }) => {
    const status = statusOf(ex);
    if (status === null || status === 200 || status === 429) return [];
    const by = expected && typeof expected.seq === 'number' ? ` created by #${expected.seq}` : '';
    return [
      finding(
        get200,
        expected ? [ex, expected] : ex,
        { on: `for ${opLabel(ex)} of an animal${by}`, because: 'the spec documents 200 for an animal that exists' },
        {
          expected: '200',
          actual: String(status),
          operation: 'getPet',
          causes: [{ kind: 'status', status, expected: [200] }],
        },
      ),
    ];
  },
});

export const get404: Check<GetIdEvidence, 'get-404'> = defineCheck({
  id: 'get-404',
  clauses: ['4.3-get-404', 'gap-4-invalid-petid'],
  levels: ['violation', 'observation'],
  causes: ['status', 'gap'],
  area: 'getPet',
  title: 'GET /pets/{petId} of an int64 id never created gets 404.',
  appliesTo: { what: 'answers to a get of an id the run never created', test: answered },
  run: ({ exchange: ex, petId }) => {
    const status = statusOf(ex);
    if (status === null || status === 404 || status === 429) return [];
    // Ids are assigned by the service: a 4xx for an id it could never assign (≤ 0) is a reasonable reading, recorded.
    if (status >= 400 && status < 500 && status !== 401 && status !== 403 && /^(-\d+|0)$/.test(String(petId))) {
      return [
        observation(
          get404,
          ex,
          `petId ${petId} (not positive) answered ${status}\nthe spec does not show whether ids are positive`,
          {
            actual: String(status),
            clause: 'gap-4-invalid-petid',
            causes: [{ kind: 'gap', clause: 'gap-4-invalid-petid', answer: String(status) }],
          },
        ),
      ];
    }
    // On a shared store another client may have created the id: a valid Pet of exactly that id shows it exists.
    if (status === 200 && isPetOfId(jsonOf(ex), petId)) {
      return [
        observation(
          get404,
          ex,
          `petId ${petId}, which the run did not create, answered 200 with a pet of that id\nanother client created it (the store is shared)`,
          { actual: '200' },
        ),
      ];
    }
    return [
      finding(
        get404,
        ex,
        {
          on: `for GET /pets/${show(String(petId), 60).slice(1, -1)} which was never created`,
          because: 'the spec documents 404 for no animal with that identifier',
        },
        {
          expected: '404',
          actual: String(status),
          causes: [{ kind: 'status', status, expected: [404] }],
        },
      ),
    ];
  },
});

function isPetOfId(body: unknown, petId: string): boolean {
  const id = exactId(petId);
  return isObject(body) && id !== null && exactId(body.id) === id && validateSchema('Pet', plain(body)).length === 0;
}

export const getInvalidId: Check<GetIdEvidence, 'get-invalid-id'> = defineCheck({
  id: 'get-invalid-id',
  clauses: ['gap-4-invalid-petid'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'getPet',
  title: 'Records how a petId that is not an int64 is answered (any 4xx is fine).',
  appliesTo: { what: 'answers to a get of a petId that is not an int64', test: answered },
  run: ({ exchange: ex, petId }) => {
    const status = statusOf(ex);
    if (status === null || status === 429) return [];
    return [
      observation(
        getInvalidId,
        ex,
        `petId ${show(String(petId), 60)} answered ${status}\nthe spec does not show the answer to a petId that is not an int64`,
        {
          actual: String(status),
          causes: [{ kind: 'gap', clause: getInvalidId.clause, answer: String(status) }],
        },
      ),
    ];
  },
});

export const getChecks = [get200, get404, getInvalidId] satisfies readonly AnyCheck[];
