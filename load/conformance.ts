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

export class ConformanceTally {
  private responses = 0;
  private validated = 0;
  private bad = 0;
  private readonly byCheck: Record<string, number> = {};
  private readonly examples: ConformanceExample[] = [];
  private seen = 0;

  constructor(private readonly sampleEvery: number) {}

  /** Checks one response; returns whether it conformed. Never throws for what the target sent. */
  check(op: OperationId, status: number, rawHeaders: Record<string, string | string[] | undefined> | undefined, body: string): boolean {
    this.responses++;
    const problems: { checkId: string; clause: string; message: string }[] = [];
    const spec = operation(op);
    if (!spec.responses.has(status)) {
      problems.push({ checkId: 'status-documented', clause: '4-documented-status', message: `${status} is not documented for ${op} (documented: ${[...spec.responses.keys()].join(', ')})` });
    }
    if (status >= 500) problems.push({ checkId: 'no-5xx', clause: '7-no-5xx', message: `server error ${status}` });
    const headers = lowerHeaders(rawHeaders);
    const values: Record<string, number> = {};
    for (const name of contract.rateLimitHeaders) {
      const v = headers[name];
      if (v === undefined || !DIGITS.test(v.trim())) {
        problems.push({ checkId: 'rate-limit-headers-present', clause: '8-headers-every-response', message: v === undefined ? `${name} missing` : `${name} is not a non-negative integer: ${JSON.stringify(v.slice(0, 40))}` });
      } else values[name] = Number(v.trim());
    }
    const limit = values['x-ratelimit-limit'];
    const remaining = values['x-ratelimit-remaining'];
    if (limit !== undefined && remaining !== undefined && remaining > limit) {
      problems.push({ checkId: 'rate-limit-remaining-range', clause: '8-header-remaining', message: `X-RateLimit-Remaining ${remaining} > X-RateLimit-Limit ${limit}` });
    }
    if (status === 429) {
      const ra = headers['retry-after'];
      if (ra === undefined || !validRetryAfter(ra)) {
        problems.push({ checkId: 'retry-after-valid', clause: '7-429-retry-after', message: ra === undefined ? '429 without Retry-After' : `invalid Retry-After ${JSON.stringify(ra.slice(0, 40))}` });
      }
    }
    // 429 bodies are not sampled: their format is a gap in the spec (a warning elsewhere, never a violation).
    if (status !== 429 && hasResponseSchema(op, status) && this.seen++ % this.sampleEvery === 0) {
      this.validated++;
      let parsed: unknown;
      try {
        // JSON.parse gives the same view as lossless-json + plain() for schema validation (numbers as JS numbers);
        // the digit-exact int64 checks belong to the functional suites.
        parsed = JSON.parse(body);
      } catch {
        problems.push({ checkId: 'json-parses', clause: '1-json-media-type', message: `body is not JSON (${body.length} bytes)` });
      }
      if (parsed !== undefined) {
        const errors = validateResponseBody(op, status, parsed);
        if (errors.length > 0) {
          problems.push({ checkId: 'body-schema', clause: schemaClause(op, status), message: errors.slice(0, 3).map((e) => e.message).join('; ') });
        }
      }
    }
    if (problems.length === 0) return true;
    this.bad++;
    for (const p of problems) {
      this.byCheck[p.checkId] = (this.byCheck[p.checkId] ?? 0) + 1;
      if (this.examples.length < MAX_EXAMPLES) this.examples.push({ ...p, operation: op, status, message: p.message.slice(0, 300) });
    }
    return false;
  }

  summary(): ConformanceSummary {
    return { responsesChecked: this.responses, bodiesValidated: this.validated, nonConformant: this.bad, byCheck: { ...this.byCheck }, examples: [...this.examples] };
  }
}

function schemaClause(op: OperationId, status: number): string {
  if (status >= 400) return '2-error-schema';
  return op === 'listPets' ? '2-pets-array' : '2-pet-schema';
}
