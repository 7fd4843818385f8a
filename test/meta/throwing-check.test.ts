/**
 * A check that crashes catches nothing. `defineCheck` turns a throw into a warning of the same check id
 * (`harnessError`), so a meta-test counting any warning of the named check would pass a check that crashes on every
 * exchange. Here auth-rejected is made to throw on purpose (its module replaced for one test) and its fault's
 * run goes through the very assertion the fault meta-tests use: it must report the fault as NOT caught.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { catchingFindings, faults, isCaught } from '../../reference/faults.js';
import { expectCaughtPrecisely, unrelatedChecks } from './precision.js';

/** The in-process run of the auth suite, from a fresh module graph (so a mock of a check applies, or not). */
async function runAuth() {
  vi.resetModules();
  const { runAgainstReference } = await import('./run-against.js');
  return runAgainstReference('auth', { faults: [fault.id], windowSeconds: 5 });
}

const fault = faults.find((f) => f.id === 'auth-any-token')!;

describe('a check that throws does not catch its fault', () => {
  afterEach(() => {
    vi.doUnmock('../../checks/auth.js');
  });

  test('auth-rejected made to throw: auth-any-token is reported as not caught', async () => {
    vi.doMock('../../checks/auth.js', async (importOriginal) => {
      const real = await importOriginal<typeof import('../../checks/auth.js')>();
      const { defineCheck } = await import('../../checks/check.js');
      const authRejected = defineCheck({
        ...real.authRejected,
        run: () => {
          throw new Error('auth-rejected broken on purpose');
        },
      });
      return { ...real, authRejected, authChecks: [authRejected, real.authValidAccepted] };
    });
    expect(fault.catches).toBe('auth-rejected');
    const r = await runAuth();
    // The crash shows as warnings of the named check: what the old count of "any warning of the check" took for a catch.
    const crashes = r.findings.filter((f) => f.checkId === fault.catches && f.harnessError === true);
    expect(crashes.length).toBeGreaterThan(0);
    expect(crashes.every((f) => f.level === 'warning' && /broken on purpose/.test(f.message))).toBe(true);
    // No real finding of it, so the fault is not caught, and the meta-tests' assertion fails saying so.
    expect(catchingFindings(fault, r.findings)).toEqual([]);
    expect(isCaught(fault, r.findings)).toBe(false);
    expect(unrelatedChecks(fault, r.findings)).toContain('auth-rejected (harness error)');
    expect(() => expectCaughtPrecisely(fault, r.findings)).toThrow(
      /auth-any-token not caught by auth-rejected .*findings were .*auth-rejected \(harness error\)/,
    );
  });

  test('the same run with the check as it is: caught, so the failure above is the crash and nothing else', async () => {
    const r = await runAuth();
    expect(r.findings.filter((f) => f.harnessError === true)).toEqual([]);
    expect(isCaught(fault, r.findings)).toBe(true);
    expectCaughtPrecisely(fault, r.findings);
  });
});
