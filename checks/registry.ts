/** Every check, by id: the one catalogue the suites, the reports, the load tally and the tests read. Ids are unique. */
import type { AnyCheck, Applies, Check, Finding } from './check.js';
import type { CheckId } from './check-id.js';
import { authChecks } from './auth.js';
import { createChecks } from './create.js';
import { getChecks } from './get.js';
import { listChecks } from './list.js';
import { responseCheckList, type ResponseEvidence } from './response.js';
import { modelConsistency } from './stateful.js';
import { rateLimitChecks } from './rate-limit.js';
import { everyFormCounted } from './rate-limit-forms.js';
import { robustnessChecks } from './robustness.js';
import { runChecks } from './run.js';

export const responseChecks: readonly Check<ResponseEvidence, ResponseCheckId>[] = responseCheckList;

/** Whether a check can fail a run: it may report more than observations. */
export const canFail = (c: AnyCheck): boolean => c.levels.some((l) => l !== 'observation');

/** Every check with its literal id: what CheckId is derived from (checks/check-id.ts). */
export const checkList = Object.freeze([
  ...responseChecks,
  ...authChecks,
  ...listChecks,
  ...createChecks,
  ...getChecks,
  modelConsistency,
  ...robustnessChecks,
  ...rateLimitChecks,
  everyFormCounted,
  ...runChecks,
]);

export const allChecks: readonly AnyCheck[] = checkList;

/** The response checks' ids (what load's conformance and its profiles name). */
export type ResponseCheckId = (typeof responseCheckList)[number]['id'];

const byId = new Map<CheckId, AnyCheck>();
for (const c of checkList) {
  if (byId.has(c.id)) throw new Error(`checks: duplicate check id ${c.id}`);
  byId.set(c.id, c);
}

/** Whether a string read from outside (a replay file, a baseline) is the id of a check of the registry. */
export const isCheckId = (id: string): id is CheckId => byId.has(id as CheckId);

export function checkById(id: CheckId): AnyCheck {
  const c = byId.get(id);
  if (!c) throw new Error(`checks: unknown check id ${id}`);
  return c;
}

/** The response checks of the given ids, in catalogue order (an unknown id throws: a harness error). */
export function responseChecksById(ids: readonly ResponseCheckId[]): readonly Check<ResponseEvidence>[] {
  for (const id of ids)
    if (!responseChecks.some((c) => c.id === id)) throw new Error(`checks: ${id} is no response check`);
  return responseChecks.filter((c) => ids.includes(c.id));
}

/** What a response check did with one exchange: whether it applied (to which clauses) and passed. */
export type ResponseTally = (check: Check<ResponseEvidence>, applies: Applies, passed: boolean) => void;

/** Runs every response check on one exchange; `tally` is told what each applied to and passed (the evidence table). */
export function applyResponseChecks(ev: ResponseEvidence, tally?: ResponseTally): Finding[] {
  const out: Finding[] = [];
  for (const c of responseChecks) {
    const found = c.run(ev);
    if (found.length > 0) out.push(...found);
    if (tally) tally(c, c.applies(ev), found.length === 0);
  }
  return out;
}

/** A finding's signature: what tells distinct defects apart (check, operation and, for most checks, case class). */
export interface Signature {
  readonly checkId: CheckId;
  readonly operation: string | null;
  readonly caseClass: string | null;
}

export function signatureOf(f: Pick<Finding, 'checkId' | 'operation' | 'caseClass'>): Signature {
  const byCase = byId.get(f.checkId)?.signature !== 'operation';
  return { checkId: f.checkId, operation: f.operation, caseClass: byCase ? f.caseClass : null };
}

/**
 * A signature as one line of words: `no-5xx · createPet · invalid body: categoryId of type null`. Its check id may be
 * any string: a baseline may name a check this version no longer has (it then matches nothing).
 */
export function signatureText(s: Omit<Signature, 'checkId'> & { readonly checkId: string }): string {
  return [s.checkId, s.operation ?? 'any operation', ...(s.caseClass ? [s.caseClass] : [])].join(' · ');
}

/** The signature of a finding as a key (its words). */
export const signatureKey = (f: Pick<Finding, 'checkId' | 'operation' | 'caseClass'>): string =>
  signatureText(signatureOf(f));
