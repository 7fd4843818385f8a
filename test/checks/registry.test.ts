/**
 * The check catalogue checks itself: properties of the registry, never a copied list. Every check has a unique id,
 * cites only clauses that exist, declares levels that fit its clauses (a gap backs only observations), and every
 * clause of the spec is cited by some check or explains how it is covered.
 */
import { describe, expect, it } from 'vitest';
import { areaOperations, defineCheck, finding, type Check, type Level } from '../../checks/check.js';
import {
  allChecks,
  applyResponseChecks,
  checkById,
  checkList,
  responseChecks,
  responseChecksById,
} from '../../checks/registry.js';
import { statusDocumented } from '../../checks/response.js';
import { clauses } from '../../spec/clauses.js';
import { contract, type OperationId } from '../../spec/contract.js';
import { BODY_OPERATION, PATH_VARIANTS, QUERY_SHAPE_OPERATION } from '../../generators/robustness.js';
import { evidence, exchange } from './fixtures.js';

interface Probe {
  clause?: string;
  level?: Level;
}

const clauseLevel = new Map(clauses.map((c) => [c.id, c.level]));

describe('registry', () => {
  it('ids are unique and kebab-case; checkById finds each', () => {
    const ids = allChecks.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of checkList) {
      expect(c.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(checkById(c.id)).toBe(c);
    }
  });

  describe.each(allChecks.map((c) => [c.id, c] as const))('%s', (_id, check) => {
    it('declares its primary clause and default level first, each once', () => {
      expect(check.clause).toBe(check.clauses[0]);
      expect(check.level).toBe(check.levels[0]);
      expect(new Set(check.clauses).size).toBe(check.clauses.length);
      expect(new Set(check.levels).size).toBe(check.levels.length);
      expect(check.title.length).toBeGreaterThan(10);
    });

    it('cites and covers only clauses that exist', () => {
      for (const id of [...check.clauses, ...check.covers]) expect(clauseLevel.has(id), id).toBe(true);
    });

    it('has levels that fit its clauses: a gap backs only observations, a should-clause never a violation', () => {
      const primary = clauseLevel.get(check.clause);
      if (primary === 'gap') expect(check.levels).toEqual(['observation']);
      if (check.level === 'violation') expect(primary).toBe('must');
      if (check.level === 'warning') expect(primary).not.toBe('gap');
      if (check.clauses.some((c) => clauseLevel.get(c) === 'gap')) expect(check.levels).toContain('observation');
      if (check.clauses.some((c) => clauseLevel.get(c) === 'should')) expect(check.levels).not.toContain('violation');
      // A harness clause is this tool's rule, not the spec's: it never fails a run on its own.
      if (check.clauses.some((c) => clauseLevel.get(c) === 'harness')) expect(check.levels).not.toContain('violation');
    });
  });

  it('every clause of the spec is cited or covered by a check, or says how it is covered', () => {
    const cited = new Set(allChecks.flatMap((c) => [...c.clauses, ...c.covers]));
    const uncovered = clauses.filter((c) => !cited.has(c.id) && !c.coverage).map((c) => c.id);
    expect(uncovered).toEqual([]);
  });

  it('every response check declares when it applies (it sees every answer; most judge some only)', () => {
    for (const c of responseChecks) {
      expect(c.appliesToWhat, c.id).not.toBe('every piece of evidence it is given');
      expect(c.appliesToWhat.length, c.id).toBeGreaterThan(5);
    }
    // A check about 429 answers applies to a 429 only; www-authenticate to a 401 only.
    for (const id of ['retry-after-valid', 'error-body-429-json'] as const) {
      expect(checkById(id).applies(evidence({ status: 429 })), id).toBe(true);
      expect(checkById(id).applies(evidence({ status: 200 })), id).toBe(false);
    }
    expect(checkById('www-authenticate').applies(evidence({ status: 401 }))).toBe(true);
    expect(checkById('www-authenticate').applies(evidence({ status: 404 }))).toBe(false);
    // A limit check applies to a key whose limit was exceeded within a window: a burst that got its refusal.
    expect(checkById('rl-burst-enforced').appliesToWhat).toMatch(/exceeded within a window/);
    expect(checkById('rl-burst-enforced').applies({ kind: 'burst', rejection: null })).toBe(false);
  });

  it('every check of the registry says in words what evidence it judges, never the default', () => {
    // The default is what a check without appliesTo says: a fresh one shows it, so the test follows the word.
    const fallback = defineCheck({
      id: 'no-5xx',
      clauses: ['7-no-5xx'],
      levels: ['violation'],
      causes: ['crash'],
      area: 'response',
      title: 't',
      run: () => [],
    }).appliesToWhat;
    const defaulted = allChecks.filter((c) => c.appliesToWhat === fallback).map((c) => c.id);
    expect(defaulted).toEqual([]);
    // What the table of evidence says of a check that judged nothing reads as the evidence it wanted.
    expect(checkById('rl-ban-observed').appliesToWhat).toMatch(/appeared banned/);
    expect(checkById('create-echo').appliesToWhat).toMatch(/^201 answers to a create/);
    expect(checkById('name-limits').appliesToWhat).toMatch(/name is at an edge/);
    // And each applies to what its words say: a create's echo to a 201 only, an edge name's record to an edge name only.
    const sent = { name: 'Rex', categoryId: '2' };
    const created = exchange({ operation: 'createPet' });
    const refused = exchange({ operation: 'createPet', status: 400 });
    expect(checkById('create-echo').applies({ exchange: created, sent, nameEdge: false })).toBe(true);
    expect(checkById('create-echo').applies({ exchange: refused, sent, nameEdge: false })).toBe(false);
    expect(checkById('name-limits').applies({ exchange: refused, sent, nameEdge: true })).toBe(true);
    expect(checkById('name-limits').applies({ exchange: created, sent, nameEdge: false })).toBe(false);
    expect(checkById('rl-ban-observed').applies({ plan: 'free', reason: 'r', exchanges: [created] })).toBe(true);
  });

  it('a check judges the operations of its area unless it declares fewer, derived from the contract or the catalogue', () => {
    const ops = [...contract.operations.keys()];
    // Without a declaration: its area's operations.
    for (const c of allChecks.filter((x) => x.operations === undefined))
      for (const clause of [...c.clauses, ...c.covers])
        expect(c.operationsFor(clause), c.id).toEqual(areaOperations(c.area));
    // body-schema: a schema's clause only where an operation documents a JSON answer of that schema.
    const documenting = (schema: string): OperationId[] =>
      ops.filter((op) =>
        [...contract.operations.get(op)!.responses.values()].some(
          (r) => r.schema !== null && JSON.stringify(r.schema) === JSON.stringify(contract.schemas[schema]),
        ),
      );
    const body = checkById('body-schema');
    expect(body.operationsFor('2-pets-array')).toEqual(documenting('Pets'));
    expect(body.operationsFor('2-pet-schema')).toEqual(documenting('Pet'));
    expect(body.operationsFor('2-error-schema')).toEqual(documenting('Error'));
    // Fewer than every operation, or the test would prove nothing.
    expect(documenting('Pets').length).toBeLessThan(ops.length);
    expect(documenting('Pet').length).toBeLessThan(ops.length);
    // deprecation-headers: the operations the contract marks deprecated.
    const deprecated = ops.filter((op) => contract.operations.get(op)!.deprecated);
    expect(deprecated.length).toBeGreaterThan(0);
    expect(checkById('deprecation-headers').operationsFor('gap-9-deprecation-headers')).toEqual(deprecated);
    // The robustness checks: the operations the catalogue's entries are sent to, or stand in for.
    expect([...checkById('path-variant-answer').operationsFor('gap-4-path-variants')].sort()).toEqual(
      [...new Set(PATH_VARIANTS.map((v) => v.resembles))].sort(),
    );
    for (const id of ['auth-before-body', 'robust-body-understood', 'content-type-accepted'] as const)
      expect(checkById(id).operationsFor(checkById(id).clause), id).toEqual([BODY_OPERATION]);
    expect(checkById('query-shape-answer').operationsFor('gap-4-parameter-shapes')).toEqual([QUERY_SHAPE_OPERATION]);
  });

  it('responseChecks are the response area, applied by applyResponseChecks', () => {
    expect(allChecks.filter((c) => c.area === 'response')).toEqual(responseChecks);
    const found = applyResponseChecks(
      evidence({ status: 503, body: 'x', headers: { 'x-ratelimit-limit': undefined } }),
    );
    expect(found.map((f) => f.checkId).sort()).toEqual(['no-5xx', 'rate-limit-headers-present']);
  });

  it('selects response checks by id, in catalogue order, and refuses an id that is not one', () => {
    const ids = responseChecks.slice(0, 3).map((c) => c.id);
    expect(responseChecksById([...ids].reverse()).map((c) => c.id)).toEqual(ids);
    // @ts-expect-error model-consistency is a check, but no response check: the type refuses it as the registry does
    expect(() => responseChecksById(['model-consistency'])).toThrow(/no response check/);
  });

  it('checkById throws for an unknown id (a harness error, not a target one)', () => {
    // @ts-expect-error an id no check has is refused by the type check too
    expect(() => checkById('nope')).toThrow(/unknown check id/);
  });
});

describe('defineCheck and finding', () => {
  it('a harness bug on odd evidence becomes a visible warning of that check, never a throw or a violation', () => {
    const found = statusDocumented.run(null as never);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ checkId: 'status-documented', level: 'warning', harnessError: true });
    expect(found[0]?.message).toContain('harness error');
  });

  it('a finding may choose only among the clauses and levels its check declares', () => {
    // A probe under a registered id (a check's id is one of the registry's): its clauses and levels are its own.
    const probe: Check<Probe, 'get-404'> = defineCheck({
      id: 'get-404',
      clauses: ['4.3-get-404', 'gap-4-invalid-petid'],
      levels: ['violation', 'observation'],
      causes: ['status'],
      area: 'getPet',
      title: 'A check that emits what it is told to.',
      run: (ev) => [
        finding(
          probe,
          exchange({ operation: 'getPet' }),
          { because: 'm' },
          {
            causes: [{ kind: 'status', status: 200, expected: [404] }],
            ...ev,
          },
        ),
      ],
    });
    expect(probe.run({})[0]).toMatchObject({ clause: '4.3-get-404', level: 'violation', operation: 'getPet' });
    expect(probe.run({ clause: 'gap-4-invalid-petid', level: 'observation' })[0]?.level).toBe('observation');
    for (const ev of [
      { clause: '2-int64' },
      { level: 'warning' as const },
      { clause: 'gap-4-invalid-petid', level: 'violation' as const },
    ]) {
      const [f] = probe.run(ev);
      expect(f?.harnessError, JSON.stringify(ev)).toBe(true);
      expect(f?.level).toBe('warning');
    }
  });

  it('a finding carries its key plan from the evidence; suite and case class are stamped by the run', () => {
    const [f] = statusDocumented.run(evidence({ status: 202, operation: 'createPet', keyPlan: 'pro' }));
    expect(f).toMatchObject({ checkId: 'status-documented', keyPlan: 'pro', suite: null, caseClass: null });
  });
});
