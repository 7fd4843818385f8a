// The contract document itself: valid OpenAPI 3.1 (third-party validator), and saying what the prose spec says.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse } from 'yaml';
import { contract, operation, parameter, specPath } from '../../spec/contract.js';
import { clauses } from '../../spec/clauses.js';
import { hasResponseSchema, validateResponseBody } from '../../spec/validators.js';

describe('the OpenAPI document', () => {
  test('validates against the official OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(parse(readFileSync(specPath, 'utf8')));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  test('states version 1.0.0 and two servers ending in /v1 (section 9)', () => {
    expect(contract.version).toBe('1.0.0');
    expect(contract.serverUrls).toHaveLength(2);
    for (const url of contract.serverUrls) expect(url).toMatch(/\/v1$/);
  });

  test('has the three operations, each behind bearer auth, with their documented statuses and 429', () => {
    expect([...contract.operations.keys()].sort()).toEqual(['createPet', 'getPet', 'listPets']);
    const statuses = (id: 'listPets' | 'createPet' | 'getPet') => [...operation(id).responses.keys()].sort();
    expect(statuses('listPets')).toEqual([200, 401, 429]);
    expect(statuses('createPet')).toEqual([201, 400, 401, 429]);
    expect(statuses('getPet')).toEqual([200, 401, 404, 429]);
    for (const op of contract.operations.values()) {
      expect(op.requiresAuth).toBe(true);
      for (const r of op.responses.values()) {
        expect(r.requiredHeaders).toEqual(
          expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']),
        );
        if (r.status === 429) expect(r.requiredHeaders).toContain('retry-after');
      }
    }
  });

  test('marks getPet deprecated with the removal date 2030-12-05', () => {
    expect(operation('getPet').deprecated).toBe(true);
    expect(operation('getPet').removalDate).toBe('2030-12-05');
    expect(operation('listPets').deprecated).toBe(false);
  });

  test('constrains limit to 1..100 default 20 and petId to int64', () => {
    expect(parameter('listPets', 'limit').schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(parameter('getPet', 'petId').schema).toMatchObject({ type: 'integer', format: 'int64' });
    expect(contract.petStatuses).toEqual(['available', 'pending', 'sold']);
  });

  test('gives the plan limits of section 8', () => {
    expect(contract.plans).toEqual({
      free: { requestsPerMinute: 60, requestsPerDay: 1000 },
      pro: { requestsPerMinute: 300, requestsPerDay: 10000 },
      business: { requestsPerMinute: 1000, requestsPerDay: 100000 },
    });
    expect(contract.planNames).toContain('enterprise');
  });

  test('compiles a validator for every documented body and they judge', () => {
    expect(hasResponseSchema('listPets', 200)).toBe(true);
    expect(validateResponseBody('getPet', 404, { code: 'x', message: 'y', status: 404 })).toEqual([]);
    expect(validateResponseBody('getPet', 200, { id: 1, name: 'a' }).map((e) => e.keyword)).toContain('required');
  });
});

describe('the clauses', () => {
  test('ids are unique and levels known', () => {
    const ids = clauses.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of clauses) expect(['must', 'should', 'gap', 'harness']).toContain(c.level);
  });
  // That every clause is cited by a check or says how it is covered: test/checks/registry.test.ts.
});
