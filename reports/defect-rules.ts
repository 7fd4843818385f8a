/**
 * The rules that group signatures into defects (causes), as data: each entry says what it groups or folds and why.
 * `reports/defects.ts` applies them, in the order of the sections below; ARCHITECTURE.md explains them. A rule only
 * ever joins evidence that one cause explains: when two faults could produce the same evidence, the entry says so.
 */

import type { FieldProblem } from '../checks/cause.js';
import type { CheckId } from '../checks/check-id.js';
import type { CaseFamily } from '../generators/case.js';

/** A rule keyed by a check, a family of input or a kind of cause, with the reason it holds. */
export type Reasons<K extends string> = Readonly<Partial<Record<K, string>>>;

/**
 * Families of input (`CaseRef.family`) that are ordinary requests of their operation: one variant of any check. A
 * check failing on them on every operation fails on whatever is sent.
 */
export const ORDINARY_FAMILIES: Reasons<CaseFamily> = {
  ordinary: 'a plain list, a list by status or limit, an existing id, the documented key: what any client sends',
};

/**
 * Crashes: a 5xx or a dropped connection. On one operation, for inputs of one family, they are one defect whichever
 * phase sent them (random, coverage or the robustness catalogue): one parser, one crash. Two crashes stay two only
 * when the operation, the status or the family of input tells them apart.
 */
export const CRASH_CHECKS: Reasons<CheckId> = {
  'no-5xx': 'a 5xx is the crash of one handler on one family of input, whatever phase sent it',
  'transport-ok': 'a dropped connection is the crash of one handler on one family of input, whatever phase sent it',
};

/**
 * The same wrong answer to many classes of invalid input is one defect listing the classes: these checks, refusing
 * (a status that is not 2xx) with one wrong status across families on the same operations, have one cause (one
 * rejection path answering that status). Accepting (a 2xx) stays per family: each family is its own missing guard.
 */
export const SAME_ANSWER: Reasons<CheckId> = {
  'create-invalid-rejected': 'every invalid body refused with one undocumented status: one rejection path',
  'auth-rejected': 'a missing or invalid key answered with another status than 401, whatever was sent',
  'list-invalid-query': 'every invalid query refused with one wrong status: one rejection path',
  'get-invalid-id': 'every invalid petId refused with one wrong status: one rejection path',
};

/**
 * Field causes: the same schema, path and problem on several operations or statuses is one defect (a Pet or an
 * Error is written by one serializer), and an Error lacking several members on the same answers is one defect.
 */
export const FIELD_WIDE = {
  id: 'same-field',
  reason: 'the same field failing the same way on several operations or statuses: one serializer',
} as const;

export const ERROR_MEMBERS = {
  id: 'error-members',
  schema: 'Error',
  problem: 'missing' as FieldProblem,
  reason: 'an Error body that lacks several members on the same answers: one Error writer, not one per member',
} as const;

/** Headers missing together on the same answers: one defect (the layer that sets them), not one per header. */
export const HEADERS_MISSING = {
  id: 'headers-missing',
  reason: 'several headers missing on the same answers: the one layer that sets them all is not there',
} as const;

/** Schemas of a list of another schema: a field of a listed item fails where the item's own schema does. */
export const ITEM_SCHEMAS: Readonly<Record<string, string>> = { Pets: 'Pet' };

/** How a field cause's problem reads as a part of its signature (the check's word where it has one). */
export const PROBLEM_WORDS: Readonly<Record<FieldProblem, string>> = {
  missing: 'missing',
  type: '',
  value: '',
  schema: '',
  'beyond-int64': 'beyond int64',
  changed: 'changed',
};
export const CHANGED_WORDS: Reasons<CheckId> = { 'model-consistency': 'differs' };

/**
 * Server-wide: the same check and variant failing on every operation the run exercised, provoked on each by the same
 * family of input (ordinary ones, or the same family), is one defect that lists where it was seen. Three unrelated
 * 500s (a bad query, an absent id, a malformed body) stay three: their families differ.
 */
export const SERVER_WIDE = {
  id: 'server-wide',
  minOperations: 2,
  reason: 'the same check and variant on every operation exercised, for the same family of input',
} as const;

/**
 * Checks of a key's counter, not of an operation: the operations a finding names are where the counter was probed,
 * so one check's findings on several operations are one defect.
 */
export const KEY_WIDE = {
  id: 'key-wide',
  checks: ['rl-one-counter-per-key', 'rl-per-key', 'rl-burst-enforced', 'rl-honoured-not-banned'] as readonly CheckId[],
  reason: "a check of the key's counter: the operations it names are only where the counter was probed",
} as const;

/**
 * Echoes: every exchange of the consequence also shows the root, and the root's check names the cause. No answer or a
 * 5xx explains anything else said of the exchange; a wrong status explains what the body and header checks say of
 * the response. (A root seen more often than the log kept is judged within its sample.)
 */
export interface ExplainsRule {
  readonly id: string;
  readonly roots: readonly CheckId[];
  /** The checks it explains: ids, or 'response' for every response check, '*' for any. */
  readonly explains: readonly CheckId[] | 'response' | '*';
  readonly reason: string;
}

/** The checks that judge a status (what the response should have been): its body and headers follow from it. */
export const STATUS_CHECKS: readonly CheckId[] = [
  'status-documented',
  'create-201',
  'list-200',
  'get-200',
  'get-404',
  'auth-rejected',
  'auth-valid-accepted',
  'create-invalid-rejected',
  'rl-429-shape',
];

export const EXPLAINS_RULES: readonly ExplainsRule[] = [
  { id: 'no-answer', roots: ['transport-ok'], explains: '*', reason: 'no answer: nothing else can be judged' },
  { id: 'server-error', roots: ['no-5xx'], explains: '*', reason: 'the 5xx explains whatever else is wrong with it' },
  {
    id: 'wrong-status',
    roots: STATUS_CHECKS,
    // Every response check: status-documented (the undocumented status) is one of them.
    explains: 'response',
    reason: 'a wrong status explains its undocumented status, body and headers',
  },
  {
    id: 'not-json',
    roots: ['content-type-json'],
    explains: ['json-parses'],
    reason: 'a body served as another media type (an HTML page) is not JSON: that it does not parse follows from it',
  },
  {
    id: 'not-found-after-create',
    roots: ['get-200'],
    explains: ['create-retrievable'],
    reason: 'an existing pet answered 404 is also a created pet that cannot be fetched',
  },
];

/**
 * Consequences on a stored pet: a finding about a pet the run created (fetched, listed, modelled) whose create request
 * another defect already judged wrong, on the same field, is that defect's consequence.
 */
export const STORED_PET = {
  id: 'stored-pet',
  consequences: ['create-retrievable', 'create-listed', 'model-consistency'],
  roots: ['create-invalid-rejected', 'create-echo', 'int64-exact', 'body-schema', 'create-invalid-no-effect'],
  reason: 'the pet was stored from a request another defect already judged: what is fetched or listed follows from it',
} as const;

/**
 * Traced values: a body-schema or int64 failure on a stored pet whose field and value (or the run's own marker name)
 * is one another defect stored (an invalid body accepted, a value changed on the way in) is its consequence.
 */
export const TRACED_VALUE = {
  id: 'traced-value',
  consequences: ['body-schema', 'int64-exact', 'model-consistency'],
  roots: ['create-invalid-rejected', 'create-echo', 'body-schema', 'int64-exact'],
  reason: 'the failing field and value are what another defect stored: the listed or fetched pet carries it',
} as const;

/** Pairs seen together from one cause, each with the evidence both must share. */
export interface PairRule {
  readonly id: string;
  readonly roots: readonly CheckId[];
  readonly consequence: CheckId;
  /**
   * 'operation': same operation; 'status': same operation and every status of the consequence also the root's (the
   * creates that set a case up aside); 'limit-value': every X-RateLimit-Limit the consequence names, the root names
   * too; 'part': every failing field of the consequence is one of the root's;
   * 'create-status': the same created pet, the root naming its status.
   */
  readonly link: 'operation' | 'status' | 'create-status' | 'limit-value' | 'part';
  readonly reason: string;
}

export const PAIR_RULES: readonly PairRule[] = [
  {
    id: 'undocumented-status',
    roots: STATUS_CHECKS.filter((c) => c !== 'status-documented'),
    consequence: 'status-documented',
    link: 'status',
    reason: 'the operation answers a status it should not: undocumented, and not the one its case calls for',
  },
  {
    id: 'existing-not-found',
    roots: ['get-200'],
    consequence: 'create-retrievable',
    link: 'status',
    reason: 'an existing pet answered with a wrong status is also a created pet that cannot be fetched back',
  },
  {
    id: 'existing-not-found-model',
    roots: ['get-200'],
    consequence: 'model-consistency',
    link: 'status',
    reason: 'an existing pet answered with a wrong status is also a model the server does not keep',
  },
  {
    id: 'limit-header-remaining',
    roots: ['rate-limit-limit-plan'],
    consequence: 'rate-limit-remaining-range',
    link: 'limit-value',
    reason:
      'Remaining is judged against the Limit sent: a wrong Limit makes a right Remaining look out of range (a server that also miscounts Remaining shows no more than this)',
  },
  {
    id: 'limit-header-per-key',
    roots: ['rate-limit-limit-plan'],
    consequence: 'rl-per-key',
    link: 'limit-value',
    reason: 'one Limit for every plan makes the keys look alike: the same wrong header, read by the per-key check',
  },
  {
    id: 'error-media-type-429',
    roots: ['content-type-json'],
    consequence: 'error-body-429-json',
    link: 'operation',
    reason: 'Error bodies served as another media type on every error status: the 429 too',
  },
  {
    id: 'error-body-every-status',
    roots: ['body-schema'],
    consequence: 'error-body-429',
    link: 'part',
    reason: 'an Error body that fails the same way on every error status: the 429 too',
  },
  {
    id: 'limit-ignored',
    roots: ['list-limit-respected'],
    consequence: 'list-default-limit',
    link: 'operation',
    reason:
      'a limit that is not applied cannot apply its default either (a separately wrong default is indistinguishable while the store holds fewer pets than that default)',
  },
  {
    id: 'status-not-stored',
    roots: ['create-retrievable'],
    consequence: 'create-listed',
    link: 'create-status',
    reason: 'a pet stored with another status than the one sent is missing from the list filtered by the status sent',
  },
];
