// The latency trend on its own (issue 28), its time injected: every answer carries when it was asked and how long it
// took, so the 20 s a slow-down must hold are the exchanges' own, not this test's. Growth is established over time and
// like with like, confirmed after a rest, and a busy host is named as such.
import { describe, expect, it } from 'vitest';
import { TREND_SPAN_MS } from '../../checks/run.js';
import type { Exchange } from '../../http/exchange.js';
import { eventLoopLag, type LagSource } from '../../runner/lag.js';
import { RestGate } from '../../runner/rest.js';
import { LatencyTrend, nestingDepth, requestClass, type Slowing } from '../../runner/trend.js';

const T0 = 1_900_000_000_000;
let seq = 0;

interface AnswerInit {
  readonly at: number;
  readonly ms: number;
  readonly status?: number;
  readonly method?: string;
  readonly operation?: Exchange['operation'];
  readonly body?: Uint8Array | null;
}

/** An answer asked at `at` (ms after T0) that took `ms`. */
const answer = ({
  at,
  ms,
  status = 200,
  method = 'GET',
  operation = 'listPets',
  body = null,
}: AnswerInit): Exchange => ({
  seq: ++seq,
  operation,
  keyPlan: 'free',
  request: { method, url: 'http://127.0.0.1:1/v1/pets', path: '/pets', headers: {}, body },
  response: {
    status,
    headers: {},
    body: new Uint8Array(2),
    bodyText: '[]',
    truncated: false,
    json: [],
    jsonError: null,
  },
  error: null,
  startedAt: T0 + at,
  durationMs: ms,
});

/** A lag source that reports a fixed lag (null: none measured). */
const lagOf = (ms: number | null): LagSource => ({ tick: () => {}, maxBetween: () => ms });
const quiet = lagOf(5);

/** Feeds one answer every `every` ms from `from` to `to`, its latency `latency(t)`; the first slowing, and when. */
function feed(
  trend: LatencyTrend,
  latency: (t: number) => number,
  {
    from = 0,
    to = 120_000,
    every = 100,
    ...init
  }: Partial<AnswerInit> & { from?: number; to?: number; every?: number } = {},
): { at: number; slowing: Slowing } | null {
  for (let t = from; t < to; t += every) {
    const slowing = trend.add(answer({ ...init, at: t, ms: latency(t) }));
    if (slowing) return { at: t, slowing };
  }
  return null;
}

/** 10 ms, then 40 ms more with every second from `from` on: a target that keeps slowing down. */
const leaking =
  (from = 0) =>
  (t: number) =>
    10 + Math.max(0, t - from) * 0.04;

describe('a slowing target is established over time', () => {
  it('only after its growth held 20 s over successive windows, with the figures', () => {
    const trend = new LatencyTrend({ lag: quiet });
    const hit = feed(trend, leaking());
    expect(hit).not.toBeNull();
    // Answered 20 s after the first answer at least (asked a latency earlier).
    expect(hit!.at + leaking()(hit!.at)).toBeGreaterThanOrEqual(TREND_SPAN_MS);
    const { windows, baselineMs, requestClass: cls } = hit!.slowing.evidence;
    expect(cls).toBe('GET /pets 200');
    expect(windows.length).toBeGreaterThanOrEqual(4);
    expect(windows.at(-1)!.endAt - windows[0]!.startAt).toBeGreaterThanOrEqual(TREND_SPAN_MS);
    expect(baselineMs).toBeLessThan(50);
  });

  it('never a target that slowed down for 5 s and recovered, nor one slow but steady, nor noise', () => {
    expect(feed(new LatencyTrend({ lag: quiet }), (t) => (t >= 10_000 && t < 15_000 ? 10 + (t - 10_000) : 10))).toBe(
      null,
    );
    expect(feed(new LatencyTrend({ lag: quiet }), () => 900)).toBeNull();
    expect(feed(new LatencyTrend({ lag: quiet }), (t) => 5 + ((t * 7919) % 400))).toBeNull();
    // A host stalled for seconds, twice: latency jumps tens of times, then recovers.
    const stalls = (t: number) => (t % 30_000 < 4_000 ? 600 : 12);
    expect(feed(new LatencyTrend({ lag: quiet }), stalls)).toBeNull();
  });

  it('compares each class of request with its own: a slower operation later in the run is no trend', () => {
    const trend = new LatencyTrend({ lag: quiet });
    // Reads first, then creations that are slower but steady, then both: no class grows.
    expect(feed(trend, () => 5, { to: 15_000 })).toBeNull();
    expect(
      feed(trend, () => 400, { from: 15_000, to: 60_000, method: 'POST', operation: 'createPet', status: 201 }),
    ).toBe(null);
    expect(feed(trend, () => 5, { from: 60_000, to: 90_000 })).toBeNull();
  });

  it('judges oversized and deeply nested bodies apart from nothing: their latencies join no trend', () => {
    const big = new Uint8Array(3 * 1024 * 1024).fill(0x20);
    const deep = new TextEncoder().encode(`${'['.repeat(3000)}${']'.repeat(3000)}`);
    expect(requestClass(answer({ at: 0, ms: 1, method: 'POST', operation: 'createPet', body: big }))).toBeNull();
    expect(requestClass(answer({ at: 0, ms: 1, method: 'POST', operation: 'createPet', body: deep }))).toBeNull();
    expect(nestingDepth(new TextEncoder().encode('{"a":"[[[[","b":[{"c":[1]}]}'))).toBe(4);
    const trend = new LatencyTrend({ lag: quiet });
    for (let t = 0; t < 120_000; t += 100) {
      // Steady reads, and heavy bodies that take ever longer (a growing store, a parser): nothing established.
      expect(trend.add(answer({ at: t, ms: 8 }))).toBeNull();
      const heavy = { at: t + 50, ms: 10 + t * 0.05, method: 'POST', operation: 'createPet' as const, status: 400 };
      expect(trend.add(answer({ ...heavy, body: t % 200 === 0 ? big : deep }))).toBeNull();
    }
  });

  it("ignores a deliberate burst's answers (their latency includes the burst's own queueing)", () => {
    const trend = new LatencyTrend({ lag: quiet });
    for (let t = 0; t < 120_000; t += 100) expect(trend.add(answer({ at: t, ms: leaking()(t) }), true)).toBeNull();
  });
});

describe('confirmed after a rest', () => {
  const look = (trend: LatencyTrend, slowing: Slowing, ms: number[], status = 200) =>
    trend.restLook(
      2_000,
      ms.map((m, i) => answer({ at: 200_000 + i, ms: m, status })),
      slowing,
    );

  it('still slow after the rest: the run stops, the message names the target and shows the figures', () => {
    const trend = new LatencyTrend({ lag: quiet });
    const hit = feed(trend, leaking())!;
    const { finding, stop } = trend.settle(hit.slowing, look(trend, hit.slowing, [900, 950, 1000]));
    expect(stop).toBe(true);
    expect(finding?.level).toBe('warning');
    expect(finding?.checkId).toBe('latency-trend');
    expect(finding?.message).toMatch(
      /^GET \/pets 200 slowed from [\d.]+ ms to [\d.]+ ms progressively \(medians over its first answers and its last \d+ of \d+, rising over \d+ windows for [\d.]+ s\); after a 2 s rest, 3 GET \/pets 200 answered in 950 ms \(median\), still slow: the target is slowing down\nthe run stopped/,
    );
    // Stopped: nothing more is raised.
    expect(feed(trend, leaking(), { from: 200_000, to: 300_000 })).toBeNull();
  });

  it('quick again after the rest: a warning, not a stop, and another 20 s must hold before the next look', () => {
    const trend = new LatencyTrend({ lag: quiet });
    const hit = feed(trend, leaking())!;
    const { finding, stop } = trend.settle(hit.slowing, look(trend, hit.slowing, [11, 12, 13]));
    expect(stop).toBe(false);
    expect(finding?.level).toBe('warning');
    expect(finding?.message).toMatch(/answered in 12 ms \(median\): busy, not slowing\nthe run went on$/);
    // The windows start over: the growth must hold again for 20 s from here; a second busy spell warns no more.
    const again = feed(trend, leaking(hit.at), { from: hit.at + 100 })!;
    expect(again.at + leaking(hit.at)(again.at) - hit.at).toBeGreaterThanOrEqual(TREND_SPAN_MS);
    expect(trend.settle(again.slowing, look(trend, again.slowing, [11, 12, 13]))).toEqual({
      finding: null,
      stop: false,
    });
  });

  it('nothing comparable after the rest (only 429s): no verdict, the run goes on', () => {
    const trend = new LatencyTrend({ lag: quiet });
    const hit = feed(trend, leaking())!;
    const rest = look(trend, hit.slowing, [1, 1, 1], 429);
    expect(rest).toBeNull();
    expect(trend.settle(hit.slowing, rest)).toEqual({ finding: null, stop: false });
  });

  it("names the host when the run's own event loop lagged, or the target is the embedded server", () => {
    // A loop that stalls 150 ms reads an answer at most 150 ms late: it cannot explain latency grown by 800 ms.
    const little = new LatencyTrend({ lag: lagOf(150) });
    const grew = feed(little, leaking())!;
    expect(little.settle(grew.slowing, look(little, grew.slowing, [900, 950, 1000])).finding?.message).toMatch(
      /^GET \/pets 200 slowed from .* progressively .*still slow: the target is slowing down\n/,
    );
    const lagged = new LatencyTrend({ lag: lagOf(620) });
    const hit = feed(lagged, leaking())!;
    const stopped = lagged.settle(hit.slowing, look(lagged, hit.slowing, [900, 950, 1000]));
    expect(stopped.stop).toBe(true);
    expect(stopped.finding?.message).toMatch(
      /^GET \/pets 200 slowed from .* progressively \(.*still slow; this host is the likelier cause: the run's own event loop lagged up to 620 ms meanwhile\n/,
    );
    const embedded = new LatencyTrend({ lag: quiet, embedded: true });
    const busy = feed(embedded, leaking())!;
    const warned = embedded.settle(busy.slowing, look(embedded, busy.slowing, [11, 12, 13]));
    expect(warned.stop).toBe(false);
    expect(warned.finding?.message).toMatch(
      /^GET \/pets 200 slowed from [\d.]+ ms to [\d.]+ ms \(medians .*\) but after .*busy, not slowing; the target is the embedded server, on this host: the host slowed down, not a target\n/,
    );
    // The host's doing, not the target's: recorded, never a warning (--strict would fail on it).
    expect(warned.finding?.level).toBe('observation');
  });
});

describe('the run at rest', () => {
  it('holds new requests, starts the look once nothing is on the wire, lets the look through', async () => {
    const gate = new RestGate();
    const events: string[] = [];
    let answerOnWire = () => {};
    const onWire = gate.wire(
      () =>
        new Promise<void>((r) => {
          answerOnWire = () => {
            events.push('answered');
            r();
          };
        }),
    );
    const rest = gate.rest(async () => {
      events.push('look');
      await gate.hold(true);
      events.push('look sent');
    });
    expect(gate.atRest).toBe(true);
    const held = gate.hold(false).then(() => events.push('held request sent'));
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([]);
    answerOnWire();
    await Promise.all([onWire, rest, held]);
    expect(events).toEqual(['answered', 'look', 'look sent', 'held request sent']);
    expect(gate.atRest).toBe(false);
    // One rest at a time.
    const first = gate.rest(() => new Promise((r) => setTimeout(r, 10)));
    expect(await gate.rest(async () => 'second')).toBeNull();
    await first;
  });
});

describe("the run's own event-loop lag", () => {
  it('a loop blocked for 300 ms is seen to lag that long at least, over the span that holds the block', async () => {
    const lag = eventLoopLag();
    const from = Date.now();
    // Let the monitor's timer run once, then block the loop: it cannot fire again before the block ends.
    await new Promise((r) => setTimeout(r, 50));
    const until = Date.now() + 300;
    while (Date.now() < until);
    await new Promise((r) => setTimeout(r, 50));
    expect(lag.maxBetween(from, Date.now())).toBeGreaterThanOrEqual(250);
  });
});
