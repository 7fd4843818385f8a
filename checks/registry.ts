/** Every check of the catalogue (/work/notes/checks.md), by id. Ids are unique; a test holds the catalogue to it. */
import type { Check, Finding } from './check.js';
import { authChecks } from './auth.js';
import { createChecks } from './create.js';
import { getChecks } from './get.js';
import { listChecks } from './list.js';
import { responseCheckList, type ResponseEvidence } from './response.js';
import { modelConsistency } from './stateful.js';
import { rateLimitChecks } from './rate-limit.js';

export const responseChecks: readonly Check<ResponseEvidence>[] = responseCheckList;

export const allChecks: readonly Check<any>[] = Object.freeze([
  ...responseChecks,
  ...authChecks,
  ...listChecks,
  ...createChecks,
  ...getChecks,
  modelConsistency,
  ...rateLimitChecks,
]);

const byId = new Map<string, Check<any>>();
for (const c of allChecks) {
  if (byId.has(c.id)) throw new Error(`checks: duplicate check id ${c.id}`);
  byId.set(c.id, c);
}

export function checkById(id: string): Check<any> {
  const c = byId.get(id);
  if (!c) throw new Error(`checks: unknown check id ${id}`);
  return c;
}

/** Runs every response check on one exchange. */
export function applyResponseChecks(ev: ResponseEvidence): Finding[] {
  return responseChecks.flatMap((c) => c.run(ev));
}
