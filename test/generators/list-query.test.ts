import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { invalidListQuery, validListQuery, type ListQuery } from '../../generators/list-query.js';
import { contract, operation, parameter } from '../../spec/contract.js';

const SEED = 777;
const ajv = new Ajv2020({ strict: true });
const params = operation('listPets').parameters.filter((p) => p.in === 'query');
const validators = new Map(params.map((p) => [p.name, ajv.compile(p.schema)]));

/** Whether the query string fits the declared parameters: each at most once, each value within its schema. */
function withinSchema(raw: string): boolean {
  const q = new URLSearchParams(raw);
  for (const name of new Set(q.keys())) {
    const values = q.getAll(name);
    const spec = params.find((p) => p.name === name);
    if (!spec || values.length !== 1) return false;
    const text = values[0]!;
    const value = spec.schema.type === 'integer' ? (/^-?(0|[1-9]\d*)$/.test(text) ? Number(text) : NaN) : text;
    if (!validators.get(name)!(value)) return false;
  }
  return params.every((p) => !p.required || q.has(p.name));
}

function typedFieldsMatch(q: ListQuery): void {
  const s = new URLSearchParams(q.raw);
  if (q.limit !== undefined) expect(Number(s.get('limit'))).toBe(q.limit);
  if (q.status !== undefined) expect(s.get('status')).toBe(q.status);
}

describe('validListQuery', () => {
  const queries = fc.sample(validListQuery(), { seed: SEED, numRuns: 800 });

  it('every query is within the parameter schemas and its typed fields match the raw text', () => {
    for (const q of queries) {
      expect(q.valid).toBe(true);
      expect(q.raw === '' || q.raw.startsWith('?')).toBe(true);
      expect(withinSchema(q.raw), q.raw).toBe(true);
      typedFieldsMatch(q);
    }
  });

  it('covers limit at minimum, default, maximum and absent, each status, and both parameter orders', () => {
    const limit = parameter('listPets', 'limit').schema;
    const limits = new Set(queries.map((q) => q.limit));
    for (const l of [limit.minimum, limit.default, limit.maximum, undefined])
      expect(limits.has(l as number | undefined), String(l)).toBe(true);
    const statuses = new Set(queries.map((q) => q.status));
    for (const s of [...contract.petStatuses, undefined]) expect(statuses.has(s), String(s)).toBe(true);
    expect(queries.some((q) => q.raw === '')).toBe(true);
    expect(queries.some((q) => /^\?limit=.*&status=/.test(q.raw))).toBe(true);
    expect(queries.some((q) => /^\?status=.*&limit=/.test(q.raw))).toBe(true);
  });
});

describe('invalidListQuery', () => {
  const queries = fc.sample(invalidListQuery(), { seed: SEED, numRuns: 800 });

  it('every query is outside the parameter schemas', () => {
    for (const q of queries) {
      expect(q.valid).toBe(false);
      expect(withinSchema(q.raw), `${q.kind}: ${q.raw}`).toBe(false);
      typedFieldsMatch(q);
    }
  });

  it('covers min − 1, max + 1, −1, fractions, non-numbers, empty, repeated and unknown status', () => {
    const limit = parameter('listPets', 'limit').schema as { minimum: number; maximum: number };
    const kinds = new Set(queries.map((q) => q.kind));
    for (const k of [
      `limit ${limit.minimum - 1}`,
      `limit ${limit.maximum + 1}`,
      'limit -1',
      'limit 1.5',
      'limit abc',
      'limit empty',
      'repeated limit',
      'unknown status',
      'status empty',
      'repeated status',
    ]) {
      expect(kinds.has(k), k).toBe(true);
    }
    // Unknown statuses with characters that need encoding arrive encoded and decode to a non-member.
    for (const q of queries.filter((x) => x.kind === 'unknown status')) {
      expect(contract.petStatuses).not.toContain(new URLSearchParams(q.raw).get('status'));
    }
  });
});
