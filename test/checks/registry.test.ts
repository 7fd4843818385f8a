import { describe, expect, it } from 'vitest';
import { allChecks, applyResponseChecks, checkById, responseChecks } from '../../checks/registry.js';
import { statusDocumented } from '../../checks/response.js';
import { clauses } from '../../spec/clauses.js';
import { evidence } from './fixtures.js';

/** The catalogue (/work/notes/checks.md) as data: id, clause, level. */
const catalogue: readonly [string, string, 'violation' | 'warning' | 'observation'][] = [
  ['status-documented', '4-documented-status', 'violation'],
  ['no-5xx', '7-no-5xx', 'violation'],
  ['transport-ok', '7-no-5xx', 'violation'],
  ['content-type-json', '1-json-media-type', 'violation'],
  ['json-parses', '1-json-media-type', 'violation'],
  ['body-schema', '2-pet-schema', 'violation'],
  ['int64-exact', '2-int64', 'violation'],
  ['error-status-matches', '7-rule-1-status-matches', 'violation'],
  ['rate-limit-headers-present', '8-headers-every-response', 'violation'],
  ['rate-limit-remaining-range', '8-header-remaining', 'violation'],
  ['rate-limit-reset-epoch', '8-header-reset', 'violation'],
  ['rate-limit-limit-plan', '8-header-limit', 'violation'],
  ['retry-after-valid', '7-429-retry-after', 'violation'],
  ['error-body-429', '7-error-media-type', 'warning'],
  ['www-authenticate', '5-www-authenticate', 'warning'],
  ['deprecation-headers', 'gap-9-deprecation-headers', 'observation'],
  ['extra-fields', 'gap-extra-fields', 'observation'],
  ['auth-rejected', '5-401-missing-invalid', 'violation'],
  ['auth-valid-accepted', '5-bearer-scheme', 'violation'],
  ['list-200', '4.1-list-200', 'violation'],
  ['list-limit-respected', '4.1-limit-range', 'violation'],
  ['list-default-limit', '4.1-limit-default', 'violation'],
  ['list-status-filter', '4.1-status-filter', 'violation'],
  ['list-invalid-query', 'gap-4-out-of-range-limit', 'observation'],
  ['list-pagination', 'gap-4-pagination', 'observation'],
  ['create-201', '4.2-create-201', 'violation'],
  ['name-limits', 'gap-2-name-limits', 'observation'],
  ['create-echo', '4.2-create-echo', 'violation'],
  ['create-default-status', 'gap-2-default-status', 'observation'],
  ['create-id-not-client-supplied', '2-pet-id-assigned', 'violation'],
  ['create-invalid-rejected', '4.2-create-400', 'violation'],
  ['create-invalid-no-effect', '4.2-create-400-no-effect', 'violation'],
  ['create-retrievable', '4.2-create-retrievable', 'violation'],
  ['create-listed', '4.2-create-retrievable', 'violation'],
  ['ids-unique', '2-pet-id-unique', 'violation'],
  ['get-200', '4.3-get-200', 'violation'],
  ['get-404', '4.3-get-404', 'violation'],
  ['get-invalid-id', 'gap-4-invalid-petid', 'observation'],
  ['model-consistency', '4.2-create-retrievable', 'violation'],
  ['rl-not-stricter-than-plan', '8-plan-limits', 'violation'],
  ['rl-burst-enforced', '8-rule-1-429', 'violation'],
  ['rl-429-shape', '7-429-retry-after', 'violation'],
  ['rl-retry-after-honoured', '8-rule-2-retry-after', 'violation'],
  ['rl-rejected-not-counted', '8-header-remaining', 'violation'],
  ['rl-per-key', '8-plan-limits', 'violation'],
  ['rl-daily-quota', '8-plan-limits', 'violation'],
  ['rl-ban-observed', '8-rule-3-ban', 'observation'],
  ['rl-401-rate-limited', 'gap-8-401-rate-limited', 'observation'],
];

const clauseIds = new Set(clauses.map((c) => c.id));
const clauseLevel = new Map(clauses.map((c) => [c.id, c.level]));

describe('registry', () => {
  it('ids are unique and every check is in the catalogue, and vice versa', () => {
    const ids = allChecks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(catalogue.map(([id]) => id).sort());
  });

  it.each(catalogue)('%s cites %s at level %s', (id, clause, level) => {
    const check = checkById(id);
    expect(check.clause).toBe(clause);
    expect(check.level).toBe(level);
    expect(clauseIds.has(check.clause)).toBe(true);
    // Observations cite gaps; a gap clause never backs a violation.
    if (level === 'observation') expect(clauseLevel.get(clause)).toBe('gap');
    else expect(clauseLevel.get(clause)).not.toBe('gap');
  });

  it('clauses that findings cite besides the check clause exist', () => {
    for (const id of ['2-pets-array', '2-error-schema', 'gap-4-unknown-status-filter'])
      expect(clauseIds.has(id)).toBe(true);
  });

  it('responseChecks are the response area, applied by applyResponseChecks', () => {
    expect(responseChecks.every((c) => c.area === 'response')).toBe(true);
    expect(responseChecks.length).toBe(17);
    const found = applyResponseChecks(
      evidence({ status: 503, body: 'x', headers: { 'x-ratelimit-limit': undefined } }),
    );
    expect(found.map((f) => f.checkId).sort()).toEqual(['no-5xx', 'rate-limit-headers-present']);
  });

  it('checkById throws for an unknown id (a harness error, not a target one)', () => {
    expect(() => checkById('nope')).toThrow(/unknown check id/);
  });

  it('a harness bug on odd evidence becomes a visible warning, never a throw or a violation', () => {
    const found = statusDocumented.run(null as never);
    expect(found).toHaveLength(1);
    expect(found[0]?.level).toBe('warning');
    expect(found[0]?.message).toContain('harness error');
  });
});
