/**
 * What a run left out, in words: the suites asked for that a limit or a policy kept from running (or from finishing
 * their coverage), each key whose rate limits were not measured, and every random phase when none ran. The verdict
 * (reports/verdict.ts) reads the list: a run that left something out is INCOMPLETE, never CONFORMANT. A random phase
 * cut short by its share of the budget is not in the list (the run limits name it): the coverage phase ran whole.
 */
import { isRateSuite, type SuiteName } from '../config/config.js';
import { suiteDefinition } from '../runner/suites.js';
import { MAX_BURST_LIMIT } from '../runner/scenarios/rate-limit.js';
import type { SuiteOutcome } from './conformance-report.js';
import type { SuiteLeftOut } from './evidence.js';
import {
  exerciseRates,
  keyMeasured,
  keyNotExercised,
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
  return leftOutParts(input).map((p) => p.line);
}

/** The suites a limit or a policy left out, in whole or in part, each with why: the cells only they could judge. */
export function suitesLeftOut(input: CompletenessInput): SuiteLeftOut[] {
  return leftOutParts(input).flatMap((p) => (p.suite === null ? [] : [{ suite: p.suite, line: p.line }]));
}

/** One thing left out: its line, and the suite it belongs to (null: the run's, every random phase). */
interface LeftOutPart {
  readonly suite: string | null;
  readonly line: string;
}

const part = (suite: string | null, why: string): LeftOutPart => ({
  suite,
  line: suite === null ? why : `${suite}: ${why}`,
});

function leftOutParts(input: CompletenessInput): LeftOutPart[] {
  const out: LeftOutPart[] = input.leftOutUpFront.map((l) => {
    const at = l.indexOf(':');
    return { suite: at < 0 ? null : l.slice(0, at), line: l };
  });
  const upFront = new Set(out.map((l) => l.suite));
  const bySuite = new Map(input.outcomes.map((o) => [o.meta.suite, o]));
  const functional: string[] = [];
  for (const suite of input.requested) {
    if (upFront.has(suite)) continue;
    const o = bySuite.get(suite);
    if (!o) {
      out.push(part(suite, 'did not run'));
      continue;
    }
    const stop = o.meta.stopped ?? o.meta.aborted;
    if (isRateSuite(suite)) {
      out.push(...rateLimitGaps(suite, o, stop?.message ?? null).map((line) => ({ suite, line })));
      continue;
    }
    functional.push(suite);
    if (o.meta.exchanges === 0) out.push(part(suite, `sent nothing${stop ? ` (${stop.message})` : ''}`));
    else if (stop && !(suite in input.coverage))
      out.push(part(suite, `stopped in its coverage phase after ${o.meta.exchanges} requests (${stop.message})`));
    else if (!stop) {
      // An operation the suite executed no case of (say, getPet with no pet to get, every create having failed) was
      // not measured, whatever else failed: a baseline that knows the cause must not make it a pass.
      const idle = suiteDefinition(suite as SuiteName).operations.filter((op) => (o.meta.stats[op]?.cases ?? 0) === 0);
      if (idle.length > 0) out.push(part(suite, `executed no case of ${idle.join(', ')}`));
    }
  }
  // Every random phase left out: no functional suite sent a request beyond its coverage phase.
  const ran = functional.filter((s) => (bySuite.get(s)?.meta.exchanges ?? 0) > 0);
  const random = (s: string) => (s in input.coverage ? bySuite.get(s)!.meta.exchanges - input.coverage[s]! : 0);
  if (input.randomCut && ran.length > 0 && ran.every((s) => random(s) <= 0))
    out.push(
      part(null, `every random phase: no suite sent a random case beyond its coverage phase (${ran.join(', ')})`),
    );
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
    // Its burst ran and no refusal came (a failure of it is a violation, reported as such): not exercised.
    else if (keyNotExercised(k) && !o.findings.some((f) => f.level === 'violation' && f.keyPlan === k.plan))
      out.push(
        `rate-limit: the ${k.key} key's enforcement (${k.limit} per ${k.windowSeconds} s) was not exercised: no 429 within its burst of ${k.burst!.accepted} accepted requests; ${exerciseRates(k)}`,
      );
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

/**
 * The limits the tool never measures by design, each with why: a key whose limit is beyond what a bounded burst
 * measures (MAX_BURST_LIMIT per window; the embedded server's Enterprise key). Every output names them; they leave
 * the verdict as it is (a run cannot be made complete by asking for them).
 */
export function notMeasuredByDesign(outcomes: readonly SuiteOutcome[]): string[] {
  return outcomes.flatMap((o) =>
    o.meta.rateLimits.flatMap((r) =>
      r.suite === 'rate-limit' && r.limit > MAX_BURST_LIMIT
        ? [
            `rate-limit: the ${r.key} key's limits (${r.limit} per ${r.windowSeconds} s): beyond what a bounded burst measures (more than ${MAX_BURST_LIMIT} requests per window), by design`,
          ]
        : [],
    ),
  );
}
