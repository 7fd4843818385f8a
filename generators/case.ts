/**
 * A case: one class of request a scenario sends, typed (issue 30). `name` is the printed case class (what findings,
 * baselines and reports show: it stays as it was); `family` is the class of input one cause in a target answers alike
 * (bodies the parser cannot read, petIds that are not int64 decimals), `variant` which member of it this is. Grouping
 * reads family and variant, never the printed name.
 *
 * A case joins a family where its generator declares it (generators/auth.ts, invalid-new-pet.ts, pet-id.ts,
 * list-query.ts, robustness.ts): the random phase and the coverage phase draw from the same declarations, so the same
 * input has the same family whichever phase sent it.
 */

/** Families of input: what one cause in a target answers alike. */
export type CaseFamily =
  /** Ordinary requests of their operation (a plain or filtered list, the preflight's, an existing petId, the documented key): what fails on them fails on whatever is sent. */
  | 'ordinary'
  /** No key: the header absent, empty, or the scheme without a token. The key is not required. */
  | 'auth-missing-key'
  /** The key under another scheme (Basic, Token) or none. The scheme is not checked. */
  | 'auth-other-scheme'
  /** An unknown or altered key and near misses of it (case, accent, trailing space, a second header). The key is not compared exactly. */
  | 'auth-wrong-key'
  /** The documented scheme in another letter case (RFC 9110: case-insensitive). The scheme is compared case-sensitively. */
  | 'auth-scheme-case'
  /** Tokens named after prototype properties (constructor, __proto__…). Keys are looked up in a plain object. */
  | 'auth-prototype-key'
  /** A malformed body without a key: which the target judges first, the key or the body. */
  | 'auth-order'
  /** Bodies a parser may be unable to read: not JSON, empty, absent, not UTF-8, another charset or media type, a byte order mark, a repeated member, JSON nested thousands deep. The body parser. */
  | 'body-unreadable'
  /** Bodies without a required field where the schema reads it: missing, not an object, in another letter case, inside __proto__, in the query string, wrapped in a member. Required fields are not enforced. */
  | 'body-required-missing'
  /** A field of another JSON type than its schema's (null, boolean, string for a number, an array…). Types are coerced or not checked. */
  | 'body-wrong-type'
  /** An integer field given a number that is not an integer (a fraction, one within double precision of an integer). The integer is not checked on its digits. */
  | 'body-not-integer'
  /** An integer field beyond its int64 range. The number is not read as an int64. */
  | 'body-int64-edge'
  /** An enum field outside its enum (unknown, empty). The enum is not enforced. */
  | 'body-enum'
  /** Valid bodies at the edges of JSON: prototype-named members, an integer written 5.0. How the JSON reader treats what RFC 8259 leaves open. */
  | 'body-json-edge'
  /** Valid bodies of a size a service may refuse: a name of hundreds of KB, a body of megabytes. The size limits. */
  | 'body-oversized'
  /** A petId that is not an int64 decimal: non-numeric, beyond int64, thousands of digits, other digits, a sign, whitespace. The path parameter is not validated. */
  | 'petId-not-int64'
  /** An int64 petId the store does not hold. The lookup of an absent pet. */
  | 'petId-absent'
  /** An invalid limit: a fraction, out of range, not a number, empty, repeated. The limit is not validated. */
  | 'query-invalid-limit'
  /** An invalid status filter: outside the enum, empty, repeated. The filter is not validated. */
  | 'query-invalid-status'
  /** Parameters in another shape than name=value once (arrays in brackets). The query parser. */
  | 'query-shape'
  /** The path or its version segment in another letter case. The router matches case-insensitively where the key check does not. */
  | 'path-variant'
  /** Paths a router may normalise: a doubled slash, dot segments, a trailing slash, an encoded slash. The router's normalisation. */
  | 'path-normalised'
  /** A method the spec does not document on a documented path. The router's other methods. */
  | 'method-undocumented'
  /** Accept values a JSON service cannot serve (text/html, application/xml). Content negotiation and error pages. */
  | 'accept-variant';

/** Every family's short title, as the reports name it (titles are data: a report never spells a family itself). */
export const CASE_FAMILIES: Readonly<Record<CaseFamily, string>> = Object.freeze({
  ordinary: 'ordinary requests',
  'auth-missing-key': 'a request without a key',
  'auth-other-scheme': 'the key under another scheme',
  'auth-wrong-key': 'an unknown or altered key',
  'auth-scheme-case': 'the scheme in another letter case',
  'auth-prototype-key': 'keys named after prototype properties',
  'auth-order': 'a malformed body without a key',
  'body-unreadable': 'invalid body: not JSON',
  'body-required-missing': 'invalid body: required fields missing',
  'body-wrong-type': 'invalid body: a field of another type',
  'body-not-integer': 'invalid body: a number that is not an integer',
  'body-int64-edge': 'invalid body: an integer beyond int64',
  'body-enum': 'invalid body: a value outside the enum',
  'body-json-edge': 'bodies at the edges of JSON',
  'body-oversized': 'bodies of hundreds of KB or more',
  'petId-not-int64': 'petId not an int64',
  'petId-absent': 'petId absent from the store',
  'query-invalid-limit': 'query: invalid limit',
  'query-invalid-status': 'query: invalid status',
  'query-shape': 'query: parameters in another shape',
  'path-variant': 'the path in another letter case',
  'path-normalised': 'paths a router may normalise',
  'method-undocumented': 'an undocumented method',
  'accept-variant': 'Accept values a JSON service cannot serve',
});

/** Every family, in declaration order. */
export const caseFamilies = (): readonly CaseFamily[] => Object.keys(CASE_FAMILIES) as CaseFamily[];

export interface CaseRef {
  /** The printed case class: `invalid body: missing name`, `robustness: charset=utf-16`, `petId non-numeric`. */
  readonly name: string;
  readonly family: CaseFamily;
  readonly variant: string;
  /** The Pet field the case is about, when it is about one (what a stored pet's consequence is traced by). */
  readonly field?: string;
}

/** A case of `family`: its printed name, the variant (the name without its prefix, unless given), the field if any. */
export function caseRef(name: string, family: CaseFamily, variant = name, field?: string): CaseRef {
  return Object.freeze({ name, family, variant, ...(field !== undefined && { field }) });
}
