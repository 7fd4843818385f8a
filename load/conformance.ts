/**
 * Conformance under load, cheap enough for autocannon's synchronous onResponse hook. Each response is judged by the
 * response checks of the catalogue (checks/response.ts, selected by id): the status and rate-limit header checks on
 * every response, and the body checks on one body in `sampleEvery`. Counts, with a few examples, never the bodies.
 *
 * Cost: most responses conform, so a fast path first tests a condition that implies every selected check passes
 * (documented status below 500, plain-digit rate-limit headers with Remaining ≤ Limit, delta-seconds Retry-After on a
 * 429) and allocates nothing. Whatever fails it, and every sampled body, is judged by the checks themselves: the
 * verdict is always theirs, and a test holds the fast path to that.
 */
import { type ResponseCheckId, responseChecksById } from '../checks/registry.js';
import type { ResponseEvidence } from '../checks/response.js';
import type { Exchange, RecordedRequest } from '../http/exchange.js';
import { parseLossless } from '../http/lossless.js';
import { contract, operation, type OperationId, type PlanName } from '../spec/contract.js';
import { hasResponseSchema } from '../spec/validators.js';
import type { ConformanceExample, ConformanceSummary } from './model.js';

const MAX_EXAMPLES = 10;

/** The response checks applied to every response under load, and those that read a body (sampled ones only). */
export const HEADER_CHECK_IDS = [
  'status-documented',
  'no-5xx',
  'rate-limit-headers-present',
  'rate-limit-remaining-range',
  'retry-after-valid',
] as const satisfies readonly ResponseCheckId[];
export const BODY_CHECK_IDS = ['json-parses', 'body-schema'] as const satisfies readonly ResponseCheckId[];
const headerChecks = responseChecksById(HEADER_CHECK_IDS);
const allChecks = responseChecksById([...HEADER_CHECK_IDS, ...BODY_CHECK_IDS]);

/** autocannon passes header names in the server's casing; repeated headers come as arrays. */
export function lowerHeaders(raw: Record<string, string | string[] | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[key] = out[key] === undefined ? text : `${out[key]}, ${text}`;
  }
  return out;
}

/** Headers as the HTTP client records them: names lower-cased, a header repeated (in any casing) as an array. */
function recordedHeaders(
  raw: Record<string, string | string[] | undefined> | undefined,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    const prev = out[key];
    const all = prev === undefined ? values : [...(Array.isArray(prev) ? prev : [prev]), ...values];
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/**
 * The request each operation stands for. The load mix only sends requests the spec defines (valid queries, a known
 * id, an ordinary NewPet), and the checks are told so: an undocumented 4xx to them is a violation.
 */
const standIn: Record<OperationId, RecordedRequest> = {
  listPets: { method: 'GET', url: '', path: '/pets', headers: {}, body: null },
  createPet: {
    method: 'POST',
    url: '',
    path: '/pets',
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode('{"name":"load","categoryId":1}'),
  },
  getPet: { method: 'GET', url: '', path: '/pets/1', headers: {}, body: null },
};
const NO_BYTES = new Uint8Array(0);

/** The exchange the checks read, from what autocannon hands a hook; the body is parsed only when it is judged. */
export function loadExchange(
  op: OperationId,
  status: number,
  rawHeaders: Record<string, string | string[] | undefined> | undefined,
  body: string | null,
  keyPlan: PlanName,
): Exchange {
  let json: unknown;
  let jsonError: string | null = null;
  if (body !== null) {
    try {
      json = body.length === 0 ? undefined : parseLossless(body);
      if (body.length === 0) jsonError = 'empty body';
    } catch (e) {
      jsonError = (e as Error).message;
    }
  }
  return {
    seq: 0,
    operation: op,
    keyPlan,
    request: standIn[op],
    response: {
      status,
      headers: recordedHeaders(rawHeaders),
      body: NO_BYTES,
      bodyText: body ?? '',
      truncated: false,
      json,
      jsonError,
    },
    error: null,
    startedAt: Date.now(),
    durationMs: 0,
  };
}

/** What the fast path needs of one operation, computed once. */
interface OperationInfo {
  readonly documented: ReadonlySet<number>;
  readonly withSchema: ReadonlySet<number>;
}

const operationInfo = new Map<OperationId, OperationInfo>();

function infoOf(op: OperationId): OperationInfo {
  let info = operationInfo.get(op);
  if (!info) {
    const documented = new Set(operation(op).responses.keys());
    info = { documented, withSchema: new Set([...documented].filter((s) => hasResponseSchema(op, s))) };
    operationInfo.set(op, info);
  }
  return info;
}

// The headers the fast path reads: the rate-limit headers, then Retry-After. Only names of these lengths are
// lower-cased, so a response's other headers cost one length test each.
const WANTED: readonly string[] = [...contract.rateLimitHeaders, 'retry-after'];
const WANTED_INDEX = new Map(WANTED.map((name, i) => [name, i]));
const WANTED_LENGTHS = new Set(WANTED.map((name) => name.length));
const RETRY_AFTER = WANTED.length - 1;
const LIMIT = WANTED.indexOf('x-ratelimit-limit');
const REMAINING = WANTED.indexOf('x-ratelimit-remaining');
/** Plain digits, short enough to compare as JS numbers exactly. */
const DIGITS = /^\d{1,15}$/;

export interface TallyOptions {
  /** The plan of the key the load uses (the checks read it only to tell a keyless request). */
  readonly keyPlan?: PlanName;
  /** Off: every response is judged by the checks (what the fast path is tested against). */
  readonly fastPath?: boolean;
}

export class ConformanceTally {
  private responses = 0;
  private validated = 0;
  private bad = 0;
  private readonly byCheck: Record<string, number> = {};
  private readonly examples: ConformanceExample[] = [];
  private seen = 0;
  /** The wanted headers of the response being checked, reused between calls. */
  private readonly values: (string | undefined)[] = WANTED.map(() => undefined);
  private readonly keyPlan: PlanName;
  private readonly fastPath: boolean;

  constructor(
    private readonly sampleEvery: number,
    options: TallyOptions = {},
  ) {
    this.keyPlan = options.keyPlan ?? 'free';
    this.fastPath = options.fastPath ?? true;
  }

  /** Checks one response; returns whether it conformed. Never throws for what the target sent. */
  check(
    op: OperationId,
    status: number,
    rawHeaders: Record<string, string | string[] | undefined> | undefined,
    body: string,
  ): boolean {
    this.responses++;
    const info = infoOf(op);
    // 429 bodies are not sampled: their format is a gap in the spec (a warning elsewhere, never a violation).
    const sampled = status !== 429 && info.withSchema.has(status) && this.seen++ % this.sampleEvery === 0;
    if (sampled) this.validated++;
    else if (this.fastPath && status < 500 && info.documented.has(status) && this.headersPlain(rawHeaders, status))
      return true;
    return this.judge(op, status, rawHeaders, sampled ? body : null);
  }

  /** Whether the rate-limit headers (and a 429's Retry-After) are in their plainest valid form; allocates nothing. */
  private headersPlain(raw: Record<string, string | string[] | undefined> | undefined, status: number): boolean {
    const v = this.values;
    for (let i = 0; i < v.length; i++) v[i] = undefined;
    if (!raw) return false;
    for (const name in raw) {
      if (!WANTED_LENGTHS.has(name.length)) continue;
      const i = WANTED_INDEX.get(name) ?? WANTED_INDEX.get(name.toLowerCase());
      if (i === undefined) continue;
      const value = raw[name];
      // Repeated (as an array or under two casings): the checks decide.
      if (typeof value !== 'string' || v[i] !== undefined) return false;
      v[i] = value;
    }
    for (let i = 0; i < RETRY_AFTER; i++) {
      const text = v[i];
      if (text === undefined || !DIGITS.test(text)) return false;
    }
    if (Number(v[REMAINING]) > Number(v[LIMIT])) return false;
    if (status === 429) {
      const ra = v[RETRY_AFTER];
      if (ra === undefined || !DIGITS.test(ra)) return false;
    }
    return true;
  }

  /** The checks' verdict; each failing check is counted once per response, with a few examples. */
  private judge(
    op: OperationId,
    status: number,
    rawHeaders: Record<string, string | string[] | undefined> | undefined,
    body: string | null,
  ): boolean {
    const ev: ResponseEvidence = {
      exchange: loadExchange(op, status, rawHeaders, body, this.keyPlan),
      plan: null,
    };
    const failing = new Map<string, { clause: string; message: string }>();
    for (const check of body === null ? headerChecks : allChecks) {
      for (const f of check.run(ev)) {
        if (f.level !== 'observation' && !failing.has(f.checkId))
          failing.set(f.checkId, { clause: f.clause, message: f.message.replaceAll('\n', ' — ') });
      }
    }
    if (failing.size === 0) return true;
    this.bad++;
    for (const [checkId, p] of failing) {
      this.byCheck[checkId] = (this.byCheck[checkId] ?? 0) + 1;
      if (this.examples.length < MAX_EXAMPLES)
        this.examples.push({ checkId, clause: p.clause, operation: op, status, message: p.message.slice(0, 300) });
    }
    return false;
  }

  summary(): ConformanceSummary {
    return {
      responsesChecked: this.responses,
      bodiesValidated: this.validated,
      nonConformant: this.bad,
      byCheck: { ...this.byCheck },
      examples: [...this.examples],
    };
  }
}
