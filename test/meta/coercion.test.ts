/**
 * Every coercion in one run (issue 11): a server that coerces types as web frameworks do by default (the reference
 * server's `coercion` setting) accepts five classic coercions, and one run of the createPet suite shows each as a
 * signature of its own, whatever the seed: an integer as a numeric string, a boolean, null, a one-element array, a
 * number for a string. They are one cause, the coercion (issue 30: the same wrong answer to one family of invalid
 * input), so one defect lists them all. The class of a finding is read from the body it sent, so the test does not
 * trust the label it checks.
 */
import { describe, expect, test } from 'vitest';
import type { Finding } from '../../checks/check.js';
import { catchingFindings, COERCION_FAULTS, faults } from '../../reference/faults.js';
import { isLosslessNumber, parseExact } from '../../http/lossless.js';
import { runAgainstReference } from './run-against.js';
import { unrelatedChecks, unrelatedMessage } from './precision.js';
import { reportOf } from './fault-report.js';

const CLASSES = ['integer as a numeric string', 'boolean', 'null', 'one-element array', 'number for a string'] as const;
type Coercion = (typeof CLASSES)[number];

/** Which coercion class a sent body shows, if any. */
function classOf(f: Finding): Coercion | null {
  const b64 = f.exchanges[0]?.request.bodyBase64;
  if (!b64) return null;
  let body: unknown;
  try {
    body = parseExact(Buffer.from(b64, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { name, categoryId } = body as Record<string, unknown>;
  if (typeof name !== 'string') return isLosslessNumber(name) ? 'number for a string' : null;
  if (typeof categoryId === 'string') return /^-?\d+$/.test(categoryId) ? 'integer as a numeric string' : null;
  if (typeof categoryId === 'boolean') return 'boolean';
  if (categoryId === null) return 'null';
  if (Array.isArray(categoryId) && categoryId.length === 1) return 'one-element array';
  return null;
}

test('the coercion setting is the five classic coercions, each a fault caught by create-invalid-rejected', () => {
  expect(COERCION_FAULTS).toHaveLength(CLASSES.length);
  for (const id of COERCION_FAULTS) {
    expect(faults.find((f) => f.id === id)?.catches, id).toBe('create-invalid-rejected');
  }
});

describe.concurrent('a server that accepts the coercion classics', () => {
  test.each([1, 42])('one createPet run (seed %i) shows each coercion, one defect listing them', async (seed) => {
    const r = await runAgainstReference('createPet', { coercion: true, windowSeconds: 5, seed, runs: 40 });
    // The five faults at once, all named for create-invalid-rejected: caught by its real findings only, nothing else.
    const coercion = { id: 'coercion', catches: 'create-invalid-rejected' } as const;
    const caught = catchingFindings(coercion, r.findings);
    expect(caught).not.toEqual([]);
    expect(unrelatedChecks(coercion, r.findings), unrelatedMessage(coercion, r.findings)).toEqual([]);
    const signatureOf = new Map<Coercion, Set<string>>();
    for (const f of caught) {
      const c = classOf(f);
      if (c === null || f.caseClass === null) continue;
      const sigs = signatureOf.get(c) ?? new Set<string>();
      sigs.add(`${f.checkId} · ${f.operation} · ${f.caseClass}`);
      signatureOf.set(c, sigs);
    }
    expect([...signatureOf.keys()].sort()).toEqual([...CLASSES].sort());
    // Distinct defects: each class has a signature (check, operation, case class) that no other class shares.
    for (const c of CLASSES) {
      const others = new Set(CLASSES.filter((o) => o !== c).flatMap((o) => [...signatureOf.get(o)!]));
      const own = [...signatureOf.get(c)!].filter((s) => !others.has(s));
      expect(own, `${c}: ${[...signatureOf.get(c)!].join(', ')}`).not.toEqual([]);
    }
    // One cause, one defect, listing every coercion among its variants.
    const defects = reportOf([r], 'reference', seed, 40).defects;
    expect(defects.map((d) => d.checkId)).toEqual(['create-invalid-rejected']);
    const variants = new Set(defects[0]!.variants);
    for (const c of CLASSES)
      expect(
        [...signatureOf.get(c)!].some((sig) => variants.has(sig.split(' · ').slice(2).join(' · '))),
        `${c}: ${[...variants].join(' | ')}`,
      ).toBe(true);
  });
});
