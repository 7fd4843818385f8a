/**
 * Every defect in one run (issue 11): the reference server with 4 to 6 faults at once, one run of the suites those
 * faults belong to, and every fault of the combination reported as its own distinct defect: a violation (or warning)
 * of the check it names, on the operation where it shows, not folded into another defect as its echo; the terminal
 * report prints one block per distinct defect. The faults of a combination are chosen not to mask each
 * other (none breaks the path another is seen on); the test holds them to not sharing a defect either, not even one
 * of the reviewed echoes of precision.ts, so that each defect found can only be the one fault's.
 */
import { describe, expect, test } from 'vitest';
import type { SuiteName } from '../../config/config.js';
import { faults, type Fault } from '../../reference/faults.js';
import { planKeys, startReferenceServer } from '../../reference/server.js';
import { buildConformanceReport, type SuiteOutcome } from '../../reports/conformance-report.js';
import { renderTerminalSummary } from '../../reports/conformance-text.js';
import { runSuite } from '../../runner/suites.js';
import type { OperationId } from '../../spec/contract.js';
import { alsoTrips } from './precision.js';

/** A fault and the operation its check reports it on. */
type Shown = readonly [faultId: string, operation: OperationId];

const combinations: readonly (readonly Shown[])[] = [
  [
    ['auth-bearer-case-sensitive', 'listPets'],
    ['list-default-50', 'listPets'],
    ['create-name-trimmed', 'createPet'],
    ['get-absent-200-null', 'getPet'],
  ],
  [
    ['auth-no-www-authenticate', 'listPets'],
    ['list-filter-leak', 'listPets'],
    ['create-client-id-honoured', 'createPet'],
    ['get-odd-404', 'getPet'],
    ['rl-reset-ms', 'listPets'],
  ],
  [
    ['auth-create-open', 'createPet'],
    ['list-invalid-limit-500', 'listPets'],
    ['create-400-still-created', 'createPet'],
    ['error-status-mismatch', 'getPet'],
    ['get-wrong-name', 'getPet'],
  ],
  [
    ['list-limit-100-rejected', 'listPets'],
    ['create-200', 'createPet'],
    ['get-invalid-id-500', 'getPet'],
    ['rl-limit-constant', 'listPets'],
    ['auth-401-no-body', 'getPet'],
  ],
  [
    ['list-limit-ignored', 'listPets'],
    ['create-duplicate-ids', 'createPet'],
    ['get-absent-500', 'getPet'],
    ['auth-no-www-authenticate', 'createPet'],
    ['rl-remaining-above-limit', 'listPets'],
  ],
  [
    ['create-not-listed', 'listPets'],
    ['get-wrong-name', 'getPet'],
    ['auth-any-token', 'getPet'],
    ['create-missing-field-accepted', 'createPet'],
    ['rl-reset-relative', 'listPets'],
  ],
  [
    ['pet-id-string', 'createPet'],
    ['list-filter-leak', 'listPets'],
    ['get-invalid-id-500', 'getPet'],
    ['auth-no-www-authenticate', 'listPets'],
  ],
  [
    ['create-int64-rounded', 'createPet'],
    ['list-invalid-limit-500', 'listPets'],
    ['auth-bearer-case-sensitive', 'createPet'],
    ['create-duplicate-ids', 'createPet'],
    ['error-status-mismatch', 'getPet'],
  ],
  [
    ['create-fractional-accepted', 'createPet'],
    ['get-not-retrievable', 'getPet'],
    ['list-limit-1-rejected', 'listPets'],
    ['auth-401-no-body', 'listPets'],
    ['rl-limit-constant', 'listPets'],
  ],
  [
    ['create-status-not-persisted', 'createPet'],
    ['list-limit-ignored', 'listPets'],
    ['get-absent-500', 'getPet'],
    ['auth-create-open', 'createPet'],
    ['rl-reset-ms', 'listPets'],
  ],
  [
    ['create-name-nfc', 'createPet'],
    ['list-default-50', 'listPets'],
    ['error-status-mismatch', 'getPet'],
    ['auth-any-token', 'getPet'],
    ['create-400-still-created', 'createPet'],
    ['get-odd-404', 'getPet'],
  ],
];

const fault = (id: string): Fault => {
  const f = faults.find((x) => x.id === id);
  if (!f) throw new Error(`no fault ${id}`);
  return f;
};
const name = (combo: readonly Shown[]) => combo.map(([id]) => id).join(' + ');

describe('combinations of faults', () => {
  test('there are at least 10, of 4 to 6 faults, each fault with its own defect and none an echo of another', () => {
    expect(combinations.length).toBeGreaterThanOrEqual(10);
    for (const combo of combinations) {
      expect(combo.length, name(combo)).toBeGreaterThanOrEqual(4);
      expect(combo.length, name(combo)).toBeLessThanOrEqual(6);
      const signatures = combo.map(([id, op]) => `${fault(id).catches} on ${op}`);
      expect(new Set(signatures).size, `${name(combo)}: ${signatures.join(', ')}`).toBe(combo.length);
      for (const [a] of combo) {
        for (const [b] of combo) {
          if (a !== b) expect(alsoTrips[b]?.[fault(a).catches], `${a} is an echo of ${b}`).toBeUndefined();
        }
      }
    }
  });

  test.concurrent.each(combinations.map((c) => [name(c), c] as const))(
    '%s: one run reports each as its own defect, one terminal block per defect',
    async (_name, combo) => {
      const server = await startReferenceServer({ faults: combo.map(([id]) => id), windowSeconds: 5 });
      const outcomes: SuiteOutcome[] = [];
      try {
        const keys = planKeys(server.keys);
        const key = keys.find((k) => k.plan === 'enterprise')!;
        const suites = [...new Set(combo.map(([id]) => fault(id).suite as SuiteName))];
        for (const suite of suites) {
          const { ctx: _ctx, ...r } = await runSuite(suite, {
            target: server.url,
            keys,
            key,
            seed: 42,
            runs: 40,
            strict: false,
          });
          const meta = { ...r, seed: 42, observations: [] };
          outcomes.push({ meta, findings: r.findings, failedTests: 0 });
        }
      } finally {
        await server.close();
      }
      const report = buildConformanceReport({
        tool: { name: 'petstore-conformance', version: 'test' },
        target: { url: server.url, embedded: false },
        seed: 42,
        runs: 40,
        strict: false,
        startedAt: new Date(),
        durationMs: 0,
        outcomes,
        errors: [],
        notes: [],
      });
      // Each fault is a defect of its own: not folded into another as its echo.
      const roots = report.defects;
      const seen = roots.map((d) => `${d.checkId} on ${d.operation}`);
      for (const [id, op] of combo) {
        expect(seen, `${id} → ${fault(id).catches} on ${op}`).toContain(`${fault(id).catches} on ${op}`);
      }
      const blocks = renderTerminalSummary(report)
        .split('\n')
        .filter((l) => /^[✗!] /.test(l));
      expect(blocks).toHaveLength(roots.length);
    },
  );
});
