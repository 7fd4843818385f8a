/**
 * Every form of the Authorization header that authenticates is counted (issue 31; clause 8-rule-1-every-form-counted):
 * a framework's token helper may accept forms (another scheme, the scheme in another case, other spacing, a repeated
 * header) that its limiter's own parser does not read, so that those requests are served but never counted. The
 * rate-limit scenario sends a few requests in each accepted form between two plain readings of the key's Remaining,
 * each read from a quiet key (runner/scenarios/rate-limit-forms.ts); this check only compares the numbers.
 */
import type { PlanName } from '../spec/contract.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitNumber } from '../http/rate-limit-headers.js';
import type { Cause } from './cause.js';
import { defineCheck, finding, observation, type Check, type Finding } from './check.js';
import { statusOf } from './facts.js';
import { burstAllowance, isAccepted } from './rate-limit.js';

/** One accepted form, measured between two plain readings of the key (`Bearer <key>`, GET /pets). */
export interface FormSegment {
  /** The form's name (generators/auth.ts KEY_FORMS). */
  readonly form: string;
  /** The plain reading before, from a quiet key. */
  readonly before: Exchange;
  /** The form's requests, in order: accepted, or a 429 that ended them. */
  readonly sent: readonly Exchange[];
  /** The plain reading after, once every request of the form was answered (null after a 429: nothing is sent then). */
  readonly after: Exchange | null;
}

export interface FormCountEvidence {
  /** The key's label (its plan, or plan#2). */
  readonly key: string;
  readonly plan: PlanName;
  /** The plan's requests per window, and the window's length. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Accepted forms measured. */
  readonly segments: readonly FormSegment[];
  /** Forms that could not be measured, and why (accepted beyond the forms measured, no room left in the window). */
  readonly unmeasured: readonly { readonly form: string; readonly why: string }[];
}

const secs = (ms: number) => `${Math.round(ms)} ms`;
const end = (ex: Exchange) => ex.startedAt + ex.durationMs;
const hasHeaders = (ex: Exchange) =>
  rateLimitNumber(ex, 'limit') !== null &&
  rateLimitNumber(ex, 'remaining') !== null &&
  rateLimitNumber(ex, 'reset') !== null;

export type SegmentVerdict =
  | { readonly kind: 'counted'; readonly words: string }
  | { readonly kind: 'not-counted'; readonly words: string }
  | { readonly kind: 'no-headers'; readonly words: string }
  | { readonly kind: 'not-measured'; readonly words: string };

/**
 * Whether a window boundary lies between two plain readings: any restart of a window (fixed, aligned or sliding)
 * moves the Reset a whole window later (give or take a second of whole-second rounding); a Reset that moves a
 * little (a token bucket's "full again") is none, and refill is allowed for below. A Reset that moves back is no
 * window the arithmetic can follow either.
 */
export function sameWindow(before: Exchange, after: Exchange, windowSeconds: number): boolean {
  const r0 = rateLimitNumber(before, 'reset');
  const r1 = rateLimitNumber(after, 'reset');
  if (r0 === null || r1 === null) return false;
  const moved = r1 - r0;
  return moved >= 0 && moved < Math.max(1, windowSeconds - 1);
}

/**
 * One form's verdict. From plain Remaining R0 (its own request counted) the form's n accepted requests and the later
 * plain reading itself leave at most R0 − n − 1, plus what refill over the span explains (`burstAllowance`: zero
 * for a fixed window it never exceeds, whatever the algorithm); other clients' requests only lower it. A 429 in the
 * form is the limiter at work: counted. When the allowance reaches n, an uncounted form would pass too: not measured.
 */
export function segmentVerdict(s: FormSegment, limit: number, windowSeconds: number): SegmentVerdict {
  const accepted = s.sent.filter(isAccepted);
  const bare = accepted.filter((ex) => !hasHeaders(ex));
  if (bare.length > 0)
    return {
      kind: 'no-headers',
      words: `${bare.length} of its ${accepted.length} accepted answers carried no X-RateLimit-Limit, -Remaining and -Reset`,
    };
  if (s.sent.some((ex) => statusOf(ex) === 429))
    return { kind: 'counted', words: `refused with 429 after ${accepted.length} accepted` };
  if (s.after === null) return { kind: 'not-measured', words: 'no plain reading after it' };
  const r0 = rateLimitNumber(s.before, 'remaining');
  const r1 = rateLimitNumber(s.after, 'remaining');
  const minute = (ex: Exchange) => isAccepted(ex) && rateLimitNumber(ex, 'limit') === limit;
  if (r0 === null || r1 === null || !minute(s.before) || !minute(s.after))
    return { kind: 'not-measured', words: 'the plain readings did not both describe the minute window' };
  if (!sameWindow(s.before, s.after, windowSeconds))
    return {
      kind: 'not-measured',
      words: `a window boundary lay between the plain readings (Reset ${rateLimitNumber(s.before, 'reset')} → ${rateLimitNumber(s.after, 'reset')})`,
    };
  const n = accepted.length;
  const spanMs = end(s.after) - s.before.startedAt;
  const allowance = burstAllowance(spanMs, limit, windowSeconds);
  if (n === 0 || allowance >= n)
    return {
      kind: 'not-measured',
      words: `the refill ${spanMs} ms can explain (${allowance}) would hide its ${n} requests`,
    };
  const bound = r0 - n - 1 + allowance;
  const arithmetic = `Remaining ${r0} → ${r1} across ${n} accepted in the form and the plain reading (at most ${r0} − ${n} − 1 + refill ${allowance} over ${secs(spanMs)} = ${bound})`;
  return r1 > bound ? { kind: 'not-counted', words: arithmetic } : { kind: 'counted', words: arithmetic };
}

/** A failing form's cause: a limit that does not count it, or an answer without the rate-limit headers. */
function formCause(ev: FormCountEvidence, s: FormSegment, v: SegmentVerdict): Cause {
  if (v.kind === 'no-headers') {
    return { kind: 'header', name: 'X-RateLimit-Remaining', problem: 'missing', value: null };
  }
  return {
    kind: 'limit',
    plan: ev.plan,
    window: 'minute',
    problem: 'form-not-counted',
    limit: ev.limit,
    observed: s.after ? rateLimitNumber(s.after, 'remaining') : null,
    reported: rateLimitNumber(s.before, 'limit'),
  };
}

export const everyFormCounted: Check<FormCountEvidence, 'rl-every-form-counted'> = defineCheck({
  // Clause 8-rule-1-every-form-counted (section 8 rule 1): every authenticated request counts against its key.
  id: 'rl-every-form-counted',
  clauses: ['8-rule-1-every-form-counted'],
  levels: ['violation', 'observation'],
  causes: ['limit', 'header'],
  signature: 'operation',
  area: 'rate-limit',
  title:
    'Requests in every Authorization form the target accepts are counted against the key, and carry the rate-limit headers.',
  appliesTo: {
    what: 'keys with an alternative Authorization form accepted and measured within one window',
    test: (ev) => ev.segments.some((s) => segmentVerdict(s, ev.limit, ev.windowSeconds).kind !== 'not-measured'),
  },
  run: (ev) => {
    if (!Array.isArray(ev.segments)) return [];
    const judged = ev.segments.map((s) => ({ s, v: segmentVerdict(s, ev.limit, ev.windowSeconds) }));
    const failing = judged.filter((j) => j.v.kind === 'not-counted' || j.v.kind === 'no-headers');
    const out: Finding[] = [];
    if (failing.length > 0) {
      const exchanges = failing.flatMap(({ s }) => [s.before, ...s.sent, ...(s.after ? [s.after] : [])]);
      // The causes, one per failing form and in its order, say what failed and the key's plan; the forms (and the key's
      // label, where no cause names it) come before them, each form's arithmetic after them.
      const named = ev.key !== ev.plan || failing.some((j) => j.v.kind === 'no-headers');
      const lead = `requests${named ? ` of the ${ev.key} key` : ''} accepted as ${failing.map((j) => j.s.form).join(', ')}:`;
      out.push(
        finding(
          everyFormCounted,
          exchanges,
          {
            lead,
            because: `${failing.map(({ s, v }) => `${s.form}: ${v.words}`).join('\n')}\nthe spec documents that every request counts against its key's limit (section 8 rule 1), with the X-RateLimit headers on every response`,
          },
          {
            operation: 'listPets',
            keyPlan: ev.plan,
            expected: 'each accepted form counted like Bearer <key>, with X-RateLimit-*',
            actual: failing.map(({ s, v }) => `${s.form}: ${v.kind}`).join(', '),
            causes: failing.map(({ s, v }) => formCause(ev, s, v)),
          },
        ),
      );
    }
    const notMeasured = [
      ...judged.filter((j) => j.v.kind === 'not-measured').map(({ s, v }) => `${s.form}: ${v.words}`),
      ...ev.unmeasured.map((u) => `${u.form}: ${u.why}`),
    ];
    if (notMeasured.length > 0) {
      const exchanges = judged
        .filter((j) => j.v.kind === 'not-measured')
        .flatMap(({ s }) => [s.before, ...(s.after ? [s.after] : [])]);
      out.push(
        observation(
          everyFormCounted,
          exchanges,
          `the ${ev.key} key's forms not measured: ${notMeasured.join('; ')}\nnothing was judged for them`,
          { operation: 'listPets', keyPlan: ev.plan },
        ),
      );
    }
    return out;
  },
});
