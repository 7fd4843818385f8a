// Rule 3: every check can fail. Each fault of the reference catalogue is caught by a real finding of the check it names
// (never by that check's crash: precision.ts `expectCaughtPrecisely`) and by no unrelated check (precision.ts lists the
// reviewed exceptions), and every check that can fail (violation or warning) is named by at least one fault.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { faults } from '../../reference/faults.js';
import type { CheckId } from '../../checks/check-id.js';
import { allChecks, checkById } from '../../checks/registry.js';
import { type SuiteName, isFunctionalSuite } from '../../config/config.js';
import { alsoTrips, expectCaughtPrecisely, headedByAnother } from './precision.js';
import { startReferenceServer } from '../../reference/server.js';
import { runAgainst, runForReport, tempEnvFile, writeEnvFile } from '../cli/support.js';
import { runAgainstReference } from './run-against.js';
import { tempDir } from '../support/temp-dir.js';
import { reportOf } from './fault-report.js';

describe('every fault of the functional suites is caught by the check it names, and by no unrelated check', () => {
  for (const fault of faults.filter((f) => isFunctionalSuite(f.suite))) {
    test(`${fault.id} → ${fault.catches} (${fault.suite}): exactly one defect`, async () => {
      const r = await runAgainstReference(fault.suite as SuiteName, { faults: [fault.id], windowSeconds: 5 });
      expectCaughtPrecisely(fault, r.findings);
      // One cause, one defect: everything else the fault tripped is folded under it, still listed.
      const report = reportOf([r], 'reference', 42, 40);
      expect(
        report.defects.map((d) => d.signature),
        `${fault.id}: ${report.defects.map((d) => `${d.signature} [${d.rules.join(', ')}]`).join('\n')}`,
      ).toHaveLength(1);
      const [defect] = report.defects;
      expect(defect?.checkId).toBe(headedByAnother[fault.id] ?? fault.catches);
      expect([...defect!.signatures, ...defect!.alsoSeenAs].map((s) => s.checkId)).toContain(fault.catches);
    });
  }
});

/** What the preflight's faults look like in the report, in words: the finding's message and its defect's name. */
const PREFLIGHT_WORDS: Readonly<Record<string, { readonly message: RegExp; readonly defect: string }>> = {
  'list-empty-null': {
    message: /on 200 for GET \/pets: body must be array/,
    defect: 'body-schema · listPets · Pet (body)',
  },
};

// Faults only the run's first request meets (the preflight's GET /pets: every suite creates a pet before it lists):
// through the command, whose preflight answer the response checks judge like every other.
describe('every fault of the preflight is caught through the command, and by no unrelated check', () => {
  const preflight = faults.filter((f) => f.suite === 'preflight');
  test('the catalogue has preflight faults, each with its words', () => {
    expect(preflight.length).toBeGreaterThan(0);
    expect(preflight.map((f) => f.id).sort()).toEqual(Object.keys(PREFLIGHT_WORDS).sort());
  });
  for (const fault of preflight) {
    test(`${fault.id} → ${fault.catches} (preflight)`, async () => {
      const server = await startReferenceServer({ faults: [fault.id], windowSeconds: 5 });
      try {
        const dir = tempDir('psc-meta-preflight-');
        const envFile = writeEnvFile(join(dir, '.env'), server.keys);
        const { code, out, report } = await runForReport(server.url, envFile, join(dir, 'r.json'), [
          '--suite',
          'auth',
          '--runs',
          '10',
        ]);
        expect(code, out.text()).toBe(1);
        expectCaughtPrecisely(fault, report.findings);
        // Caught on the preflight's one exchange (the suites never see it): one finding, one defect, in its words.
        expect(report.suites[0]).toMatchObject({ name: 'preflight', exchanges: 1 });
        const caught = report.findings.filter((f) => f.checkId === fault.catches && f.level === 'violation');
        expect(caught).toHaveLength(1);
        expect(caught[0]!.operation).toBe('listPets');
        expect(caught[0]!.message).toMatch(PREFLIGHT_WORDS[fault.id]!.message);
        expect(report.defects.map((d) => d.signature)).toEqual([PREFLIGHT_WORDS[fault.id]!.defect]);
      } finally {
        await server.close();
      }
    }, 60_000);
  }
});

test('the allowances of precision.ts name real faults and checks, never the check the fault names', () => {
  for (const [faultId, head] of Object.entries(headedByAnother)) {
    const fault = faults.find((f) => f.id === faultId);
    expect(fault, faultId).toBeDefined();
    expect(() => checkById(head), `${faultId}: ${head}`).not.toThrow();
    expect(head, faultId).not.toBe(fault!.catches);
  }
  for (const [faultId, checks] of Object.entries(alsoTrips)) {
    const fault = faults.find((f) => f.id === faultId);
    expect(fault, faultId).toBeDefined();
    for (const checkId of Object.keys(checks) as CheckId[]) {
      expect(() => checkById(checkId), `${faultId}: ${checkId}`).not.toThrow();
      expect(checkId, faultId).not.toBe(fault!.catches);
    }
  }
});

test('every check that can fail is named by a fault', () => {
  const named = new Set<string>(faults.map((f) => f.catches));
  const orphans = allChecks.filter((c) => c.level !== 'observation' && !named.has(c.id)).map((c) => c.id);
  expect(orphans).toEqual([]);
});

// A suite reports every check it judges: the listPets suite creates the pets it lists, and the create checks judge
// those creates. The cause (createPet answers 200) is its defect, never only the consequence (an undocumented status).
test('--suite listPets against create-200 reports create-201 as the defect', async () => {
  const r = await runAgainstReference('listPets', { faults: ['create-200'], windowSeconds: 5, runs: 10 });
  const report = reportOf([r], 'reference', 42, 10);
  expect(report.defects.map((d) => d.checkId)).toEqual(['create-201']);
  expect([...report.defects[0]!.signatures, ...report.defects[0]!.alsoSeenAs].map((s) => s.checkId)).toContain(
    'status-documented',
  );
  expect(report.verdict).toBe('violations');
});

test('violations carry the shrunk counterexample, seed and path', async () => {
  const r = await runAgainstReference('createPet', { faults: ['create-200'], windowSeconds: 5 });
  // The coverage phase meets the defect first (no counterexample to shrink there); the random phase shrinks it.
  const f = r.findings.find((x) => x.checkId === 'create-201' && x.level === 'violation' && x.repro);
  expect(f?.repro?.path).toMatch(/^\d+(:\d+)*$/);
  expect(f?.repro?.counterexample).toBeTruthy();
  expect(f?.exchanges[0]?.curl).toContain('$PETSTORE_API_KEY_ENTERPRISE');
});

// The same faults through the CLI (vitest workers, task.meta, the report): findings on operations other than the
// suite's own (createPet fetches and lists, stateful gets) must reach the verdict.
describe('faults found through the CLI reach the exit code', () => {
  for (const [fault, suite] of [
    ['get-not-retrievable', 'createPet'],
    ['create-not-listed', 'createPet'],
    ['list-marks-sold', 'stateful'],
    ['create-200', 'createPet'],
  ] as const) {
    test(`${fault} → exit 1 (${suite})`, async () => {
      const server = await startReferenceServer({ faults: [fault], windowSeconds: 5 });
      try {
        const envFile = tempEnvFile('psc-meta-', server.keys);
        const { code, out } = await runAgainst(server.url, envFile, ['--suite', suite, '--runs', '40', '--seed', '42']);
        expect(code, out.text()).toBe(1);
      } finally {
        await server.close();
      }
    }, 60_000);
  }
});
