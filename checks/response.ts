/**
 * Checks applied to every exchange: status, media type, body schema, exact int64, Error status, rate-limit headers,
 * Retry-After, WWW-Authenticate, and observations of what the spec leaves open (deprecation headers, extra fields).
 */
import { contract, type OperationId, type PlanLimits } from '../spec/contract.js';
import { hasResponseSchema, validateResponseBody, validateSchema } from '../spec/validators.js';
import type { Exchange } from '../http/exchange.js';
import { digits, isInt64, isLosslessNumber, plain } from '../http/lossless.js';
import { RATE_LIMIT_HEADERS, RATE_LIMIT_NAMES, rateLimitLabel, rateLimitValue } from '../http/rate-limit-headers.js';
import { defineCheck, finding, observation, show, type Check } from './check.js';
import { causeText, markersIn, type Cause } from './cause.js';
import { schemaCauses, type FieldCause } from './field-causes.js';
import { documentedStatuses, exactId, isObject, jsonOf, opLabel, opSpec, statusOf } from './facts.js';
import {
  hasBearerChallenge,
  isRetryAfter,
  mediaType,
  parseDeprecation,
  parseHttpDate,
  parseIntegerHeader,
  responseDate,
} from './headers.js';
import { readHeader, type HeaderRead } from '../http/header-read.js';
import { requestOutsideSpec } from './tolerance.js';

export interface ResponseEvidence {
  readonly exchange: Exchange;
  /** Limits of the key's plan when known (enterprise: as configured); null when unknown. */
  readonly plan: PlanLimits | null;
}

/** Allowed clock difference between the target and the reference time, seconds. */
export const RESET_SKEW_S = 5;
/** The longest rate-limit window of the spec: a day. */
export const LONGEST_WINDOW_S = 86_400;

type SchemaName = 'Pet' | 'Pets' | 'Error';
const schemaClause: Record<SchemaName, string> = { Pet: '2-pet-schema', Pets: '2-pets-array', Error: '2-error-schema' };

/**
 * Which component schema each documented JSON response carries, found by comparing the resolved schemas; by operation,
 * then status (asked for on every exchange).
 */
const responseSchemaName = new Map<OperationId, Map<number, SchemaName>>();
for (const op of contract.operations.values()) {
  const byStatus = new Map<number, SchemaName>();
  for (const r of op.responses.values()) {
    if (!r.schema) continue;
    const text = JSON.stringify(r.schema);
    for (const name of ['Pet', 'Pets', 'Error'] as const) {
      if (JSON.stringify(contract.schemas[name]) === text) byStatus.set(r.status, name);
    }
  }
  responseSchemaName.set(op.id, byStatus);
}

export function schemaNameOf(op: OperationId | null, status: number | null): SchemaName | null {
  return op && status !== null ? (responseSchemaName.get(op)?.get(status) ?? null) : null;
}

/** The clauses a body of this schema bears on: its schema's, and the PetStatus enum where a Pet is. */
const bodyClauses = (name: SchemaName): readonly string[] =>
  name === 'Error' ? [schemaClause.Error] : [schemaClause[name], '2-petstatus-enum'];

/**
 * The operations where body-schema can judge a clause: those documenting a JSON answer whose schema bears on it (one
 * no name fits bears on every clause), derived from the contract: 2-pets-array only where Pets is documented.
 */
const operationsOfClause = new Map<string, readonly OperationId[]>();
for (const op of contract.operations.values()) {
  for (const r of op.responses.values()) {
    if (!r.schema || r.status === 429) continue;
    const name = responseSchemaName.get(op.id)?.get(r.status);
    for (const clause of name ? bodyClauses(name) : [...Object.values(schemaClause), '2-petstatus-enum']) {
      const ops = operationsOfClause.get(clause) ?? [];
      if (!ops.includes(op.id)) operationsOfClause.set(clause, [...ops, op.id]);
    }
  }
}

/** The operations the contract marks deprecated: the only ones whose deprecation headers are recorded. */
const deprecatedOperations: readonly OperationId[] = [...contract.operations.values()]
  .filter((op) => op.deprecated)
  .map((op) => op.id);

const isDeprecated = (op: OperationId | null): boolean => op !== null && deprecatedOperations.includes(op);

const statusList = (op: OperationId | null) => documentedStatuses(op).join(', ');

/** A documented status with a JSON body the spec defines (429's body format is a gap: not here). */
function jsonBodyDocumented(ex: Exchange): boolean {
  const status = statusOf(ex);
  return ex.operation !== null && status !== null && status !== 429 && hasResponseSchema(ex.operation, status);
}

function describeHeader(h: HeaderRead): string {
  if (h.kind === 'absent') return 'absent';
  if (h.kind === 'conflict') return `repeated with different values ${show(h.values.join(' | '), 80)}`;
  return show(h.value, 80);
}

/** A header read as received, for a cause: its value, its values joined when repeated, null when absent. */
const headerValue = (h: HeaderRead): string | null =>
  h.kind === 'absent' ? null : h.kind === 'conflict' ? h.values.join(' | ') : h.value;

/**
 * Where a message says it: `on ${status} for ${operation}`, and which of the headers read came repeated with
 * different values (their causes show the values joined by ' | ', not that they were repeated).
 */
function onAnswer(ex: Exchange, read: readonly (readonly [string, HeaderRead])[] = []): string {
  const repeated = read.filter(([, h]) => h.kind === 'conflict').map(([name]) => name);
  const note = repeated.length ? ` (${repeated.join(', ')} repeated with different values)` : '';
  return `on ${statusOf(ex)} for ${opLabel(ex)}${note}`;
}

/** A header cause: missing when absent, else `problem` with the value received. */
const headerCause = (name: string, h: HeaderRead, problem: 'invalid' | 'wrong' = 'invalid'): Cause => ({
  kind: 'header',
  name,
  problem: h.kind === 'absent' ? 'missing' : problem,
  value: headerValue(h),
});

export const statusDocumented: Check<ResponseEvidence, 'status-documented'> = defineCheck({
  id: 'status-documented',
  clauses: ['4-documented-status'],
  levels: ['violation'],
  causes: ['status'],
  // Which request provoked it tells defects apart: a 500 for a null name is not the 500 for a string categoryId.
  signature: 'case',
  area: 'response',
  title: 'The status is one the operation documents (429 everywhere).',
  // A 5xx is no-5xx's, a 4xx to a request the spec does not define a gap: neither proves the documented statuses.
  appliesTo: {
    what: 'answers below 500 to requests the spec defines',
    test: ({ exchange: ex }) => {
      const status = statusOf(ex);
      return status !== null && ex.operation !== null && status < 500 && !(status >= 400 && requestOutsideSpec(ex));
    },
  },
  run: ({ exchange: ex }) => {
    const status = statusOf(ex);
    if (status === null || ex.operation === null) return [];
    // A membership test on every exchange: the sorted list is made only for a finding's message.
    if (opSpec(ex.operation)?.responses.has(status)) return [];
    // 5xx belongs to no-5xx; a 4xx to a request the spec does not define is a gap, not a violation.
    if (status >= 500) return [];
    if (status >= 400 && status < 500 && requestOutsideSpec(ex)) return [];
    return [
      finding(
        statusDocumented,
        ex,
        { on: `for ${opLabel(ex)}`, because: `the spec documents ${statusList(ex.operation)}` },
        {
          expected: statusList(ex.operation),
          actual: String(status),
          causes: [{ kind: 'status', status, expected: documentedStatuses(ex.operation) }],
        },
      ),
    ];
  },
});

export const no5xx: Check<ResponseEvidence, 'no-5xx'> = defineCheck({
  id: 'no-5xx',
  clauses: ['7-no-5xx'],
  levels: ['violation'],
  causes: ['crash'],
  signature: 'case',
  area: 'response',
  title: 'The target never answers with a 5xx.',
  appliesTo: { what: 'HTTP answers', test: ({ exchange: ex }) => statusOf(ex) !== null },
  run: ({ exchange: ex }) => {
    const status = statusOf(ex);
    if (status === null || status < 500 || status > 599) return [];
    const documented = ex.operation ? statusList(ex.operation) : '200, 201, 400, 401, 404, 429';
    return [
      finding(
        no5xx,
        ex,
        { on: `for ${opLabel(ex)}`, because: `the spec documents no 5xx (${documented})` },
        {
          expected: documented,
          actual: String(status),
          causes: [{ kind: 'crash', status }],
        },
      ),
    ];
  },
});

/** Codes of a connection the target dropped while it answered (a crash), not of one it never answered (refused, timed out). */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** A dropped connection is a crash like a 5xx (one defect with it, for one family of input); else no answer at all. */
const transportCause = (code: string): Cause =>
  DROPPED.has(code) ? { kind: 'crash', status: null, code } : { kind: 'transport', code };

export const transportOk: Check<ResponseEvidence, 'transport-ok'> = defineCheck({
  id: 'transport-ok',
  clauses: ['7-no-5xx'],
  levels: ['violation'],
  causes: ['transport', 'crash'],
  signature: 'case',
  area: 'response',
  title: 'The target answers with HTTP: no reset, timeout, refusal or invalid HTTP.',
  appliesTo: { what: 'requests sent', test: () => true },
  run: ({ exchange: ex }) => {
    if (!ex.error && ex.response) return [];
    // The cause names the code; the client's own words for it are said after the operation.
    const what = ex.error ? `: ${String(ex.error.message).replace(/\s+/g, ' ').slice(0, 160)}` : '';
    const documented = ex.operation ? statusList(ex.operation) : 'an HTTP status';
    return [
      finding(
        transportOk,
        ex,
        { on: `for ${opLabel(ex)}${what}`, because: `the spec documents ${documented}` },
        {
          expected: documented,
          actual: ex.error?.code ?? 'no response',
          causes: [transportCause(ex.error?.code ?? 'no response')],
        },
      ),
    ];
  },
});

export const contentTypeJson: Check<ResponseEvidence, 'content-type-json'> = defineCheck({
  id: 'content-type-json',
  clauses: ['1-json-media-type'],
  levels: ['violation'],
  causes: ['media-type'],
  area: 'response',
  title: 'A documented JSON response has Content-Type application/json (parameters allowed).',
  appliesTo: { what: 'documented JSON answers', test: ({ exchange: ex }) => jsonBodyDocumented(ex) },
  run: ({ exchange: ex }) => {
    if (!jsonBodyDocumented(ex)) return [];
    const h = readHeader(ex, 'content-type');
    if (h.kind === 'value' && mediaType(h.value) === 'application/json') return [];
    return [
      finding(
        contentTypeJson,
        ex,
        { lead: 'received', on: onAnswer(ex, [['Content-Type', h]]), because: 'the spec documents application/json' },
        {
          expected: 'application/json',
          actual: h.kind === 'value' ? h.value : describeHeader(h),
          causes: [{ kind: 'media-type', received: headerValue(h), expected: 'application/json' }],
        },
      ),
    ];
  },
});

export const jsonParses: Check<ResponseEvidence, 'json-parses'> = defineCheck({
  id: 'json-parses',
  clauses: ['1-json-media-type'],
  levels: ['violation'],
  causes: ['media-type'],
  area: 'response',
  title: 'The body of a documented JSON response parses as JSON.',
  appliesTo: { what: 'documented JSON answers', test: ({ exchange: ex }) => jsonBodyDocumented(ex) },
  run: ({ exchange: ex }) => {
    if (!jsonBodyDocumented(ex) || ex.response!.json !== undefined) return [];
    const why = ex.response!.jsonError ?? 'not JSON';
    return [
      finding(
        jsonParses,
        ex,
        { lead: 'received', on: `${onAnswer(ex)} (${why.slice(0, 120)})`, because: 'the spec documents a JSON body' },
        {
          expected: 'a JSON body',
          actual: show(ex.response!.bodyText ?? '', 120),
          causes: [
            {
              kind: 'media-type',
              received: headerValue(readHeader(ex, 'content-type')),
              expected: 'application/json',
              body: 'not-json',
            },
          ],
        },
      ),
    ];
  },
});

export const bodySchema: Check<ResponseEvidence, 'body-schema'> = defineCheck({
  id: 'body-schema',
  clauses: ['2-pet-schema', '2-pets-array', '2-error-schema'],
  covers: ['2-petstatus-enum'],
  levels: ['violation'],
  causes: ['field'],
  area: 'response',
  title: 'The body matches the schema documented for the operation and status (Pet, Pets or Error).',
  // Each body bears on the schema of its status only: a 401's Error proves nothing of the Pet schema or its enum.
  appliesTo: {
    what: 'documented JSON answers that parse',
    test: ({ exchange: ex }) => {
      if (!jsonBodyDocumented(ex) || jsonOf(ex) === undefined) return false;
      const name = schemaNameOf(ex.operation, statusOf(ex));
      return name ? bodyClauses(name) : true;
    },
  },
  operations: (clause) => operationsOfClause.get(clause) ?? [],
  run: ({ exchange: ex }) => {
    const json = jsonOf(ex);
    if (!jsonBodyDocumented(ex) || json === undefined) return [];
    const status = statusOf(ex)!;
    const errors = validateResponseBody(ex.operation!, status, plain(json));
    if (errors.length === 0) return [];
    const name = schemaNameOf(ex.operation, status);
    const clause = name ? schemaClause[name] : bodySchema.clauses[0];
    // One cause per failing path, from the body as received (exact digits); the message says the first ones.
    const causes = schemaCauses(name ?? 'body', json, errors);
    return [
      finding(
        bodySchema,
        ex,
        {
          lead: `received a body that is not ${name ?? 'the documented schema'} ${onAnswer(ex)}:`,
          because: `the spec documents ${name ?? 'a schema'} for ${status}`,
        },
        {
          expected: name ?? 'documented schema',
          clause,
          actual: show(json, 200),
          causes,
        },
      ),
    ];
  },
});

/** The Pet objects of a Pet or Pets body (non-objects are the schema's business). */
function petsOf(ex: Exchange): Record<string, unknown>[] {
  const name = schemaNameOf(ex.operation, statusOf(ex));
  const json = jsonOf(ex);
  if (name === 'Pet') return isObject(json) ? [json] : [];
  if (name === 'Pets') return Array.isArray(json) ? json.filter(isObject) : [];
  return [];
}

export const int64Exact: Check<ResponseEvidence, 'int64-exact'> = defineCheck({
  id: 'int64-exact',
  clauses: ['2-int64'],
  levels: ['violation'],
  causes: ['field'],
  area: 'response',
  title: 'Every id and categoryId of a Pet is an integer within int64, judged on its exact digits.',
  appliesTo: {
    what: 'answers carrying a Pet',
    test: ({ exchange: ex }) => statusOf(ex) !== 429 && petsOf(ex).length > 0,
  },
  run: ({ exchange: ex }) => {
    if (statusOf(ex) === 429) return [];
    const causes: FieldCause[] = [];
    const json = jsonOf(ex);
    const pets = petsOf(ex);
    for (const pet of pets) {
      // Its pointer in the body: the Pets array's element, or the Pet itself.
      const at = Array.isArray(json) ? `/${json.indexOf(pet)}` : '';
      for (const field of ['id', 'categoryId'] as const) {
        const v = pet[field];
        // A non-number (string, null, missing) fails the schema already: do not report it twice.
        if (!isLosslessNumber(v) && typeof v !== 'number') continue;
        if (isInt64(v)) continue;
        const markers = markersIn(pet);
        causes.push({
          kind: 'field',
          schema: 'Pet',
          path: `${at}/${field}`,
          field,
          problem: 'beyond-int64',
          value: (digits(v) ?? '?').slice(0, 60),
          ...(markers.length > 0 && { markers }),
        });
      }
    }
    if (causes.length === 0) return [];
    return [
      finding(
        int64Exact,
        ex,
        { lead: 'received', on: onAnswer(ex), because: 'the spec documents id and categoryId as int64 integers' },
        {
          expected: 'integer in [-9223372036854775808, 9223372036854775807]',
          actual: causes.map(causeText).join(', ').slice(0, 300),
          causes,
        },
      ),
    ];
  },
});

/**
 * Whether an Error body is complete: code and message strings and an integer status (its value aside). Section 7 rule 1
 * binds every Error body; what rule 3 leaves open on a 429 is whether its body is an Error at all.
 */
function completeError(json: Record<string, unknown>): boolean {
  return typeof json.code === 'string' && typeof json.message === 'string' && exactId(json.status) !== null;
}

export const errorStatusMatches: Check<ResponseEvidence, 'error-status-matches'> = defineCheck({
  id: 'error-status-matches',
  clauses: ['7-rule-1-status-matches'],
  // Rule 1 applies to every Error body, a 429's included: a complete Error (code, message and an integer status) whose
  // status differs is a violation on a 429 too. What rule 3 leaves open is whether a 429 carries an Error at all, so
  // a 429 body that is JSON but no complete Error (a gateway's own shape with a status member) is only a warning.
  levels: ['violation', 'warning'],
  causes: ['field'],
  area: 'response',
  title:
    'The status field of an Error body equals the HTTP status (on a 429 whose body is not a complete Error, a warning).',
  appliesTo: {
    what: '4xx answers with a JSON object body',
    test: ({ exchange: ex }) => {
      const status = statusOf(ex);
      return status !== null && status >= 400 && status <= 499 && isObject(jsonOf(ex));
    },
  },
  run: ({ exchange: ex }) => {
    const status = statusOf(ex);
    const json = jsonOf(ex);
    if (status === null || status < 400 || status > 499 || !isObject(json)) return [];
    const field = json.status;
    // Only a numeric status is judged here; a missing or quoted one is the schema's business.
    if (!isLosslessNumber(field) && typeof field !== 'number') return [];
    const n = exactId(field);
    if (n === BigInt(status)) return [];
    const shown = (digits(field) ?? '?').slice(0, 40);
    const lenient = status === 429 && !completeError(json);
    return [
      finding(
        errorStatusMatches,
        ex,
        {
          lead: `received an Error ${onAnswer(ex)}:`,
          because: `the spec documents an Error's status equal to the HTTP status${lenient ? '; the 429 body format is not shown and this body is no complete Error' : ''}`,
        },
        {
          expected: String(status),
          actual: shown,
          level: lenient ? 'warning' : 'violation',
          causes: [
            {
              kind: 'field',
              schema: 'Error',
              path: '/status',
              field: 'status',
              problem: 'value',
              value: shown,
              rule: `must equal the HTTP status ${status}`,
            },
          ],
        },
      ),
    ];
  },
});

/** Rate-limit headers are the spec's for API responses; responses to unknown paths are not judged. */
function rateLimitApplies(ex: Exchange): boolean {
  return statusOf(ex) !== null && ex.operation !== null;
}

export const rateLimitHeadersPresent: Check<ResponseEvidence, 'rate-limit-headers-present'> = defineCheck({
  id: 'rate-limit-headers-present',
  clauses: ['8-headers-every-response'],
  levels: ['violation', 'warning'],
  causes: ['header'],
  area: 'response',
  title: 'X-RateLimit-Limit, -Remaining and -Reset are present on every response, each a non-negative integer.',
  appliesTo: { what: 'answers to the API operations', test: ({ exchange: ex }) => rateLimitApplies(ex) },
  run: ({ exchange: ex }) => {
    if (!rateLimitApplies(ex)) return [];
    // Each header single and all digits (rateLimitValue reads them as the loop below judges them): nothing to say.
    if (RATE_LIMIT_NAMES.every((name) => rateLimitValue(ex, name) !== null)) return [];
    const problems: string[] = [];
    const causes: Cause[] = [];
    const read: [string, HeaderRead][] = [];
    for (const name of RATE_LIMIT_NAMES) {
      const h = readHeader(ex, RATE_LIMIT_HEADERS[name]);
      if (h.kind === 'absent') problems.push(`no ${rateLimitLabel(name)}`);
      else if (h.kind === 'conflict' || parseIntegerHeader(h.value) === null)
        problems.push(`${rateLimitLabel(name)} ${describeHeader(h)}`);
      else continue;
      causes.push(headerCause(rateLimitLabel(name), h));
      read.push([rateLimitLabel(name), h]);
    }
    if (causes.length === 0) return [];
    // A request with no valid key has no plan to count against (gap-8-401-rate-limited): a limiter placed after
    // authentication sends no headers there. Still worth saying, as the spec lists them on every response.
    const keyless =
      (ex.keyPlan === 'none' || ex.keyPlan === 'invalid') &&
      causes.every((c) => c.kind === 'header' && c.problem === 'missing');
    return [
      finding(
        rateLimitHeadersPresent,
        ex,
        {
          on: onAnswer(ex, read),
          because: 'the spec documents X-RateLimit-Limit, -Remaining and -Reset (integers) on every response',
        },
        {
          expected: 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset as integers',
          actual: problems.join(', '),
          level: keyless ? 'warning' : 'violation',
          causes,
        },
      ),
    ];
  },
});

export const rateLimitRemainingRange: Check<ResponseEvidence, 'rate-limit-remaining-range'> = defineCheck({
  id: 'rate-limit-remaining-range',
  clauses: ['8-header-remaining'],
  levels: ['violation'],
  causes: ['header'],
  area: 'response',
  title: '0 <= X-RateLimit-Remaining <= X-RateLimit-Limit.',
  appliesTo: {
    what: 'answers carrying X-RateLimit-Limit and -Remaining',
    test: ({ exchange: ex }) =>
      rateLimitApplies(ex) && rateLimitValue(ex, 'limit') !== null && rateLimitValue(ex, 'remaining') !== null,
  },
  run: ({ exchange: ex }) => {
    if (!rateLimitApplies(ex)) return [];
    const limit = rateLimitValue(ex, 'limit');
    const remaining = rateLimitValue(ex, 'remaining');
    if (limit === null || remaining === null || remaining <= limit) return [];
    return [
      finding(
        rateLimitRemainingRange,
        ex,
        {
          on: onAnswer(ex),
          because: `the spec documents Remaining as what is left of Limit: 0 to ${limit}`,
        },
        {
          expected: `0..${limit}`,
          actual: String(remaining),
          // Remaining is judged against the Limit received: a wrong Limit's consequence shares its value.
          causes: [
            {
              kind: 'header',
              name: rateLimitLabel('remaining'),
              problem: 'invalid',
              value: String(remaining),
              limit: String(limit),
            },
          ],
        },
      ),
    ];
  },
});

export const rateLimitResetEpoch: Check<ResponseEvidence, 'rate-limit-reset-epoch'> = defineCheck({
  id: 'rate-limit-reset-epoch',
  clauses: ['8-header-reset'],
  levels: ['violation'],
  causes: ['header'],
  area: 'response',
  title: 'X-RateLimit-Reset is Unix epoch seconds, not in the past and at most a day ahead when it was answered.',
  appliesTo: {
    what: 'answers carrying X-RateLimit-Reset',
    test: ({ exchange: ex }) => rateLimitApplies(ex) && rateLimitValue(ex, 'reset') !== null,
  },
  run: ({ exchange: ex }) => {
    if (!rateLimitApplies(ex)) return [];
    const reset = rateLimitValue(ex, 'reset');
    if (reset === null) return [];
    // Judged at the moment of the answer, never by a later clock (a run's end, a replay): the target's Date when it
    // sent one; else this machine's clock around the exchange, answered after its request started and before its
    // body was read (a stalled event loop only widens that span).
    const date = responseDate(ex);
    const earliest = date ?? ex.startedAt;
    const latest = date ?? ex.startedAt + ex.durationMs;
    if (!Number.isFinite(earliest) || !Number.isFinite(latest)) return [];
    const from = Math.floor(earliest / 1000);
    const to = Math.floor(latest / 1000);
    const lo = BigInt(from - RESET_SKEW_S);
    const hi = BigInt(to + LONGEST_WINDOW_S + RESET_SKEW_S);
    if (reset >= lo && reset <= hi) return [];
    const ref = reset < lo ? from : to;
    const refName = date !== null ? 'the Date header' : 'the local clock when it was answered';
    let why: string;
    if (reset > hi && reset >= BigInt(ref) * 100n) why = 'looks like milliseconds';
    else if (reset < lo && reset <= BigInt(LONGEST_WINDOW_S) * 400n)
      why = 'looks like seconds remaining, not a timestamp';
    else if (reset < lo) why = `is ${BigInt(ref) - reset} s in the past`;
    else why = `is ${reset - BigInt(ref)} s ahead, beyond the longest window (a day)`;
    return [
      finding(
        rateLimitResetEpoch,
        ex,
        {
          on: onAnswer(ex),
          because: `the spec documents a Unix timestamp in seconds: this one ${why} (reference ${ref}, ${refName})`,
        },
        {
          expected: `epoch seconds in [${lo}, ${hi}]`,
          actual: String(reset),
          causes: [{ kind: 'header', name: rateLimitLabel('reset'), problem: 'invalid', value: String(reset) }],
        },
      ),
    ];
  },
});

export const rateLimitLimitPlan: Check<ResponseEvidence, 'rate-limit-limit-plan'> = defineCheck({
  id: 'rate-limit-limit-plan',
  clauses: ['8-header-limit'],
  levels: ['violation'],
  causes: ['header'],
  area: 'response',
  title: "X-RateLimit-Limit is one of the key's plan limits (per minute or per day).",
  appliesTo: {
    what: 'answers to a key of known plan carrying X-RateLimit-Limit (not 401s)',
    test: ({ exchange: ex, plan }) =>
      plan !== null &&
      rateLimitApplies(ex) &&
      ex.keyPlan !== 'none' &&
      ex.keyPlan !== 'invalid' &&
      statusOf(ex) !== 401 &&
      rateLimitValue(ex, 'limit') !== null,
  },
  run: ({ exchange: ex, plan }) => {
    // Requests without a valid key have no plan (gap-8-401-rate-limited); nor has one the target did not recognise
    // (a 401): judging it against the plan would echo the 401 (auth-valid-accepted judges that).
    if (!plan || !rateLimitApplies(ex) || ex.keyPlan === 'none' || ex.keyPlan === 'invalid') return [];
    if (statusOf(ex) === 401) return [];
    const limit = rateLimitValue(ex, 'limit');
    if (limit === null) return [];
    const allowed = [plan.requestsPerMinute, plan.requestsPerDay].filter((n) => Number.isSafeInteger(n));
    if (allowed.length === 0 || allowed.some((n) => BigInt(n) === limit)) return [];
    return [
      finding(
        rateLimitLimitPlan,
        ex,
        {
          on: `for a ${ex.keyPlan} key on ${opLabel(ex)}`,
          because: `the spec documents ${allowed.join(' per minute or ')} per day for that plan`,
        },
        {
          expected: allowed.join(' or '),
          actual: String(limit),
          causes: [{ kind: 'header', name: rateLimitLabel('limit'), problem: 'wrong', value: String(limit) }],
        },
      ),
    ];
  },
});

export const retryAfterValid: Check<ResponseEvidence, 'retry-after-valid'> = defineCheck({
  id: 'retry-after-valid',
  clauses: ['7-429-retry-after'],
  covers: ['gap-8-retry-after-format'],
  levels: ['violation'],
  causes: ['header'],
  area: 'response',
  title: 'A 429 carries Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3).',
  appliesTo: { what: '429 answers', test: ({ exchange: ex }) => statusOf(ex) === 429 },
  run: ({ exchange: ex }) => {
    if (statusOf(ex) !== 429) return [];
    const h = readHeader(ex, 'retry-after');
    if (h.kind === 'value' && isRetryAfter(h.value)) return [];
    return [
      finding(
        retryAfterValid,
        ex,
        {
          on: onAnswer(ex, [['Retry-After', h]]),
          because: 'the spec documents Retry-After on a 429 (delta-seconds or an HTTP-date)',
        },
        {
          expected: 'delta-seconds or HTTP-date',
          actual: h.kind === 'value' ? h.value : describeHeader(h),
          causes: [headerCause('Retry-After', h)],
        },
      ),
    ];
  },
});

export const errorBody429Json: Check<ResponseEvidence, 'error-body-429-json'> = defineCheck({
  id: 'error-body-429-json',
  clauses: ['1-json-media-type'],
  levels: ['violation'],
  causes: ['media-type'],
  area: 'response',
  title:
    'A 429 body is JSON in application/json: every body is JSON (section 1), and 429 is among the errors that carry an Error (section 7).',
  appliesTo: { what: '429 answers', test: ({ exchange: ex }) => statusOf(ex) === 429 },
  run: ({ exchange: ex }) => {
    if (statusOf(ex) !== 429) return [];
    const h = readHeader(ex, 'content-type');
    let cause: Cause | null = null;
    if (h.kind !== 'value' || mediaType(h.value) !== 'application/json')
      cause = { kind: 'media-type', received: headerValue(h), expected: 'application/json' };
    else if (jsonOf(ex) === undefined)
      cause = { kind: 'media-type', received: h.value, expected: 'application/json', body: 'not-json' };
    if (cause === null) return [];
    return [
      finding(
        errorBody429Json,
        ex,
        {
          lead: 'received',
          on: onAnswer(ex, [['Content-Type', h]]),
          because: 'the spec documents JSON bodies (section 1) and an Error on a 429 (section 7)',
        },
        {
          expected: 'a JSON body in application/json',
          actual: show(ex.response?.bodyText ?? '', 120),
          causes: [cause],
        },
      ),
    ];
  },
});

export const errorBody429: Check<ResponseEvidence, 'error-body-429'> = defineCheck({
  id: 'error-body-429',
  clauses: ['7-error-media-type'],
  covers: ['gap-7-rule-3-429-body'],
  levels: ['warning'],
  causes: ['field'],
  area: 'response',
  title: "A 429's JSON body should be an Error (section 7 rule 3 leaves its format open: a warning only).",
  appliesTo: {
    what: '429 answers with a JSON body',
    test: ({ exchange: ex }) => statusOf(ex) === 429 && jsonOf(ex) !== undefined,
  },
  run: ({ exchange: ex }) => {
    if (statusOf(ex) !== 429) return [];
    // A body that is not JSON at all is error-body-429-json's violation.
    const json = jsonOf(ex);
    if (json === undefined) return [];
    const errors = validateSchema('Error', plain(json));
    if (errors.length === 0) return [];
    const causes = schemaCauses('Error', json, errors);
    return [
      finding(
        errorBody429,
        ex,
        // Its causes, as body-schema says them: grouping reads the causes (an Error lacking several members is one defect).
        {
          lead: `received JSON that is not an Error ${onAnswer(ex)}:`,
          because: 'the spec shows no 429 body format; errors carry an Error in application/json',
        },
        { expected: 'an Error', actual: show(ex.response?.bodyText ?? '', 120), causes },
      ),
    ];
  },
});

export const wwwAuthenticate: Check<ResponseEvidence, 'www-authenticate'> = defineCheck({
  id: 'www-authenticate',
  clauses: ['5-www-authenticate'],
  levels: ['warning'],
  causes: ['header'],
  area: 'response',
  title: 'A 401 carries WWW-Authenticate with a Bearer challenge.',
  appliesTo: { what: '401 answers', test: ({ exchange: ex }) => statusOf(ex) === 401 },
  run: ({ exchange: ex }) => {
    if (statusOf(ex) !== 401) return [];
    const values = readHeader(ex, 'www-authenticate');
    // Several challenges may come as repeated headers: any Bearer one will do.
    const all = values.kind === 'value' ? [values.value] : values.kind === 'conflict' ? [...values.values] : [];
    if (all.some(hasBearerChallenge)) return [];
    return [
      finding(
        wwwAuthenticate,
        ex,
        {
          on: onAnswer(ex, [['WWW-Authenticate', values]]),
          because: 'RFC 9110 §11.6.1 and RFC 6750 want a Bearer challenge on a 401',
        },
        {
          expected: 'Bearer challenge',
          actual: all.join(', ') || 'absent',
          causes: [headerCause('WWW-Authenticate', values)],
        },
      ),
    ];
  },
});

export const deprecationHeaders: Check<ResponseEvidence, 'deprecation-headers'> = defineCheck({
  id: 'deprecation-headers',
  clauses: ['gap-9-deprecation-headers'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'response',
  title: 'Records the Deprecation, Sunset and Link headers the deprecated getPet answers with.',
  appliesTo: {
    what: 'answers below 500 to a deprecated operation, getPet',
    test: ({ exchange: ex }) => {
      const status = statusOf(ex);
      return isDeprecated(ex.operation) && status !== null && status >= 200 && status <= 499;
    },
  },
  // Only a deprecated operation has deprecation headers to record.
  operations: deprecatedOperations,
  run: ({ exchange: ex }) => {
    const status = statusOf(ex);
    if (!isDeprecated(ex.operation) || status === null || status < 200 || status > 499) return [];
    const dep = readHeader(ex, 'deprecation');
    const sunset = readHeader(ex, 'sunset');
    const link = readHeader(ex, 'link');
    const parts: string[] = [];
    if (dep.kind !== 'absent') {
      const ok = dep.kind === 'value' && parseDeprecation(dep.value) !== null;
      parts.push(`Deprecation ${describeHeader(dep)}${ok ? '' : ' (not an RFC 9745 @<seconds> date)'}`);
    }
    if (sunset.kind !== 'absent') {
      const ok = sunset.kind === 'value' && parseHttpDate(sunset.value) !== null;
      parts.push(`Sunset ${describeHeader(sunset)}${ok ? '' : ' (not an HTTP-date)'}`);
    }
    if (
      link.kind !== 'absent' &&
      /rel\s*=\s*"?[^"]*\b(deprecation|sunset)\b/i.test(link.kind === 'value' ? link.value : link.values.join(','))
    ) {
      parts.push(`Link ${describeHeader(link)}`);
    }
    const message = parts.length
      ? `getPet ${status} answered with ${parts.join(', ')}\nthe spec shows no deprecation response headers (getPet is deprecated, removal 2030-12-05)`
      : `getPet ${status} answered with no Deprecation, Sunset or deprecation Link header\nthe spec shows no deprecation response headers (getPet is deprecated, removal 2030-12-05)`;
    const answer = parts.join(', ') || 'none';
    return [
      observation(deprecationHeaders, ex, message, {
        actual: answer,
        causes: [{ kind: 'gap', clause: deprecationHeaders.clause, answer }],
      }),
    ];
  },
});

/** The properties the Pet and Error schemas define, in their order (read once: every body is compared with them). */
const propertiesOf = {
  Pet: new Set(Object.keys((contract.schemas.Pet?.properties as object | undefined) ?? {})),
  Error: new Set(Object.keys((contract.schemas.Error?.properties as object | undefined) ?? {})),
} as const;

export const extraFields: Check<ResponseEvidence, 'extra-fields'> = defineCheck({
  id: 'extra-fields',
  clauses: ['gap-extra-fields'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'response',
  title: 'Records body properties beyond the Pet or Error schema.',
  appliesTo: { what: 'documented JSON answers', test: ({ exchange: ex }) => jsonBodyDocumented(ex) },
  run: ({ exchange: ex }) => {
    if (!jsonBodyDocumented(ex)) return [];
    const name = schemaNameOf(ex.operation, statusOf(ex));
    const json = jsonOf(ex);
    const schemaName = name === 'Error' ? 'Error' : 'Pet';
    const known = propertiesOf[schemaName];
    // Every body is looked at: no set is made unless an extra field turns up.
    const bodies: readonly unknown[] = name === 'Pets' ? (Array.isArray(json) ? json : []) : [json];
    let extra: Set<string> | null = null;
    for (const o of bodies) {
      if (!isObject(o)) continue;
      for (const k in o) {
        if (known.has(k)) continue;
        extra ??= new Set();
        if (extra.size < 50) extra.add(k);
      }
    }
    if (extra === null) return [];
    const list = [...extra]
      .sort()
      .map((k) => show(k, 40))
      .join(', ');
    return [
      observation(
        extraFields,
        ex,
        `${schemaName} bodies on ${statusOf(ex)} for ${opLabel(ex)} carry extra fields ${list}\nthe spec documents ${[...known].join(', ')} (extra fields are allowed)`,
        {
          expected: [...known].join(', '),
          actual: list,
          causes: [{ kind: 'gap', clause: extraFields.clause, answer: `extra fields ${list}` }],
        },
      ),
    ];
  },
});

export const responseCheckList = [
  statusDocumented,
  no5xx,
  transportOk,
  contentTypeJson,
  jsonParses,
  bodySchema,
  int64Exact,
  errorStatusMatches,
  rateLimitHeadersPresent,
  rateLimitRemainingRange,
  rateLimitResetEpoch,
  rateLimitLimitPlan,
  retryAfterValid,
  errorBody429Json,
  errorBody429,
  wwwAuthenticate,
  deprecationHeaders,
  extraFields,
];
