/**
 * What a run left out, in words: the suites asked for that a limit or a policy kept from running (or from finishing
 * their coverage), each key whose rate limits were not measured, and every random phase when none ran. The verdict
 * (reports/verdict.ts) reads the list: a run that left something out is INCOMPLETE, never CONFORMANT. A random phase
 * cut short by its share of the budget is not in the list (the run limits name it): the coverage phase ran whole.
 */
import { isRateSuite, type SuiteName } from '../config/config.js';
import { suiteDefinition } from '../runner/suites.js';
import type { SuiteOutcome } from './conformance-report.js';
import {
  keyMeasured,
  leftOutByLimit,
  type KeyRateLimitResult,
  quotaMeasured,
  whyNotMeasured,
} from '../runner/rate-limit-results.js';

export interface CompletenessInput {
  /** The suites the run was asked for (before any policy took one out). */
  readonly requested: readonly string[];
  /** Suites left out before the run began, each with why (e.g. `rate-limit: ...`). */
  readonly leftOutUpFront: readonly string[];
  readonly outcomes: readonly SuiteOutcome[];
  /** Requests each suite sent in its coverage phase, for the suites that reached their random phase (the guard's). */
  readonly coverage: Readonly<Record<string, number>>;
  /** Whether a limit of the run cut a random phase short (not a --runs too small to send one). */
  readonly randomCut: boolean;
}

export function notMeasured(input: CompletenessInput): string[] {
  const out = [...input.leftOutUpFront];
  const upFront = new Set(input.leftOutUpFront.map((l) => l.split(':')[0]));
  const bySuite = new Map(input.outcomes.map((o) => [o.meta.suite, o]));
  const functional: string[] = [];
  for (const suite of input.requested) {
    if (upFront.has(suite)) continue;
    const o = bySuite.get(suite);
    if (!o) {
      out.push(`${suite}: did not run`);
      continue;
    }
    const stop = o.meta.stopped ?? o.meta.aborted;
    if (isRateSuite(suite)) {
      out.push(...rateLimitGaps(suite, o, stop?.message ?? null));
      continue;
    }
    functional.push(suite);
    if (o.meta.exchanges === 0) out.push(`${suite}: sent nothing${stop ? ` (${stop.message})` : ''}`);
    else if (stop && !(suite in input.coverage))
      out.push(`${suite}: stopped in its coverage phase after ${o.meta.exchanges} requests (${stop.message})`);
    else if (!stop) {
      // An operation the suite executed no case of (say, getPet with no pet to get, every create having failed) was
      // not measured, whatever else failed: a baseline that knows the cause must not make it a pass.
      const idle = suiteDefinition(suite as SuiteName).operations.filter((op) => (o.meta.stats[op]?.cases ?? 0) === 0);
      if (idle.length > 0) out.push(`${suite}: executed no case of ${idle.join(', ')}`);
    }
  }
  // Every random phase left out: no functional suite sent a request beyond its coverage phase.
  const ran = functional.filter((s) => (bySuite.get(s)?.meta.exchanges ?? 0) > 0);
  const random = (s: string) => (s in input.coverage ? bySuite.get(s)!.meta.exchanges - input.coverage[s]! : 0);
  if (input.randomCut && ran.length > 0 && ran.every((s) => random(s) <= 0))
    out.push(`every random phase: no suite sent a random case beyond its coverage phase (${ran.join(', ')})`);
  return out;
}

/**
 * Each key of the rate-limit (or quota) suite that a limit of the run left out, and the suite itself when it measured
 * no key at all (whatever the reason). A key the suite cannot measure by design (a limit too large for a bounded burst)
 * or that the target kept from being measured (its daily quota spent) says so in the suite's lines, with no ✓; while
 * another key was measured, the suite was.
 */
function rateLimitGaps(suite: string, o: SuiteOutcome, stop: string | null): string[] {
  const rows = o.meta.rateLimits;
  const out: string[] = [];
  let measured = 0;
  for (const r of rows) {
    if (r.suite === 'quota') {
      if (quotaMeasured(r)) measured++;
      else
        out.push(
          `quota: the ${r.plan} key's daily quota (stopped: ${r.stopped ?? 'nothing sent'}${stop ? `; ${stop}` : ''})`,
        );
      continue;
    }
    const k = r as KeyRateLimitResult;
    if (keyMeasured(k)) measured++;
    else if (leftOutByLimit(k))
      out.push(`rate-limit: the ${k.key} key's limits (${k.limit} per ${k.windowSeconds} s): ${whyNotMeasured(k)}`);
  }
  if (measured === 0 && out.length === 0) {
    const why =
      rows.length === 0
        ? (stop ?? 'no key with known limits')
        : rows.map((r) => (r.suite === 'quota' ? r.plan : `${r.key}: ${whyNotMeasured(r)}`)).join('; ');
    out.push(`${suite}: measured no key (${why})`);
  }
  return out;
}
