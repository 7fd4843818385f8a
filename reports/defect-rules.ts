/**
 * The rules that group signatures into defects (causes), as data: each entry says what it groups or folds and why.
 * `reports/defects.ts` applies them, in the order of the sections below; ARCHITECTURE.md explains them. A rule only
 * ever joins evidence that one cause explains: when two faults could produce the same evidence, the entry says so.
 */

/** Which HTTP statuses of the finding's first exchange a rule applies to. */
export type StatusClass = 'any' | '2xx' | 'not-2xx';

/**
 * Case classes of one family: different requests that show one cause. A family rule renames the variant (the case
 * class) to the family; the defect lists the variants it was seen with.
 */
export interface FamilyRule {
  readonly id: string;
  readonly checks: readonly string[];
  /** The case classes of the family; absent: every case class of those checks. */
  readonly cases?: RegExp;
  readonly status: StatusClass;
  readonly family: string;
  readonly reason: string;
}

export const FAMILY_RULES: readonly FamilyRule[] = [
  {
    id: 'auth-rejection-status',
    checks: ['auth-rejected'],
    status: 'not-2xx',
    family: 'a missing or invalid key answered with another status than 401',
    reason: 'the status of the rejection is wrong whatever was sent: one rejection path',
  },
  {
    id: 'auth-any-scheme',
    checks: ['auth-rejected'],
    cases: /^auth: (Basic scheme|Token scheme|no scheme)$/,
    status: '2xx',
    family: 'a valid key accepted under another scheme',
    reason: 'Basic, Token and no scheme are one defect: the scheme is not checked',
  },
  {
    id: 'auth-any-key',
    checks: ['auth-rejected'],
    cases:
      /^auth: (unknown key|altered key|key in another case|key with one letter accented|key with a trailing no-break space|two Authorization headers, the key first)$/,
    status: '2xx',
    family: 'an unknown or altered key accepted',
    reason:
      'an unknown key, an altered one and near misses of the key (another case, an accent, a trailing space, a second header) are one defect: the key is not compared exactly; two lenient comparisons at once (case and trailing space) show as this one defect, their variants listed',
  },
  {
    id: 'auth-missing-key',
    checks: ['auth-rejected'],
    cases: /^auth: (header missing|empty header|\w+ without token|\w+ with empty token)$/,
    status: '2xx',
    family: 'a request without a key served',
    reason: 'no header, an empty one and a scheme without a token are one defect: the key is not required',
  },
  {
    id: 'auth-scheme-case',
    checks: ['auth-valid-accepted'],
    cases: /^auth: (lower|upper)-case scheme$/,
    status: 'any',
    family: 'the scheme compared case-sensitively',
    reason:
      'the lower- and upper-case spellings are one defect: a case-sensitive comparison (RFC 9110: case-insensitive)',
  },
  {
    id: 'www-authenticate-any-401',
    checks: ['www-authenticate'],
    status: 'any',
    family: 'every 401',
    reason: 'the header belongs to the 401 whatever provoked it',
  },
  {
    id: 'create-required-fields',
    checks: ['create-invalid-rejected', 'no-5xx'],
    cases: /^invalid body: (missing \w+|null body|array body|number body|string body|boolean body)$/,
    status: 'any',
    family: 'invalid body: required fields missing',
    reason: 'a body missing name, categoryId or both (any non-object) is one defect: required fields are not enforced',
  },
  {
    id: 'create-unparseable',
    checks: ['create-invalid-rejected', 'no-5xx'],
    cases: /^invalid body: (malformed JSON|empty body|no body)$/,
    status: 'any',
    family: 'invalid body: not JSON',
    reason: 'malformed, empty and absent bodies are one defect: the body is not parsed safely',
  },
  {
    id: 'create-fraction',
    checks: ['create-invalid-rejected', 'no-5xx'],
    cases: /^invalid body: categoryId( near an integer)?$/,
    status: 'any',
    // The lone fraction's own words: a baseline that names it still does.
    family: 'invalid body: categoryId',
    reason:
      'a fraction and one within double precision of an integer accepted together are one defect: the integer is not checked on its digits (a tolerance alone takes only the near ones, its variant listed)',
  },
  {
    id: 'create-status-enum',
    checks: ['create-invalid-rejected', 'no-5xx'],
    cases: /^invalid body: (unknown|empty) status$/,
    status: 'any',
    family: 'invalid body: unknown status',
    reason:
      'an unknown status and an empty one accepted together are one defect: the enum is not enforced (an empty status alone, taken for an absent one, is its variant)',
  },
  {
    id: 'create-int64-edges',
    checks: ['create-invalid-rejected', 'create-201', 'no-5xx'],
    cases: /^invalid body: categoryId (beyond int|.*2\^(53|63))/,
    status: 'any',
    family: 'int64 edges of categoryId',
    reason: 'several int64-edge categoryIds are one defect: the number is not read as an int64',
  },
  {
    id: 'create-no-effect',
    checks: ['create-invalid-no-effect'],
    status: 'any',
    family: 'any invalid body',
    reason: 'a refused body stored anyway: the store is written before the body is judged, whatever was invalid',
  },
  {
    id: 'list-invalid-limit',
    checks: ['no-5xx', 'list-200', 'transport-ok'],
    cases: /^query: (limit (a fraction|out of range|not a number|empty)|repeated limit)$/,
    status: 'any',
    family: 'query: invalid limit',
    reason: 'a fractional, out-of-range, non-numeric or empty limit are one defect: the limit is not validated',
  },
  {
    id: 'auth-prototype-key',
    checks: ['auth-rejected', 'no-5xx'],
    cases: /^auth: a key named /,
    status: 'any',
    family: 'keys named after prototype properties',
    reason:
      'constructor, __proto__, toString, hasOwnProperty and valueOf are one defect: the key is looked up in a plain object',
  },
  {
    id: 'json-deep-nesting',
    checks: ['no-5xx', 'transport-ok'],
    cases: /^robustness: nesting \d+ deep/,
    status: 'any',
    family: 'JSON nested thousands deep',
    reason:
      'deep nesting as the whole body or inside an unknown member is one defect: a recursive parser with no limit',
  },
  {
    id: 'router-path-case',
    checks: ['no-operation-without-key'],
    cases: /^robustness: upper-case (path|version segment)$/,
    status: 'any',
    family: 'robustness: upper-case path',
    reason:
      '/V1/PETS and /V1/pets served without a key are one defect: the router matches case-insensitively where the authentication layer does not (a prefix alone mounted so shows only /V1/pets)',
  },
  {
    id: 'create-member-case',
    checks: ['create-invalid-rejected'],
    cases: /^robustness: member \w+ \(case variant\)$/,
    status: 'any',
    family: "members matched whatever their letters' case",
    reason: 'categoryid and Name standing for categoryId and name are one defect: members matched case-insensitively',
  },
  {
    id: 'get-petid-int64',
    checks: ['no-5xx', 'get-404'],
    cases: /^petId (non-numeric|beyond-int64)$/,
    status: 'any',
    family: 'petId not an int64',
    reason: 'a non-numeric petId and one beyond int64 are one defect: the path parameter is not validated',
  },
];

/**
 * Case classes that are ordinary requests of their operation (null, a request outside any case, too): one variant,
 * "ordinary requests", of any check (a check failing on a plain list and on a list by status fails on ordinary
 * lists); and a check failing on them on every operation fails on whatever is sent.
 */
export const ORDINARY_CASES: RegExp =
  /^(query: (no parameters|limit|status|limit and status)|petId existing|auth: Bearer \{key\})$/;

/**
 * Server-wide: the same check and variant failing on every operation the run exercised, provoked on each by the same
 * kind of request (ordinary ones, or the same case class), is one defect that lists where it was seen. Three
 * unrelated 500s (a bad query, an absent id, a malformed body) stay three: their requests differ.
 */
export const SERVER_WIDE = {
  // A check and variant seen at two levels (a violation on 2xx, a warning on 401) is one defect at the higher level.
  id: 'server-wide',
  minOperations: 2,
  reason: 'the same check and variant on every operation exercised, for the same kind of request',
} as const;

/**
 * Checks of a key's counter, not of an operation: the operations a finding names are where the counter was probed,
 * so one check's findings on several operations are one defect.
 */
export const KEY_WIDE = {
  id: 'key-wide',
  checks: ['rl-one-counter-per-key', 'rl-per-key', 'rl-burst-enforced', 'rl-honoured-not-banned'],
  reason: "a check of the key's counter: the operations it names are only where the counter was probed",
} as const;

/**
 * Checks whose one finding can mix causes (a list body with a pet lacking a name and another with a fractional
 * categoryId): split by the failing field before grouping, and one field failing the same way on several
 * operations is one defect (a Pet or an Error is written by one serializer).
 */
export const SPLIT_BY_FIELD: Readonly<Record<string, string>> = {
  'body-schema':
    'each failing path is its own cause; the same path and keyword on several operations or statuses is one',
  'int64-exact': 'each field beyond int64 is its own cause; the same field on several operations is one',
  'create-echo': 'each field changed on the way in is its own cause (a trimmed name is not a rounded categoryId)',
  'model-consistency': 'each field the model finds changed is its own cause',
  'error-body-429': "each failing path of a 429's Error is its own cause, the same as on the other statuses",
};

/**
 * Echoes: every exchange of the consequence also shows the root, and the root's check names the cause. No answer or a
 * 5xx explains anything else said of the exchange; a wrong status explains what the body and header checks say of
 * the response. (A root seen more often than the log kept is judged within its sample.)
 */
export interface ExplainsRule {
  readonly id: string;
  readonly roots: readonly string[];
  /** The checks it explains: ids, or 'response' for every response check, '*' for any. */
  readonly explains: readonly string[] | 'response' | '*';
  readonly reason: string;
}

/** The checks that judge a status (what the response should have been): its body and headers follow from it. */
export const STATUS_CHECKS: readonly string[] = [
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
    explains: ['status-documented', 'response'],
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
  readonly roots: readonly string[];
  readonly consequence: string;
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
