/**
 * Precision of the fault meta-tests: a fault's run reports the check the fault names and no other check, except the
 * few listed here, each with its reason. A fault that trips five checks hides which check does the work, so this
 * list is small and reviewed: "echo" marks a second finding of one root cause that a check should stop reporting
 * (the checks judge each fact once); "also" marks a second, separate breach the same defect really causes.
 */
import { expect } from 'vitest';
import type { Finding } from '../../checks/check.js';
import type { CheckId } from '../../checks/check-id.js';
import { catchingFindings, type Fault } from '../../reference/faults.js';

export const alsoTrips: Readonly<Record<string, Readonly<Partial<Record<CheckId, string>>>>> = {
  // --- functional suites
  'auth-403': { 'status-documented': 'echo: the 403 is judged again as an undocumented status' },
  'pet-missing-categoryId': {
    'create-retrievable': 'echo: the fetched pet lacks categoryId, so it differs from the one sent',
  },
  'ids-beyond-int64': {
    'create-retrievable': 'also: an id beyond int64 cannot be fetched back by its documented type',
  },
  'create-202': { 'create-201': 'echo: the 202 fails both create-201 and the documented-status check' },
  'create-200': { 'status-documented': 'echo: the 200 fails both create-201 and the documented-status check' },
  'list-limit-ignored': { 'list-default-limit': 'also: ignoring limit also ignores its default of 20' },
  'list-limit-100-rejected': {
    'status-documented': 'echo: the 400 fails both list-200 and the documented-status check',
  },
  'list-limit-1-rejected': { 'status-documented': 'echo: the 400 fails both list-200 and the documented-status check' },
  'create-invalid-status-accepted': {
    'body-schema': 'also: the stored status outside the enum comes back in Pet bodies',
  },
  'create-int64-rounded': { 'int64-exact': 'also: the rounded categoryId is served back as a number beyond 2^53' },
  'create-status-echo-only': { 'create-listed': 'also: the list shows the stored status, not the one the 201 echoed' },
  'create-malformed-500': {
    'create-invalid-rejected': 'echo: the 500 fails both no-5xx and the invalid-body rejection check',
  },
  'get-odd-404': { 'create-retrievable': 'also: created pets with odd ids cannot be fetched back' },
  'get-absent-500': { 'get-404': 'echo: the 500 fails both no-5xx and get-404' },
  'get-absent-200-null': { 'body-schema': 'echo: the null 200 fails both get-404 and the Pet schema' },
  'auth-prototype-key-500': { 'auth-rejected': 'echo: the 500 fails both no-5xx and the 401 a bad key must get' },
  'deep-nesting-500': {
    'create-invalid-rejected': 'echo: the 500 for the deep body that must be refused fails both no-5xx and its 400',
  },
  'html-error-page': { 'json-parses': 'echo: the HTML page fails both its Content-Type and the JSON it must be' },
  'success-html-for-accept': {
    'json-parses': 'echo: the HTML page fails both its Content-Type and the JSON it must be',
  },
  'create-empty-status-stored': {
    'body-schema': 'also: the stored empty status, outside the enum, comes back in Pet bodies',
  },
  'rl-limit-constant': {
    'rate-limit-remaining-range': 'also: Remaining counts the real plan limit, above the 100 shown',
  },
  // --- rate-limit suite
  'rl-503': { 'rl-429-shape': 'echo: the 503 fails no-5xx and is judged again by the rate-limit check' },
  'rl-ban-403': { 'status-documented': 'echo: the ban 403 is judged again as an undocumented status' },
  'rl-shared-limits': {
    'rate-limit-limit-plan': "also: every key shows the first key's limit, not its plan's",
    'rl-not-stricter-than-plan': "also: a roomier plan is refused at the first key's smaller limit",
    'rl-burst-enforced': 'also: keys measured side by side drain the one shared counter under each other',
  },
  'rl-free-numbers': {
    'rl-per-key': "also: every key is held to the Free plan's limit, not its own",
    'rl-burst-enforced': "also: a key whose test plan is smaller than the spec's Free plan admits Free's numbers",
  },
};

/**
 * Faults whose check is not the head of their one defect: their evidence is another check's too, and that check names
 * the cause (a 202 and a 200 both fail create-201 and the documented-status check, create-201 heads; one Limit for
 * every key: rate-limit-limit-plan heads, rl-per-key is folded under it).
 */
export const headedByAnother: Readonly<Record<string, CheckId>> = {
  'create-202': 'create-201',
  'rl-shared-limits': 'rate-limit-limit-plan',
};

/** What the precision rule needs of a fault: its id (for alsoTrips) and the check it names. */
type Named = Pick<Fault, 'id' | 'catches'>;

/**
 * Checks a fault's run reported (violation or warning) that are neither the check it names nor an allowed one, and
 * every check that threw (a harness error is a defect of this tool, whichever check it is, the fault's own included).
 */
export function unrelatedChecks(fault: Named, findings: readonly Finding[]): string[] {
  const allowed = alsoTrips[fault.id] ?? {};
  const real = findings.filter((f) => f.level !== 'observation' && f.harnessError !== true);
  const failing = new Set(real.map((f) => f.checkId));
  const crashed = new Set(findings.filter((f) => f.harnessError === true).map((f) => `${f.checkId} (harness error)`));
  return [...[...failing].filter((id) => id !== fault.catches && !(id in allowed)), ...crashed].sort();
}

/** The assertion message: what the unrelated checks said, one finding of each. */
export function unrelatedMessage(fault: Named, findings: readonly Finding[]): string {
  const unrelated = unrelatedChecks(fault, findings);
  const first = unrelated.map((label) => {
    const id = label.replace(/ \(harness error\)$/, '');
    const crashed = label !== id;
    return findings.find((f) => f.checkId === id && (f.harnessError === true) === crashed)!;
  });
  return `${fault.id} also tripped:\n${first.map((f) => `${f.checkId} on ${f.operation}: ${f.message}`).join('\n')}`;
}

/** The checks a run reported (violation or warning, harness errors marked), for assertion messages. */
export function reported(findings: readonly Finding[]): string {
  const ids = findings
    .filter((f) => f.level !== 'observation')
    .map((f) => (f.harnessError ? `${f.checkId} (harness error)` : f.checkId));
  return [...new Set(ids)].join(', ') || 'none';
}

/**
 * The fault meta-tests' verdict on one run with `fault` on: a real finding of the check it names caught it (never
 * that check's harness error: `catchingFindings`), and no unrelated check reported anything (`unrelatedChecks`).
 * `context` prefixes the messages (a seed).
 */
export function expectCaughtPrecisely(fault: Fault, findings: readonly Finding[], context = ''): void {
  const at = context ? `${context}: ` : '';
  expect(
    catchingFindings(fault, findings).length,
    `${at}${fault.id} not caught by ${fault.catches} (${fault.description}): findings were ${reported(findings)}`,
  ).toBeGreaterThan(0);
  expect(unrelatedChecks(fault, findings), `${at}${unrelatedMessage(fault, findings)}`).toEqual([]);
}
