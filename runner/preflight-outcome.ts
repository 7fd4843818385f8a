/**
 * The preflight's answer judged like every other: its `GET /pets` is the first exchange of the run (on a fresh store
 * the only list that meets an empty one), so the response checks judge it and what they find is reported with the
 * suites' findings, as an outcome of its own.
 */
import { applyResponseChecks, responseChecks } from '../checks/registry.js';
import type { PlanKey } from '../config/config.js';
import { caseRef } from '../generators/case.js';
import { stampCase } from './context.js';
import type { Exchange } from '../http/exchange.js';
import type { EvidenceCount } from './findings.js';
import type { SuiteOutcome } from './outcome.js';

/** The outcome's name in the report's suites (not a suite one can ask for: the preflight always runs). */
const PREFLIGHT = 'preflight';

/** The case of what the preflight's answer shows: one request, before any suite. */
const CASE = caseRef("preflight: the run's first GET /pets", 'ordinary', "the run's first GET /pets");

export function preflightOutcome(ex: Exchange, key: PlanKey, seed: number): SuiteOutcome {
  const operation = ex.operation ?? 'listPets';
  const evidence: EvidenceCount[] = [];
  const found = applyResponseChecks({ exchange: ex, plan: key.limits }, (check, applies, passed) => {
    if (applies === false) return;
    for (const clause of applies === true ? [null] : applies)
      evidence.push({ checkId: check.id, clause, operation, applied: 1, passed: passed ? 1 : 0 });
  }).map((f) => stampCase(f, CASE));
  return {
    meta: {
      suite: PREFLIGHT,
      stats: { [operation]: { exchanges: 1, checksApplied: responseChecks.length, cases: 1 } },
      occurrences: {},
      evidence,
      exchanges: 1,
      durationMs: ex.durationMs,
      aborted: null,
      seed,
      observations: found.filter((f) => f.level === 'observation'),
      rateLimits: [],
    },
    findings: found.filter((f) => f.level !== 'observation'),
    failedTests: 0,
  };
}
