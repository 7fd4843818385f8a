/**
 * Every form of Authorization that authenticates is counted (issue 31, rl-every-form-counted): the rate-limit suite
 * against the reference, faultless and with the one fault of the class, on seeds 1..3.
 */
import { describe, expect, test } from 'vitest';
import { catchingFindings, faults } from '../../reference/faults.js';
import { expectCaughtPrecisely, reported } from '../meta/precision.js';
import { PLANS, runRateLimit, SEEDED_TIMEOUT_MS } from './support.js';

const SEEDS_HERE = [1, 2, 3] as const;
const CHECK = 'rl-every-form-counted';
const fault = faults.find((f) => f.id === 'rl-form-counted-apart')!;

describe.concurrent('every authorization form counted, against the reference', () => {
  test(
    'faultless: the accepted forms (the scheme in either case, two spaces) are measured and counted; no violation',
    async () => {
      const runs = await Promise.all(
        SEEDS_HERE.map((seed) => runRateLimit('rate-limit', { windowSeconds: 5, plans: PLANS, seed })),
      );
      for (const [i, r] of runs.entries()) {
        const at = `seed ${SEEDS_HERE[i]}`;
        expect(
          r.findings.filter((f) => f.level === 'violation' || f.level === 'warning'),
          `${at}: ${reported(r.findings)}`,
        ).toEqual([]);
        for (const k of r.keyResults) {
          const proven = k.proven.filter((p) => p.startsWith('every authorization form counted')).join('\n');
          const unmeasured = k.unmeasured.filter((p) => p.startsWith('every authorization form counted')).join('\n');
          // Each accepted form is proven counted or named as not measured, with why; a refused form is neither.
          for (const form of ['lower-case scheme', 'upper-case scheme', 'two spaces after the scheme'])
            expect(`${proven}\n${unmeasured}`, `${at} ${k.key}`).toContain(form);
          expect(`${proven}\n${unmeasured}`, `${at} ${k.key}`).not.toMatch(
            /Token scheme|Basic scheme|the key in quotes/,
          );
        }
        // The slowest limiter (Free, 2 requests a second) is measured: exercised, not only named.
        expect(r.keyResults.find((k) => k.key === 'free')!.proven.join('\n'), `${at}`).toMatch(
          /every authorization form counted: lower-case scheme \(Remaining \d+ → \d+/,
        );
      }
    },
    SEEDED_TIMEOUT_MS,
  );
  test(
    `${fault.id}: caught by ${CHECK} alone, once per key`,
    async () => {
      const runs = await Promise.all(
        SEEDS_HERE.map((seed) =>
          runRateLimit('rate-limit', { windowSeconds: 5, plans: PLANS, seed, faults: [fault.id] }),
        ),
      );
      for (const [i, r] of runs.entries()) {
        expectCaughtPrecisely(fault, r.findings, `seed ${SEEDS_HERE[i]}`);
        const caught = catchingFindings(fault, r.findings);
        // Once per key at most (a key whose limiter refills too fast to tell is named as not measured instead).
        const plans = caught.map((f) => f.keyPlan);
        expect(new Set(plans).size, `seed ${SEEDS_HERE[i]}`).toBe(plans.length);
        expect(plans, `seed ${SEEDS_HERE[i]}`).toContain('free');
        // Rendered from its causes: the forms not counted, the key's limit not charged with them, then each form's count.
        expect(caught[0]!.message).toMatch(
          /^requests (of the \S+ key )?accepted as lower-case scheme[^:]*: the \w+ key's minute limit \(\d+\) not charged with requests in another accepted Authorization form: \d+.*\nlower-case scheme: Remaining \d+ → \d+/,
        );
      }
    },
    SEEDED_TIMEOUT_MS,
  );
});
