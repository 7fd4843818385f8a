/**
 * The rate-limit suite's last phase per key (issue 31): every form of the Authorization header that authenticates is
 * counted against the key (checks/rate-limit-forms.ts). After the key's recovery, from a quiet key: one plain reading
 * (`Bearer <key>`, GET /pets?limit=1), then each form of KEY_FORMS once; a form the target accepts gets a few requests
 * in all (formRequests: 3 unless the limiter refills fast), one at a time, and then a plain reading again, which the next form starts from. A form refused (401) costs
 * its one probe; whether the target counted it only lowers the next reading. Before each form the last reading must
 * leave room for the form's requests and the reading after them (never a 429 provoked): else the phase waits for the
 * window's Reset (bounded by one window) and reads again. A window boundary between the two readings, or a span
 * whose refill could hide the form's requests, is retried once, then recorded as not measured. A 429 ends the phase
 * for the key: nothing is sent after it. Every request counts against formPhaseRequests, which the budget reserves (formPhaseMinimum).
 */
import type { PlanName } from '../../spec/contract.js';
import type { Exchange } from '../../http/exchange.js';
import type { AuthSpec, OutgoingRequest } from '../../http/client.js';
import { readRateLimit } from '../../http/rate-limit-headers.js';
import { KEY_FORMS, type AuthVariant } from '../../generators/auth.js';
import { everyFormCounted, segmentVerdict, type FormSegment } from '../../checks/rate-limit-forms.js';
import { isAccepted } from '../../checks/rate-limit.js';
import { statusOf } from '../../checks/facts.js';
import type { RunContext } from '../context.js';
import * as req from '../requests.js';

/** Requests sent in each accepted form between two plain readings: at least this many, at most the max. */
export const FORM_REQUESTS = 3;
const FORM_REQUESTS_MAX = 8;
/** Accepted forms measured per key at most; others accepted are named, not measured (the budget's bound). */
export const FORMS_MEASURED_MAX = 3;
/** The latency the budget plans with, ms (a run measures its own). */
const NOMINAL_LATENCY_MS = 50;

/**
 * Requests in each form: more than the refill over the segment can explain. A segment spans about n + 2 latencies (the
 * readings either side), over which a limiter of `limit` per window refills x = latency × limit / window per request:
 * the form's n must exceed (n + 2) × x, so n > 2x / (1 − x), with a request to spare for rounding. A limiter that
 * refills faster than a request takes is capped: its forms are then recorded as not measured, never judged.
 */
export function formRequests(limit: number, windowSeconds: number, latencyMs: number): number {
  const x = (Math.max(1, latencyMs) * limit) / (windowSeconds * 1000);
  if (x >= 0.8) return FORM_REQUESTS_MAX;
  return Math.min(FORM_REQUESTS_MAX, Math.max(FORM_REQUESTS, Math.ceil((2 * x + 1) / (1 - x)) + 1));
}

/**
 * The phase's requests per key at most: the first reading, one probe per form, the rest of each measured form and its
 * reading after, one retry of a form, one reading after waiting for a Reset.
 */
export const formPhaseRequests = (n: number): number => 1 + KEY_FORMS.length + FORMS_MEASURED_MAX * n + (n + 1) + 1;

/** What the budget reserves per key (runner/scenarios/rate-limit.ts keyMinimum): a window of 60 s, a nominal latency. */
export const formPhaseMinimum = (requestsPerMinute: number): number =>
  formPhaseRequests(formRequests(requestsPerMinute, 60, NOMINAL_LATENCY_MS));
/** Margin added to a wait for the Reset (whole-second rounding, latency). */
const RESET_MARGIN_MS = 1250;

/** What the phase needs of the key's record in the rate-limit scenario. */
export interface FormsKey {
  readonly ctx: RunContext;
  readonly label: string;
  readonly plan: PlanName;
  /** The plan's requests per window and the window's length. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** The plain form. */
  readonly auth: AuthSpec;
  /** The key's median single-request latency so far, ms (sizes the forms' requests). */
  readonly latencyMs: number;
  /** Sends one request of the key (once none of the key's is in flight when `quiet`), recorded in its history. */
  send(request: OutgoingRequest, quiet: boolean): Promise<Exchange>;
  wait(ms: number, reason: string): Promise<void>;
  proven(what: string): void;
  unmeasured(what: string): void;
}

const WHAT = 'every authorization form counted';

/** The form's Authorization: the key in that form; a refused form is judged as the auth suite judges it (invalid). */
function formAuth(k: FormsKey, form: AuthVariant): AuthSpec {
  return {
    template: form.template,
    key: k.auth.key,
    keyPlan: form.valid ? k.plan : 'invalid',
    ...(form.repeated !== undefined && { repeated: form.repeated }),
  };
}

/** One key's phase as it goes: what was sent and seen, and the last plain reading with the requests sent since it. */
interface FormsRun {
  readonly k: FormsKey;
  /** Requests in each measured form. */
  readonly n: number;
  /** The requests the phase plans for the key (formPhaseRequests). */
  readonly cap: number;
  sent: number;
  /** Forms retried at most (a window boundary between the readings). */
  retries: number;
  readonly segments: FormSegment[];
  readonly unmeasured: { form: string; why: string }[];
  readonly refused: string[];
  /** Why the phase ended for the key; null while it goes on. */
  ended: string | null;
  last: Exchange;
  since: number;
}

/** A plain reading (`Bearer <key>`), sent once none of the key's requests is in flight. */
async function plain(s: { readonly k: FormsKey; sent: number }): Promise<Exchange> {
  s.sent++;
  return s.k.send(req.listPets(s.k.auth, '?limit=1'), true);
}

function inForm(s: FormsRun, form: AuthVariant): Promise<Exchange> {
  s.sent++;
  return s.k.send(req.listPets(formAuth(s.k, form), '?limit=1'), false);
}

/** Requests the last reading's Remaining has room for, less what was sent since it. */
function room(k: FormsKey, p: Exchange, since: number): number {
  const r = readRateLimit(p);
  return isAccepted(p) && r.limit === k.limit && r.remaining !== null ? r.remaining - since : -1;
}

/** A reading with room for `need` more, waiting for the Reset once if needed; null: none (the phase ends). */
async function roomy(s: FormsRun, need: number): Promise<Exchange | null> {
  const { k } = s;
  if (room(k, s.last, s.since) >= need) return s.last;
  if (statusOf(s.last) === 429) return null;
  if (s.since > 0) {
    if (s.sent + 1 > s.cap) return null;
    s.last = await plain(s);
    s.since = 0;
    if (room(k, s.last, s.since) >= need || statusOf(s.last) === 429)
      return room(k, s.last, s.since) >= need ? s.last : null;
  }
  const r = readRateLimit(s.last);
  const untilReset = r.resetAtMs === null ? k.windowSeconds * 1000 : r.resetAtMs - Date.now();
  const ms = Math.min(k.windowSeconds * 1000 + 2000, Math.max(0, untilReset)) + RESET_MARGIN_MS;
  if (s.sent + 1 > s.cap) return null;
  await k.wait(ms, `${WHAT}: waiting for its window to reset before measuring a form`);
  s.last = await plain(s);
  s.since = 0;
  return room(k, s.last, s.since) >= need ? s.last : null;
}

/** The rest of a form's requests after its accepted probe, one at a time, then the reading after (none after a 429). */
async function measure(s: FormsRun, form: AuthVariant, before: Exchange, probe: Exchange): Promise<FormSegment | null> {
  const list = [probe];
  while (list.length < s.n && isAccepted(list.at(-1)!)) {
    list.push(await inForm(s, form));
    s.since++;
  }
  const stopped = list.find((ex) => !isAccepted(ex));
  if (stopped !== undefined && statusOf(stopped) === 429) {
    s.ended = `a 429 in the form ${form.name}: nothing more was sent`;
    return { form: form.name, before, sent: list, after: null };
  }
  if (stopped !== undefined) {
    s.unmeasured.push({ form: form.name, why: `accepted, then answered ${statusOf(stopped) ?? 'nothing'}` });
    return null;
  }
  s.last = await plain(s);
  s.since = 0;
  return { form: form.name, before, sent: list, after: s.last };
}

/** A window boundary between the readings, or a span too long to tell: once per key, the form again from the reading after. */
async function remeasured(s: FormsRun, form: AuthVariant, segment: FormSegment, need: number): Promise<FormSegment> {
  const verdict = segmentVerdict(segment, s.k.limit, s.k.windowSeconds);
  if (verdict.kind !== 'not-measured' || segment.after === null || s.retries <= 0 || s.sent + need > s.cap)
    return segment;
  s.retries--;
  const again = await roomy(s, s.n + 1);
  if (again === null) return segment;
  const first = await inForm(s, form);
  s.since++;
  const retried = isAccepted(first) || statusOf(first) === 429 ? await measure(s, form, again, first) : null;
  return retried ?? segment;
}

/** One form: its probe from a reading with room, then (for the first few accepted) its measured segment. */
async function formStep(s: FormsRun, form: AuthVariant): Promise<void> {
  if (s.ended !== null) {
    s.unmeasured.push({ form: form.name, why: s.ended });
    return;
  }
  const measuring = s.segments.length < FORMS_MEASURED_MAX;
  // The probe, the rest of the form and the reading after; a form beyond the measured ones only its probe.
  const need = measuring ? s.n + 1 : 1;
  if (s.sent + need > s.cap) {
    s.ended = 'the phase reached the requests it plans per key';
    s.unmeasured.push({ form: form.name, why: s.ended });
    return;
  }
  const before = await roomy(s, need);
  if (before === null) {
    s.ended =
      statusOf(s.last) === 429
        ? 'a plain reading got 429: nothing more was sent'
        : 'no room for it in the window, even after waiting for the Reset';
    s.unmeasured.push({ form: form.name, why: s.ended });
    return;
  }
  const probe = await inForm(s, form);
  s.since++;
  if (!isAccepted(probe) && statusOf(probe) !== 429) {
    s.refused.push(form.name);
    return;
  }
  if (!measuring) {
    s.unmeasured.push({ form: form.name, why: `accepted; beyond the ${FORMS_MEASURED_MAX} forms measured per key` });
    if (statusOf(probe) === 429) s.ended = `a 429 in the form ${form.name}: nothing more was sent`;
    return;
  }
  const segment = await measure(s, form, before, probe);
  if (segment === null) return;
  const final = await remeasured(s, form, segment, need);
  s.segments.push(final);
}

/** Runs the phase for one key and judges it; returns null (the scenario's phases' shape). */
export async function everyFormPhase(k: FormsKey): Promise<null> {
  const n = formRequests(k.limit, k.windowSeconds, k.latencyMs);
  const cap = formPhaseRequests(n);
  const first = { k, sent: 0 };
  const reading = await plain(first);
  const s: FormsRun = {
    k,
    n,
    cap,
    sent: first.sent,
    retries: 1,
    segments: [],
    unmeasured: [],
    refused: [],
    ended: null,
    last: reading,
    since: 0,
  };
  for (const form of KEY_FORMS) await formStep(s, form);
  k.ctx.judge(everyFormCounted, {
    key: k.label,
    plan: k.plan,
    limit: k.limit,
    windowSeconds: k.windowSeconds,
    segments: s.segments,
    unmeasured: s.unmeasured,
  });
  report(k, s.segments, s.unmeasured, s.refused, s.sent);
  return null;
}

/** What the phase proved and left unmeasured, in the key's results. */
function report(
  k: FormsKey,
  segments: readonly FormSegment[],
  unmeasured: readonly { form: string; why: string }[],
  refused: readonly string[],
  sent: number,
): void {
  const verdicts = segments.map((s) => ({ s, v: segmentVerdict(s, k.limit, k.windowSeconds) }));
  const counted = verdicts.filter((x) => x.v.kind === 'counted');
  if (segments.length === 0 && unmeasured.length === 0)
    k.unmeasured(
      `${WHAT}: the key was refused in every other form (${refused.join(', ')}), so there was none to measure (${sent} requests)`,
    );
  if (counted.length > 0 && verdicts.every((x) => x.v.kind !== 'not-counted' && x.v.kind !== 'no-headers'))
    k.proven(`${WHAT}: ${counted.map((x) => `${x.s.form} (${x.v.words})`).join('; ')}`);
  for (const x of verdicts.filter((v) => v.v.kind === 'not-measured'))
    k.unmeasured(`${WHAT}: ${x.s.form}: ${x.v.words}`);
  for (const u of unmeasured) k.unmeasured(`${WHAT}: ${u.form}: ${u.why}`);
}
