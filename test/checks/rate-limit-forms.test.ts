/** rl-every-form-counted on synthetic evidence: counted, not counted, headers missing, a window boundary, a 429. */
import { describe, expect, it } from 'vitest';
import {
  everyFormCounted,
  type FormCountEvidence,
  type FormSegment,
  sameWindow,
  segmentVerdict,
} from '../../checks/rate-limit-forms.js';
import { formPhaseMinimum, formRequests } from '../../runner/scenarios/rate-limit-forms.js';
import { exchange, NOW, NOW_S, type ExchangeInit } from './fixtures.js';

/** An answer of the Free key (60 per 60 s) with the given Remaining and Reset, `at` ms after NOW, answered in 10 ms. */
const reading = (remaining: number, at: number, reset = NOW_S + 30, more: ExchangeInit = {}) =>
  exchange({
    startedAt: NOW + at,
    durationMs: 10,
    ...more,
    headers: {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(reset),
      ...more.headers,
    },
  });

/** R0, three requests in the form, R1: 10 ms apart. */
function segment(r0: number, r1: number, o: { reset1?: number; form?: ExchangeInit[] } = {}): FormSegment {
  const form = (o.form ?? [{}, {}, {}]).map((init, i) => reading(r0 - 1 - i, 20 + 20 * i, NOW_S + 30, init));
  return {
    form: 'lower-case scheme',
    before: reading(r0, 0),
    sent: form,
    after: reading(r1, 100, o.reset1 ?? NOW_S + 30),
  };
}

const evidence = (segments: FormSegment[], unmeasured: FormCountEvidence['unmeasured'] = []): FormCountEvidence => ({
  key: 'free',
  plan: 'free',
  limit: 60,
  windowSeconds: 60,
  segments,
  unmeasured,
});
const levels = (ev: FormCountEvidence) => everyFormCounted.run(ev).map((f) => f.level);

describe('rl-every-form-counted', () => {
  it('passes a form counted like the plain one: Remaining fell by its three requests and the reading itself', () => {
    const ev = evidence([segment(50, 46)]);
    expect(segmentVerdict(ev.segments[0]!, 60, 60).kind).toBe('counted');
    expect(everyFormCounted.run(ev)).toEqual([]);
    expect(everyFormCounted.applies(ev)).toBe(true);
  });
  it('allows refill over the span and other traffic, which only lowers Remaining', () => {
    // 110 ms of a Free key refill at most ⌈0.112⌉ = 1: 47 is the bound; lower is other clients' requests.
    expect(levels(evidence([segment(50, 47)]))).toEqual([]);
    expect(levels(evidence([segment(50, 30)]))).toEqual([]);
  });
  it('fails a form the limiter did not count: Remaining fell by the plain reading alone, its arithmetic shown', () => {
    const [f] = everyFormCounted.run(evidence([segment(50, 49)]));
    expect(f?.level).toBe('violation');
    expect(f?.clause).toBe('8-rule-1-every-form-counted');
    expect(f?.operation).toBe('listPets');
    expect(f?.message).toMatch(
      /^requests accepted as lower-case scheme: the free key's minute limit \(60\) not charged with requests in another accepted Authorization form: 49\nlower-case scheme: Remaining 50 → 49 across 3 accepted in the form and the plain reading \(at most 50 − 3 − 1 \+ refill 1 over 110 ms = 47\)\n/,
    );
  });
  it('fails a form answered without the rate-limit headers, whatever the readings say', () => {
    const bare = { headers: { 'x-ratelimit-remaining': undefined, 'x-ratelimit-reset': undefined } };
    const [f] = everyFormCounted.run(evidence([segment(50, 46, { form: [bare, {}, {}] })]));
    expect(f?.level).toBe('violation');
    expect(f?.message).toMatch(
      /^requests of the free key accepted as lower-case scheme: X-RateLimit-Remaining missing\nlower-case scheme: 1 of its 3 accepted answers carried no X-RateLimit-Limit, -Remaining and -Reset\n/,
    );
  });
  it('reports a key once, naming every failing form', () => {
    const other = { ...segment(46, 45), form: 'upper-case scheme' };
    const found = everyFormCounted.run(evidence([segment(50, 49), other]));
    expect(found.map((f) => f.level)).toEqual(['violation']);
    expect(found[0]!.message.split('\n')[0]).toBe(
      "requests accepted as lower-case scheme, upper-case scheme: the free key's minute limit (60) not charged with requests in another accepted Authorization form: 49; the free key's minute limit (60) not charged with requests in another accepted Authorization form: 45",
    );
    // A second key of a plan: the causes name the plan, the lead names the key.
    const [second] = everyFormCounted.run({ ...evidence([segment(50, 49)]), key: 'free#2' });
    expect(second?.message.split('\n')[0]).toMatch(
      /^requests of the free#2 key accepted as lower-case scheme: the free key's/,
    );
    // Each form's arithmetic on its own line, in the order of the causes.
    expect(found[0]!.message.split('\n').slice(1, 3)).toEqual([
      expect.stringMatching(/^lower-case scheme: Remaining 50 → 49 /),
      expect.stringMatching(/^upper-case scheme: Remaining 46 → 45 /),
    ]);
  });
  it('judges nothing across a window boundary: not measured, an observation, never a pass', () => {
    const ev = evidence([segment(50, 59, { reset1: NOW_S + 90 })]);
    const v = segmentVerdict(ev.segments[0]!, 60, 60);
    expect(v).toMatchObject({ kind: 'not-measured' });
    expect(v.words).toMatch(/window boundary/);
    expect(everyFormCounted.applies(ev)).toBe(false);
    expect(levels(ev)).toEqual(['observation']);
    // A token bucket's Reset that moves a little is no boundary.
    expect(sameWindow(reading(5, 0, NOW_S + 3), reading(5, 0, NOW_S + 4), 60)).toBe(true);
    expect(sameWindow(reading(5, 0, NOW_S + 3), reading(5, 0, NOW_S + 63), 60)).toBe(false);
    expect(sameWindow(reading(5, 0, NOW_S + 3), reading(5, 0, NOW_S + 2), 60)).toBe(false);
  });
  it('judges nothing when refill over the span could hide the form’s requests', () => {
    // 10 per 2 s over 1.1 s: refill up to 6, more than the 3 requests.
    const s = segment(8, 7);
    const slow = { ...s, after: reading(7, 1100) };
    expect(segmentVerdict(slow, 10, 2)).toMatchObject({ kind: 'not-measured' });
    expect(everyFormCounted.applies({ ...evidence([slow]), limit: 10, windowSeconds: 2 })).toBe(false);
  });
  it('counts a 429 in the form as counted: the limiter is at work there', () => {
    const s = segment(3, 0, { form: [{}, { status: 429 }] });
    expect(segmentVerdict({ ...s, after: null }, 60, 60).kind).toBe('counted');
    expect(levels(evidence([{ ...s, after: null }]))).toEqual([]);
  });
  it('with no accepted form, applies to nothing (not exercised), and names forms it could not measure', () => {
    expect(everyFormCounted.applies(evidence([]))).toBe(false);
    expect(everyFormCounted.run(evidence([]))).toEqual([]);
    const found = everyFormCounted.run(evidence([], [{ form: 'Token scheme', why: 'no room in the window' }]));
    expect(found.map((f) => [f.level, f.message.split('\n')[0]])).toEqual([
      ['observation', "the free key's forms not measured: Token scheme: no room in the window"],
    ]);
  });
});

describe('the requests of each form', () => {
  it('are 3 when the limiter refills slowly, more when it refills within a few requests, capped', () => {
    expect(formRequests(60, 60, 50)).toBe(3);
    expect(formRequests(300, 60, 50)).toBe(3);
    expect(formRequests(10, 2, 100)).toBe(5);
    expect(formRequests(1000, 60, 50)).toBe(8);
  });
  it('the budget reserves the phase per key: for a Free key, the first reading, 9 probes, 3 forms and one retry', () => {
    expect(formPhaseMinimum(60)).toBe(1 + 9 + 3 * 3 + 4 + 1);
  });
});
