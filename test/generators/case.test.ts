/**
 * Cases are typed (issue 30): every case a scenario sends has a family of CASE_FAMILIES, declared where its generator
 * or catalogue entry is; the printed case class stays what it was (baselines keep matching); the random phase and the
 * coverage phase give the same input the same family; and a run's findings carry the case that provoked them.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Finding } from '../../checks/check.js';
import type { CheckId } from '../../checks/check-id.js';
import { AUTH_VARIANTS, authCase, prototypeKeyCase } from '../../generators/auth.js';
import { CASE_FAMILIES, type CaseFamily, type CaseRef } from '../../generators/case.js';
import { invalidBodyCase, invalidKind, invalidNewPet } from '../../generators/invalid-new-pet.js';
import { invalidListQuery, invalidListQueryKinds, listQueryCase, validListQuery } from '../../generators/list-query.js';
import {
  absentPetId,
  absentPetIdEdges,
  existingPetId,
  invalidPetId,
  invalidPetIdEdges,
  PET_ID_FAMILIES,
  petIdCase,
} from '../../generators/pet-id.js';
import {
  ACCEPT_CASES,
  bodyCases,
  MALFORMED_WITHOUT_KEY,
  PATH_VARIANTS,
  PET_ID_VARIANTS,
  PROTOTYPE_KEYS,
  QUERY_SHAPES,
  robustnessCase,
  UNDOCUMENTED_METHOD,
} from '../../generators/robustness.js';
import type { Fault } from '../../reference/faults.js';
import { planKeys, startReferenceServer } from '../../reference/server.js';
import { RunContext } from '../../runner/context.js';
import { runSuite } from '../../runner/run.js';
import { oneOfEachInvalidKind } from '../../runner/scenarios/create-pet.js';
import { edgeQueries } from '../../runner/scenarios/list-pets.js';
import { faultReport } from '../meta/fault-report.js';

const families = new Set(Object.keys(CASE_FAMILIES));
const isFamily = (f: string): f is CaseFamily => families.has(f);

/**
 * Every catalogue entry of the robustness suite, with the case its findings carry and the case class the robustness
 * scenario printed for it before cases were typed (`robustness: <entry>`, `petId <entry>`, `auth: a key named <token>`).
 */
const catalogue = (): { readonly entry: string; readonly ref: CaseRef; readonly printed: string }[] => {
  const entries = [
    ...bodyCases((i) => `m${i}`),
    ...ACCEPT_CASES,
    ...PATH_VARIANTS,
    ...QUERY_SHAPES,
    UNDOCUMENTED_METHOD,
    MALFORMED_WITHOUT_KEY,
  ];
  return [
    ...entries.map((c) => ({ entry: c.name, ref: robustnessCase(c), printed: `robustness: ${c.name}` })),
    ...PET_ID_VARIANTS.map((c) => ({ entry: c.name, ref: robustnessCase(c), printed: `petId ${c.name}` })),
    ...PROTOTYPE_KEYS.map((t) => ({
      entry: `a key named ${t}`,
      ref: prototypeKeyCase(t),
      printed: `auth: a key named ${t}`,
    })),
  ];
};

describe('case families', () => {
  it('every family has a title, and the titles tell families apart', () => {
    const titles = Object.values(CASE_FAMILIES);
    expect(titles.every((t) => t.length > 0)).toBe(true);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it('every robustness catalogue entry has a family, and its variant is the entry', () => {
    for (const { entry, ref } of catalogue()) {
      expect(isFamily(ref.family), `${entry}: ${ref.family}`).toBe(true);
      expect(ref.variant).toBe(entry);
    }
  });

  it('every auth variant, invalid-body kind, petId kind and list query has a family', () => {
    for (const v of AUTH_VARIANTS) expect(isFamily(authCase(v).family), v.name).toBe(true);
    for (const inv of oneOfEachInvalidKind(7)) expect(isFamily(invalidBodyCase(inv).family), inv.reason).toBe(true);
    for (const family of Object.values(PET_ID_FAMILIES)) expect(isFamily(family)).toBe(true);
    const queries = [
      ...edgeQueries(),
      ...invalidListQueryKinds().flatMap((k) => fc.sample(k, { seed: 3, numRuns: 3 })),
    ];
    for (const q of queries) expect(isFamily(listQueryCase(q).family), q.kind).toBe(true);
  });

  it('the printed names are what the scenarios printed before families: the catalogue entry under its prefix', () => {
    for (const { ref, printed } of catalogue()) expect(ref.name).toBe(printed);
    for (const v of AUTH_VARIANTS) expect(authCase(v).name).toBe(`auth: ${v.name}`);
    for (const inv of oneOfEachInvalidKind(7))
      expect(invalidBodyCase(inv).name).toBe(`invalid body: ${invalidKind(inv)}`);
    for (const c of [...invalidPetIdEdges(), ...absentPetIdEdges([])])
      expect(petIdCase(c).name).toBe(`petId ${c.kind}`);
  });

  it('the families of the issue: one body-parser cause, one petId cause, ordinary requests', () => {
    const byEntry = new Map(catalogue().map(({ entry, ref }) => [entry, ref.family]));
    // One crash in the body parser showed as these six blocks: one family.
    for (const entry of ['bytes that are not UTF-8 in name', 'charset=utf-16', 'form-encoded', 'multipart/form-data'])
      expect(byEntry.get(entry), entry).toBe('body-unreadable');
    expect(byEntry.get('form-encoded without categoryId')).toBe('body-unreadable');
    expect(byEntry.get('nesting 3000 deep as the whole body')).toBe('body-unreadable');
    for (const v of PET_ID_VARIANTS) expect(v.family).toBe('petId-not-int64');
    expect(authCase(AUTH_VARIANTS.find((v) => v.valid && /\{key\}$/.test(v.name))!).family).toBe('ordinary');
    expect(petIdCase({ kind: 'existing' }).family).toBe('ordinary');
    for (const q of edgeQueries()) expect(listQueryCase(q).family).toBe('ordinary');
  });

  it('the random phase gives an input the family the coverage phase gives it', () => {
    // petIds that are not int64: the random phase's, the coverage edges and the robustness catalogue's are one family.
    const random = fc.sample(invalidPetId(), { seed: 11, numRuns: 300 }).map((c) => petIdCase(c).family);
    const coverage = invalidPetIdEdges().map((c) => petIdCase(c).family);
    expect(new Set([...random, ...coverage, ...PET_ID_VARIANTS.map((v) => v.family)])).toEqual(
      new Set(['petId-not-int64']),
    );
    expect(new Set(fc.sample(absentPetId([]), { seed: 11, numRuns: 50 }).map((c) => petIdCase(c).family))).toEqual(
      new Set(['petId-absent']),
    );
    expect(new Set(fc.sample(existingPetId(['5']), { seed: 11, numRuns: 5 }).map((c) => petIdCase(c).family))).toEqual(
      new Set(['ordinary']),
    );
    // Invalid bodies: each random body's case is the coverage phase's case of its kind, family and field included.
    const kinds = new Map(oneOfEachInvalidKind(7).map((inv) => [invalidBodyCase(inv).name, invalidBodyCase(inv)]));
    for (const inv of fc.sample(invalidNewPet(), { seed: 11, numRuns: 400 })) {
      const ref = invalidBodyCase(inv);
      expect(kinds.get(ref.name), ref.name).toEqual(ref);
    }
    // List queries: a random invalid query has the family of the parameter it breaks, a random valid one is ordinary.
    for (const q of fc.sample(invalidListQuery(), { seed: 11, numRuns: 200 }))
      expect(listQueryCase(q).family).toBe(q.param === 'limit' ? 'query-invalid-limit' : 'query-invalid-status');
    for (const q of fc.sample(validListQuery(), { seed: 11, numRuns: 50 }))
      expect(listQueryCase(q).family).toBe('ordinary');
  });
});

describe('findings carry their case', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('one printed name has one family in a run: every case the suites send is typed', async () => {
    const sent: CaseRef[] = [];
    const inCase = RunContext.prototype.inCase;
    vi.spyOn(RunContext.prototype, 'inCase').mockImplementation(function <T>(
      this: RunContext,
      c: CaseRef,
      fn: () => Promise<T>,
    ) {
      sent.push(c);
      return inCase.call(this, c, fn);
    });
    const server = await startReferenceServer({ windowSeconds: 5 });
    try {
      const keys = planKeys(server.keys);
      const key = keys.find((k) => k.plan === 'enterprise')!;
      for (const suite of ['auth', 'listPets', 'getPet'] as const)
        await runSuite(suite, { target: server.url, keys, key, seed: 5, runs: 10, strict: false });
    } finally {
      await server.close();
    }
    expect(sent.length).toBeGreaterThan(50);
    const familyOf = new Map<string, string>();
    for (const c of sent) {
      expect(isFamily(c.family), c.name).toBe(true);
      expect(familyOf.get(c.name) ?? c.family, c.name).toBe(c.family);
      familyOf.set(c.name, c.family);
    }
    // The auth matrix sends every variant; the getPet suite every kind of petId.
    for (const v of AUTH_VARIANTS.filter((v) => v.nearMiss === undefined))
      expect(familyOf.get(`auth: ${v.name}`), v.name).toBe(v.family);
    for (const kind of Object.keys(PET_ID_FAMILIES)) expect(familyOf.has(`petId ${kind}`), kind).toBe(true);
  });

  it('a body-parser crash (create-malformed-500): every crash on createPet is of the family body-unreadable', async () => {
    const report = await faultReport(['create-malformed-500'], ['createPet', 'robustness'], { runs: 20 });
    const crashes = report.findings.filter(
      (f: Finding) => f.operation === 'createPet' && f.level !== 'observation' && f.exchanges[0]?.status === 500,
    );
    expect(crashes.length).toBeGreaterThan(0);
    for (const f of crashes) {
      expect(f.case, f.caseClass ?? '').not.toBeNull();
      expect(f.case!.family, f.caseClass!).toBe('body-unreadable');
      // The printed case class is the case's name: signatures and baselines read as before.
      expect(f.caseClass).toBe(f.case!.name);
    }
    const variants = new Set(crashes.map((f) => f.case!.variant));
    // Malformed JSON from the createPet suite, other media types from the catalogue: one family across both phases.
    expect(
      [...variants].some((v) => v.startsWith('malformed JSON')),
      [...variants].join(', '),
    ).toBe(true);
    expect(variants.has('multipart/form-data'), [...variants].join(', ')).toBe(true);
    expect(variants.has('form-encoded'), [...variants].join(', ')).toBe(true);
    // Every finding with a case carries it whole, whatever its check.
    for (const f of report.findings.filter((f) => f.case !== null && f.case !== undefined))
      expect(isFamily(f.case!.family) && f.caseClass === f.case!.name, f.caseClass ?? '').toBe(true);
  }, 120_000);
});

describe('check ids are typed', () => {
  it('a catches naming no check of the registry fails the type check', () => {
    // @ts-expect-error 'create-201x' is no check's id: a renamed or removed check fails tsc where it is named
    const renamed: Pick<Fault, 'catches'> = { catches: 'create-201x' };
    const known: CheckId = 'create-201';
    expect(renamed.catches).not.toBe(known);
  });
});
