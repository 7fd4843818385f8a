/**
 * Conformance under load, cheap enough for autocannon's synchronous onResponse hook: every response's status and
 * rate-limit headers are checked (check ids and clauses as in the check catalogue), and one body in `sampleEvery` is
 * parsed and validated with the spec's compiled validators. Counts, with a few examples, never the bodies themselves.
 */
import { contract, operation, type OperationId } from '../spec/contract.js';
import { hasResponseSchema, validateResponseBody } from '../spec/validators.js';
import type { ConformanceExample, ConformanceSummary } from './model.js';

const MAX_EXAMPLES = 10;
const DIGITS = /^\d+$/;

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

function validRetryAfter(value: string): boolean {
  if (DIGITS.test(value.trim())) return true;
  // HTTP-date (RFC 9110 §5.6.7): IMF-fixdate and the obsolete forms all carry a weekday name and a GMT zone.
  return /^[A-Za-z]{3,9}, .+ GMT$/.test(value.trim()) && !Number.isNaN(Date.parse(value));
}

/** What the hot path needs of one operation, computed once (the contract lookups build strings and arrays). */
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

// The headers read on every response: the rate-limit headers, then Retry-After. Only names of these lengths are
// lower-cased, so a response's other headers cost one length test each.
const WANTED: readonly string[] = [...contract.rateLimitHeaders, 'retry-after'];
const WANTED_INDEX = new Map(WANTED.map((name, i) => [name, i]));
const WANTED_LENGTHS = new Set(WANTED.map((name) => name.length));
const RETRY_AFTER = WANTED.length - 1;
const LIMIT = WANTED.indexOf('x-ratelimit-limit');
const REMAINING = WANTED.indexOf('x-ratelimit-remaining');

export class ConformanceTally {
  private responses = 0;
  private validated = 0;
  private bad = 0;
  private readonly byCheck: Record<string, number> = {};
  private readonly examples: ConformanceExample[] = [];
  private seen = 0;
  /** The wanted headers of the response being checked (same semantics as lowerHeaders), reused between calls. */
  private readonly values: (string | undefined)[] = WANTED.map(() => undefined);

  constructor(private readonly sampleEvery: number) {}

  /**
   * Checks one response; returns whether it conformed. Never throws for what the target sent. The conformant case
   * allocates nothing; a failure is re-examined by `explain`, which names every problem.
   */
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
    this.readHeaders(rawHeaders);
    if (
      status < 500 &&
      info.documented.has(status) &&
      this.headersConform(status) &&
      (!sampled || bodyConforms(op, status, body))
    )
      return true;
    return this.explain(op, status, sampled, body);
  }

  private readHeaders(raw: Record<string, string | string[] | undefined> | undefined): void {
    const v = this.values;
    for (let i = 0; i < v.length; i++) v[i] = undefined;
    if (!raw) return;
    for (const name in raw) {
      if (!WANTED_LENGTHS.has(name.length)) continue;
      const i = WANTED_INDEX.get(name) ?? WANTED_INDEX.get(name.toLowerCase());
      const value = raw[name];
      if (i === undefined || value === undefined) continue;
      const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : String(value);
      const prev = v[i];
      v[i] = prev === undefined ? text : `${prev}, ${text}`;
    }
  }

  private headersConform(status: number): boolean {
    const v = this.values;
    for (let i = 0; i < RETRY_AFTER; i++) {
      const text = v[i];
      if (text === undefined || !DIGITS.test(text.trim())) return false;
    }
    const limit = v[LIMIT];
    const remaining = v[REMAINING];
    if (limit !== undefined && remaining !== undefined && Number(remaining.trim()) > Number(limit.trim())) return false;
    if (status === 429) {
      const ra = v[RETRY_AFTER];
      if (ra === undefined || !validRetryAfter(ra)) return false;
    }
    return true;
  }

  /** The slow path: every problem of a response that failed the fast check, counted once, with examples. */
  private explain(op: OperationId, status: number, sampled: boolean, body: string): boolean {
    const problems: { checkId: string; clause: string; message: string }[] = [];
    const documented = infoOf(op).documented;
    if (!documented.has(status)) {
      problems.push({
        checkId: 'status-documented',
        clause: '4-documented-status',
        message: `${status} is not documented for ${op} (documented: ${[...documented].join(', ')})`,
      });
    }
    if (status >= 500) problems.push({ checkId: 'no-5xx', clause: '7-no-5xx', message: `server error ${status}` });
    const v = this.values;
    const numbers: (number | undefined)[] = [];
    for (let i = 0; i < RETRY_AFTER; i++) {
      const name = WANTED[i]!;
      const text = v[i];
      if (text === undefined || !DIGITS.test(text.trim())) {
        problems.push({
          checkId: 'rate-limit-headers-present',
          clause: '8-headers-every-response',
          message:
            text === undefined
              ? `${name} missing`
              : `${name} is not a non-negative integer: ${JSON.stringify(text.slice(0, 40))}`,
        });
      } else numbers[i] = Number(text.trim());
    }
    const limit = numbers[LIMIT];
    const remaining = numbers[REMAINING];
    if (limit !== undefined && remaining !== undefined && remaining > limit) {
      problems.push({
        checkId: 'rate-limit-remaining-range',
        clause: '8-header-remaining',
        message: `X-RateLimit-Remaining ${remaining} > X-RateLimit-Limit ${limit}`,
      });
    }
    if (status === 429) {
      const ra = v[RETRY_AFTER];
      if (ra === undefined || !validRetryAfter(ra)) {
        problems.push({
          checkId: 'retry-after-valid',
          clause: '7-429-retry-after',
          message:
            ra === undefined ? '429 without Retry-After' : `invalid Retry-After ${JSON.stringify(ra.slice(0, 40))}`,
        });
      }
    }
    if (sampled) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        problems.push({
          checkId: 'json-parses',
          clause: '1-json-media-type',
          message: `body is not JSON (${body.length} bytes)`,
        });
      }
      if (parsed !== undefined) {
        const errors = validateResponseBody(op, status, parsed);
        if (errors.length > 0) {
          problems.push({
            checkId: 'body-schema',
            clause: schemaClause(op, status),
            message: errors
              .slice(0, 3)
              .map((e) => e.message)
              .join('; '),
          });
        }
      }
    }
    if (problems.length === 0) return true;
    this.bad++;
    for (const p of problems) {
      this.byCheck[p.checkId] = (this.byCheck[p.checkId] ?? 0) + 1;
      if (this.examples.length < MAX_EXAMPLES)
        this.examples.push({ ...p, operation: op, status, message: p.message.slice(0, 300) });
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

/**
 * JSON.parse gives the same view as lossless-json + plain() for schema validation (numbers as JS numbers); the
 * digit-exact int64 checks belong to the functional suites.
 */
function bodyConforms(op: OperationId, status: number, body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  return validateResponseBody(op, status, parsed).length === 0;
}

function schemaClause(op: OperationId, status: number): string {
  if (status >= 400) return '2-error-schema';
  return op === 'listPets' ? '2-pets-array' : '2-pet-schema';
}
