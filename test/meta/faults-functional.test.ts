// Rule 3: every check can fail. Each fault of the reference catalogue is caught by the check it names, and every
// check that can fail (violation or warning) is named by at least one fault.
import { describe, expect, test } from 'vitest';
import { faults } from '../../reference/faults.js';
import { allChecks } from '../../checks/registry.js';
import type { SuiteName } from '../../config/config.js';
import { runAgainstReference } from './run-against.js';

const FUNCTIONAL = new Set(['auth', 'listPets', 'createPet', 'getPet', 'stateful']);

describe('every fault of the functional suites is caught by the check it names', () => {
  for (const fault of faults.filter((f) => FUNCTIONAL.has(f.suite))) {
    test(`${fault.id} → ${fault.catches} (${fault.suite})`, async () => {
      const r = await runAgainstReference(fault.suite as SuiteName, { faults: [fault.id], windowSeconds: 5 });
      const caught = r.findings.filter((f) => f.checkId === fault.catches && (f.level === 'violation' || f.level === 'warning'));
      expect(caught.length, `${fault.description}: findings were ${[...new Set(r.findings.filter((f) => f.level !== 'observation').map((f) => f.checkId))].join(', ') || 'none'}`).toBeGreaterThan(0);
    });
  }
});

test('every check that can fail is named by a fault', () => {
  const named = new Set(faults.map((f) => f.catches));
  const orphans = allChecks.filter((c) => c.level !== 'observation' && !named.has(c.id)).map((c) => c.id);
  expect(orphans).toEqual([]);
});

test('violations carry the shrunk counterexample, seed and path', async () => {
  const r = await runAgainstReference('createPet', { faults: ['create-200'], windowSeconds: 5 });
  const f = r.findings.find((x) => x.checkId === 'create-201' && x.level === 'violation');
  expect(f?.repro?.path).toMatch(/^\d+(:\d+)*$/);
  expect(f?.repro?.counterexample).toBeTruthy();
  expect(f?.exchanges[0]?.curl).toContain('$PETSTORE_API_KEY_ENTERPRISE');
});
