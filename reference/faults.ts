/**
 * Injectable faults of the reference server. Each is ONE defect, switched on by id, and names the check
 * (notes/checks.md) that must report it and the suite that exercises it. The meta-test runs that suite against the
 * server with the fault on and expects a finding of `catches`. Gaps of the spec (default status, name limits, order,
 * invalid query handling) are never faults: a server may choose either way there.
 */

export interface Fault {
  readonly id: string;
  readonly description: string;
  /** The check id (notes/checks.md) that must report a violation (or warning for W checks). */
  readonly catches: string;
  /** Which suite exercises it: 'auth'|'listPets'|'createPet'|'getPet'|'stateful'|'rate-limit'|'quota'. */
  readonly suite: string;
}

const catalogue = [
  // --- authentication
  {
    id: 'auth-any-token',
    description: 'any bearer token is accepted, known or not',
    catches: 'auth-rejected',
    suite: 'auth',
  },
  {
    id: 'auth-wrong-scheme',
    description: 'a valid key is accepted under any scheme (Basic, Token, none)',
    catches: 'auth-rejected',
    suite: 'auth',
  },
  {
    id: 'auth-create-open',
    description: 'POST /pets is served without an Authorization header',
    catches: 'auth-rejected',
    suite: 'auth',
  },
  {
    id: 'auth-403',
    description: 'a missing or invalid key gets 403 instead of 401',
    catches: 'auth-rejected',
    suite: 'auth',
  },
  { id: 'auth-401-no-body', description: '401 is sent with an empty body', catches: 'json-parses', suite: 'auth' },
  {
    id: 'auth-bearer-case-sensitive',
    description: 'the scheme is compared case-sensitively: "bearer KEY" gets 401',
    catches: 'auth-valid-accepted',
    suite: 'auth',
  },
  {
    id: 'auth-no-www-authenticate',
    description: '401 carries no WWW-Authenticate header',
    catches: 'www-authenticate',
    suite: 'auth',
  },

  // --- response shape, on whatever operation shows it first
  {
    id: 'error-status-mismatch',
    description: 'Error.status is always 400, whatever the HTTP status',
    catches: 'error-status-matches',
    suite: 'getPet',
  },
  {
    id: 'error-text-plain',
    description: 'error responses are served as text/plain',
    catches: 'content-type-json',
    suite: 'createPet',
  },
  {
    id: 'success-text-html',
    description: '2xx responses are served as text/html',
    catches: 'content-type-json',
    suite: 'listPets',
  },
  {
    id: 'list-truncated-json',
    description: 'the list body loses its last byte (truncated JSON)',
    catches: 'json-parses',
    suite: 'listPets',
  },
  {
    id: 'list-wrapped',
    description: 'the list is wrapped in an object {"items":[...]}',
    catches: 'body-schema',
    suite: 'listPets',
  },
  {
    id: 'pet-missing-categoryId',
    description: 'Pet bodies omit categoryId',
    catches: 'body-schema',
    suite: 'createPet',
  },
  {
    id: 'pet-id-string',
    description: 'Pet.id is serialized as a quoted string',
    catches: 'body-schema',
    suite: 'createPet',
  },
  {
    id: 'ids-beyond-int64',
    description: 'ids start at 2^63, beyond int64',
    catches: 'int64-exact',
    suite: 'createPet',
  },
  {
    id: 'create-202',
    description: 'createPet answers 202 Accepted, an undocumented status',
    catches: 'status-documented',
    suite: 'createPet',
  },

  // --- listPets
  {
    id: 'list-limit-ignored',
    description: 'limit is parsed but not applied: every matching pet comes back',
    catches: 'list-limit-respected',
    suite: 'listPets',
  },
  {
    id: 'list-default-50',
    description: 'the default page size is 50 instead of 20',
    catches: 'list-default-limit',
    suite: 'listPets',
  },
  {
    id: 'list-filter-leak',
    description: 'the status filter is ignored: other statuses leak into the list',
    catches: 'list-status-filter',
    suite: 'listPets',
  },
  {
    id: 'list-limit-100-rejected',
    description: 'off-by-one range check: limit=100 gets 400',
    catches: 'list-200',
    suite: 'listPets',
  },
  {
    id: 'list-limit-1-rejected',
    description: 'off-by-one range check: limit=1 gets 400',
    catches: 'list-200',
    suite: 'listPets',
  },
  {
    id: 'list-invalid-limit-500',
    description: 'a non-numeric limit crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'listPets',
  },

  // --- createPet
  { id: 'create-200', description: 'createPet answers 200 instead of 201', catches: 'create-201', suite: 'createPet' },
  {
    id: 'create-missing-field-accepted',
    description: 'a body missing name or categoryId is accepted with a filler value',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
  },
  {
    id: 'create-categoryid-string-accepted',
    description: 'categoryId given as a string of digits ("42") is accepted',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
  },
  {
    id: 'create-fractional-accepted',
    description: 'a fractional categoryId (1.5) is accepted and truncated',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
  },
  {
    id: 'create-invalid-status-accepted',
    description: 'a status outside the enum is accepted and stored',
    catches: 'create-invalid-rejected',
    suite: 'createPet',
  },
  {
    id: 'create-400-still-created',
    description: 'an invalid body gets 400 but the pet is stored anyway',
    catches: 'create-invalid-no-effect',
    suite: 'createPet',
  },
  {
    id: 'create-big-categoryid-rejected',
    description: 'categoryId beyond 2^53 (a valid int64) gets 400',
    catches: 'create-201',
    suite: 'createPet',
  },
  {
    id: 'create-int64-rounded',
    description: 'categoryId goes through a JS number and is rounded beyond 2^53',
    catches: 'create-echo',
    suite: 'createPet',
  },
  {
    id: 'create-name-nfc',
    description: 'names are NFC-normalised (e + U+0301 becomes U+00E9)',
    catches: 'create-echo',
    suite: 'createPet',
  },
  {
    id: 'create-name-emoji-stripped',
    description: 'characters beyond the BMP (emoji) are stripped from names',
    catches: 'create-echo',
    suite: 'createPet',
  },
  {
    id: 'create-name-trimmed',
    description: 'leading and trailing whitespace is trimmed from names',
    catches: 'create-echo',
    suite: 'createPet',
  },
  {
    id: 'create-status-not-persisted',
    description: 'the sent status is ignored: every pet is stored and returned as available',
    catches: 'create-echo',
    suite: 'createPet',
  },
  {
    id: 'create-status-echo-only',
    description: 'the 201 echoes the sent status but the store keeps available',
    catches: 'create-retrievable',
    suite: 'createPet',
  },
  {
    id: 'create-malformed-500',
    description: 'malformed JSON crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'createPet',
  },
  {
    id: 'create-client-id-honoured',
    description: 'a client-supplied id is used as the pet id',
    catches: 'create-id-not-client-supplied',
    suite: 'createPet',
  },
  {
    id: 'create-duplicate-ids',
    description: 'the id is read at request start and stored 30 ms later: concurrent creates share ids',
    catches: 'ids-unique',
    suite: 'createPet',
  },
  {
    id: 'create-not-listed',
    description: 'the list is served from a cache that hides pets younger than 60 s',
    catches: 'create-listed',
    suite: 'createPet',
  },

  // --- getPet
  {
    id: 'get-odd-404',
    description: 'getPet answers 404 for every odd id (an index off by one)',
    catches: 'get-200',
    suite: 'getPet',
  },
  {
    id: 'list-reset-at-max',
    description: 'GET /pets?limit=100 resets the connection instead of answering',
    catches: 'transport-ok',
    suite: 'listPets',
  },
  {
    id: 'list-marks-sold',
    description: 'any list request marks every pending pet as sold',
    catches: 'model-consistency',
    suite: 'stateful',
  },
  { id: 'get-absent-500', description: 'an absent id crashes the handler: 500', catches: 'no-5xx', suite: 'getPet' },
  {
    id: 'get-absent-200-null',
    description: 'an absent id gets 200 with a null body',
    catches: 'get-404',
    suite: 'getPet',
  },
  {
    id: 'get-invalid-id-500',
    description: 'a non-numeric petId crashes the handler: 500',
    catches: 'no-5xx',
    suite: 'getPet',
  },
  {
    id: 'get-not-retrievable',
    description: 'getPet answers 404 for every id, created or not',
    catches: 'create-retrievable',
    suite: 'createPet',
  },
  {
    id: 'get-wrong-name',
    description: 'getPet returns a display name ("<name> (deprecated)") instead of the name',
    catches: 'create-retrievable',
    suite: 'createPet',
  },

  // --- rate-limit headers (checked on every response)
  {
    id: 'rl-headers-missing',
    description: 'no X-RateLimit-* headers on any response',
    catches: 'rate-limit-headers-present',
    suite: 'listPets',
  },
  {
    id: 'rl-headers-missing-4xx',
    description: 'X-RateLimit-* headers missing on 4xx responses',
    catches: 'rate-limit-headers-present',
    suite: 'auth',
  },
  {
    id: 'rl-headers-missing-429',
    description: 'X-RateLimit-* headers missing on 429 responses',
    catches: 'rate-limit-headers-present',
    suite: 'rate-limit',
  },
  {
    id: 'rl-reset-ms',
    description: 'X-RateLimit-Reset is epoch milliseconds',
    catches: 'rate-limit-reset-epoch',
    suite: 'listPets',
  },
  {
    id: 'rl-reset-relative',
    description: 'X-RateLimit-Reset is seconds until the reset, not an epoch time',
    catches: 'rate-limit-reset-epoch',
    suite: 'listPets',
  },
  {
    id: 'rl-reset-fractional',
    description: 'X-RateLimit-Reset carries a fraction (1712345678.123)',
    catches: 'rate-limit-headers-present',
    suite: 'listPets',
  },
  {
    id: 'rl-remaining-above-limit',
    description: 'Remaining reports the day window while Limit reports the minute window',
    catches: 'rate-limit-remaining-range',
    suite: 'listPets',
  },
  {
    id: 'rl-remaining-negative',
    description: 'on 429, Remaining counts the rejected request and goes negative',
    catches: 'rate-limit-headers-present',
    suite: 'rate-limit',
  },
  {
    id: 'rl-limit-constant',
    description: 'X-RateLimit-Limit is always 100, whatever the plan',
    catches: 'rate-limit-limit-plan',
    suite: 'listPets',
  },

  // --- 429 responses
  {
    id: 'rl-no-retry-after',
    description: '429 without Retry-After',
    catches: 'retry-after-valid',
    suite: 'rate-limit',
  },
  {
    id: 'rl-retry-after-fractional',
    description: 'Retry-After in fractional seconds (0.25)',
    catches: 'retry-after-valid',
    suite: 'rate-limit',
  },
  { id: 'rl-503', description: '503 instead of 429 when limited', catches: 'no-5xx', suite: 'rate-limit' },
  {
    id: 'rl-429-text-plain',
    description: '429 body is text/plain "Too Many Requests"',
    catches: 'error-body-429',
    suite: 'rate-limit',
  },

  // --- limiter behaviour
  {
    id: 'rl-off-by-one',
    description: 'the minute limit admits plan + 1 requests',
    catches: 'rl-burst-enforced',
    suite: 'rate-limit',
  },
  {
    id: 'rl-stricter',
    description: 'the minute limit admits plan - 1 requests while reporting the plan',
    catches: 'rl-not-stricter-than-plan',
    suite: 'rate-limit',
  },
  {
    id: 'rl-not-enforced',
    description: 'requests over the limit are counted but never refused',
    catches: 'rl-burst-enforced',
    suite: 'rate-limit',
  },
  {
    id: 'rl-retry-after-short',
    description: 'Retry-After is half the real wait (rounded down, at least 1)',
    catches: 'rl-retry-after-honoured',
    suite: 'rate-limit',
  },
  {
    id: 'rl-window-never-resets',
    description: 'the minute counter never resets (tokens never refill)',
    catches: 'rl-honoured-not-banned',
    suite: 'rate-limit',
  },
  {
    id: 'rl-rejected-counted',
    description: 'rejected requests are charged too, and the charge carries into the next window',
    catches: 'rl-rejected-not-counted',
    suite: 'rate-limit',
  },
  {
    id: 'rl-shared-limits',
    description: 'all keys share one counter, with the limits of the first key seen',
    catches: 'rl-per-key',
    suite: 'rate-limit',
  },
  {
    id: 'rl-shared-counter',
    description: "one counter for all keys, each key still held to and told its own plan's limit",
    catches: 'rl-per-key',
    suite: 'rate-limit',
  },
  {
    id: 'rl-per-route',
    description: "one counter per key and operation: a key gets its plan's limit on every operation",
    catches: 'rl-one-counter-per-key',
    suite: 'rate-limit',
  },
  {
    id: 'rl-ban-honoured',
    description: 'every 429 bans the key for two windows, even when the client waits what Retry-After said',
    catches: 'rl-honoured-not-banned',
    suite: 'rate-limit',
  },
  {
    id: 'rl-free-numbers',
    description: "every plan gets the Free plan's limits",
    catches: 'rate-limit-limit-plan',
    suite: 'rate-limit',
  },
  {
    id: 'rl-ban-403',
    description: 'any request before Retry-After elapsed bans the key with 403',
    catches: 'rl-429-shape',
    suite: 'rate-limit',
  },
  {
    id: 'rl-daily-not-enforced',
    description: 'the daily quota is counted but never enforced',
    catches: 'rl-daily-quota',
    suite: 'quota',
  },
] as const satisfies readonly Fault[];

export type FaultId = (typeof catalogue)[number]['id'];

export const faults: readonly Fault[] = Object.freeze(catalogue.map((f) => Object.freeze({ ...f })));

const known = new Set<string>(catalogue.map((f) => f.id));

/** The faults switched on in one server. Unknown ids throw at start, so a typo never runs a faultless server. */
export class FaultSet {
  private readonly on: ReadonlySet<string>;
  constructor(ids: readonly string[] = []) {
    for (const id of ids) if (!known.has(id)) throw new Error(`reference: unknown fault id ${JSON.stringify(id)}`);
    this.on = new Set(ids);
  }
  has(id: FaultId): boolean {
    return this.on.has(id);
  }
}
