/**
 * The one path of every request a scenario sends, as named steps composed the way undici composes its dispatchers:
 * each step is a function of the next, and `requestPath` lists them from the outside in. Read top to bottom, a request
 * meets them in this order:
 *
 *   pace and 429 ─ stall ─ judge ─ pace slot ─ lanes ─ backlog ─ rest ─ limits ─ in flight ─ reach/TLS ─ stop abort ─
 *   ledger and trend ─ wire ─ send
 *
 * On the way in: the key's pacing slot (wait when its window is spent), a lane (at most --concurrency requests in
 * flight), the exchange sink's backlog, the run's rest (no request goes while the trend looks again at a target that
 * seemed to slow down), the run's limits (a request that would break one is never sent), the key's count of requests
 * in flight (every keyed request, paced or not, until its exchange is complete: `KeyFlights.quiet`). On the way out:
 * the exchange is counted, handed to the sink and the ledger (per-key spend, created ids), and the latency trend
 * (growth that held in a class of request is looked at again after a rest: still slow stops the run, quick again is a
 * warning); a request a signal's stop aborted ends the suite, unjudged; a TLS
 * or proxy failure stops the run as the configuration's problem; every response check judges it; a target that keeps
 * timing out stops the suite; a 429 is waited out and the request resent. Nothing here replaces a method of
 * anything: a context builds its path once from its parts.
 */
import type { Finding } from '../checks/check.js';
import { TargetStalledError } from '../errors/catalogue.js';
import type { HttpClient, OutgoingRequest } from '../http/client.js';
import { type Exchange, isUnkeyedPlan } from '../http/exchange.js';
import type { KeyFlights } from '../http/in-flight.js';
import type { Pacer } from '../http/pacing.js';
import type { TransportSettings } from '../http/transport.js';
import { RUN_STOPPED_CODE, sleep } from '../http/waits.js';
import type { Lanes } from './lanes.js';
import type { Ledger } from './ledger.js';
import { isRunStopped, type RunLimits, type ScopedLimits } from './limits.js';
import { reachFailure } from './reach.js';
import type { RestGate } from './rest.js';
import type { LatencyTrend, Slowing } from './trend.js';

/** How a request is treated; the defaults suit the functional suites. */
export interface SendOptions {
  /** Wait first when the key's headers show its window spent (default true). */
  readonly pace?: boolean;
  /** On a 429, wait Retry-After and resend (default true). Off where each 429 is itself the evidence. */
  readonly resendOn429?: boolean;
  /** One of a deliberate burst of overlapping requests (a race the scenario tests): not held to the run's lanes. */
  readonly burst?: boolean;
  /** A request of the trend's look after a rest: sent while the run rests, and no answer of the trend's. */
  readonly restLook?: boolean;
}

/** Receives a run's exchanges as they are recorded, so that no part of the harness holds them all. */
export interface ExchangeSink {
  push(ex: Exchange): void;
  /** A promise while the sink holds as many as it may: the next request waits for it. Null otherwise. */
  backlog?(): Promise<void> | null;
}

export type Send = (req: OutgoingRequest, options: SendOptions) => Promise<Exchange>;
export type Step = (next: Send) => Send;

/** What the steps work with: the run's (limits, ledger, trend, pacer, lanes, sink) and the context's own. */
export interface PathParts {
  /** The context's client (a part of a suite has a fork of its own, numbering its exchanges). */
  readonly client: HttpClient;
  readonly target: string;
  readonly transport: TransportSettings;
  readonly runLimits: RunLimits;
  /** The limits in the context's scope: its suite's and its part's shares. */
  readonly limits: ScopedLimits;
  readonly ledger: Ledger;
  readonly trend: LatencyTrend;
  /** The run's rest, while the trend looks again at a target that seemed to slow down. */
  readonly rest: RestGate;
  readonly pacer: Pacer;
  /** Every key's requests in flight, for the readings that must start from a quiet key. */
  readonly flights: KeyFlights;
  /** Requests in flight at most (--concurrency); null: no bound. */
  readonly lanes: Lanes | null;
  readonly sink: ExchangeSink | null;
  /** The context's count of an exchange recorded. */
  readonly counted: (ex: Exchange) => void;
  /** The response checks, applied to every exchange, their findings recorded by the context. */
  readonly judged: (ex: Exchange) => void;
  /** A latency-trend warning, recorded by the context whose request established it. */
  readonly slowing: (f: Finding) => void;
}

/** The steps, from the outside in (see the module's comment), over the client's send. */
export function requestPath(p: PathParts): Send {
  // The trend's look after a rest sends its requests along the whole path, as every request of the run goes.
  let whole: Send = () => Promise.reject(new Error('request path: used before it was built'));
  const steps: Step[] = [
    paceAnd429(p),
    stall(),
    judge(p),
    paceSlot(p),
    lanes(p),
    backlog(p),
    rest(p),
    limits(p),
    inFlight(p),
    reach(p),
    stopAbort(p),
    ledgerAndTrend(p, (req, options) => whole(req, options)),
    wire(p),
  ];
  const send: Send = (req) => p.client.send(req);
  whole = steps.reduceRight((next, step) => step(next), send);
  return whole;
}

/** Requests with a deliberately bad key are judged as they come: no pacing, and a 429 there is itself the answer. */
const keyed = (req: OutgoingRequest): boolean => !isUnkeyedPlan(req.auth.keyPlan);

/**
 * On a 429, wait Retry-After and resend (a few times at most: the pacer declares the key blocked past that); the
 * exchange returned is the last one. A wait that would run past the deadline ends the run instead.
 */
const paceAnd429 =
  ({ pacer, limits }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    const resend = keyed(req) && options.resendOn429 !== false;
    for (;;) {
      const ex = await next(req, options);
      if (!resend) return ex;
      const wait = pacer.after(req.auth.keyPlan, ex);
      if (wait === null) return ex;
      limits.beforeWait(wait);
      await pacer.wait(wait, `429 on ${req.method} ${req.path}: Retry-After`, req.auth.keyPlan);
    }
  };

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'PSC_REQUEST_DEADLINE',
]);
const MAX_TIMEOUTS_IN_A_ROW = 5;

/** A target that keeps timing out would cost every remaining case a full timeout: stop the suite instead. */
const stall = (): Step => {
  let inARow = 0;
  return (next) => async (req, options) => {
    const ex = await next(req, options);
    inARow = ex.error && TIMEOUT_CODES.has(ex.error.code) ? inARow + 1 : 0;
    if (inARow >= MAX_TIMEOUTS_IN_A_ROW)
      throw new TargetStalledError(
        `${inARow} requests in a row timed out (${ex.error!.code}); the suite stopped rather than wait out every case`,
      );
    return ex;
  };
};

/** Every response is judged by the response checks, once, here. */
const judge =
  ({ judged }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    const ex = await next(req, options);
    judged(ex);
    return ex;
  };

/** Waits while the key's window is spent (the pacer counts the key's requests in flight until the answer comes). */
const paceSlot =
  ({ pacer }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    if (!keyed(req) || options.pace === false) return next(req, options);
    const label = req.auth.keyPlan;
    await pacer.before(label);
    try {
      return await next(req, options);
    } finally {
      pacer.settle(label);
    }
  };

/** At most --concurrency requests in flight, but for a scenario's deliberate burst of concurrent requests. */
const lanes =
  ({ lanes }: PathParts): Step =>
  (next) =>
  (req, options) =>
    lanes && lanes.size > 1 && !options.burst ? lanes.run(() => next(req, options)) : next(req, options);

/** A sink that holds as many exchanges as it may makes the next request wait (memory stays bounded). */
const backlog =
  ({ sink }: PathParts): Step =>
  (next) =>
  (req, options) => {
    const waiting = sink?.backlog?.();
    return waiting ? waiting.then(() => next(req, options)) : next(req, options);
  };

/** While the run rests (the trend looks again), a request waits here, before the limits judge it. */
const rest =
  ({ rest }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    await rest.hold(options.restLook === true);
    return next(req, options);
  };

/** What is on the wire: a rest begins once it is all answered. */
const wire =
  ({ rest }: PathParts): Step =>
  (next) =>
  (req, options) =>
    rest.wire(() => next(req, options));

/** A request that would break a run limit is never sent (it throws); one that is sent is on the key's account. */
const limits =
  ({ limits, ledger }: PathParts): Step =>
  (next) =>
  (req, options) => {
    limits.beforeSend(req);
    ledger.sent(req);
    return next(req, options);
  };

/** The key of a request with a valid key's secret, for the count of its requests in flight; null: none. */
export const flightKey = (req: { readonly auth: OutgoingRequest['auth'] }): string | null =>
  req.auth.key && keyed(req as OutgoingRequest) ? req.auth.key.reveal() : null;

/** Every request sent with a key is in flight on that key until its exchange is complete (answered or failed). */
const inFlight =
  ({ flights }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    const key = flightKey(req);
    if (key === null) return next(req, options);
    flights.enter(key);
    try {
      return await next(req, options);
    } finally {
      flights.leave(key);
    }
  };

/** A TLS or proxy failure is the configuration's, never the target's: it stops the run before a check sees it. */
const reach =
  ({ target, transport, runLimits }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    const ex = await next(req, options);
    const failure = ex.error ? reachFailure(target, transport, ex.error) : null;
    if (failure) runLimits.transportFailed(failure);
    return ex;
  };

/**
 * A request under way when a signal stopped the run is aborted by the client a grace later (http/client.ts): recorded
 * as it is (the HAR keeps it), it is the harness's doing, not the target's, so no check judges it; the suite ends.
 */
const stopAbort =
  ({ limits }: PathParts): Step =>
  (next) =>
  async (req, options) => {
    const ex = await next(req, options);
    if (ex.error?.code === RUN_STOPPED_CODE) limits.throwIfStopped();
    return ex;
  };

/**
 * The exchange as recorded: counted, handed to the sink (the context keeps none), on the ledger; and the latency
 * trend: growth that held in a class of request is looked at again after a rest (`lookAgain`), which stops the run
 * when the target is still slow.
 */
const ledgerAndTrend =
  (p: PathParts, whole: Send): Step =>
  (next) =>
  async (req, options) => {
    const { counted, sink, ledger, runLimits, trend } = p;
    const ex = await next(req, options);
    counted(ex);
    sink?.push(ex);
    ledger.answered(ex);
    runLimits.afterSend(ex);
    if (runLimits.stop || options.restLook) return ex;
    const slowing = trend.add(ex, options.burst === true);
    if (slowing) await lookAgain(p, whole, req, slowing);
    return ex;
  };

/** How long the run rests before it looks again, and how many requests the look sends, one after the other. */
export const REST_MS = 2_000;
export const REST_LOOK_REQUESTS = 3;
const LOOK_OPTIONS: SendOptions = { pace: false, resendOn429: false, burst: true, restLook: true };

/**
 * The look after a rest: the run's other requests held back and those on the wire answered, a pause, then the request
 * that showed the slowing, sent again a few times alone (like with like: its own class of request, compared with that
 * class's earliest answers; a creation creates again, within --max-creates). Still slow stops the run; quick again is a
 * warning and the run goes on.
 */
async function lookAgain(p: PathParts, whole: Send, req: OutgoingRequest, slowing: Slowing): Promise<void> {
  const { rest, runLimits, trend } = p;
  let settled = false;
  try {
    const answers = await rest.rest(async () => {
      await sleep(REST_MS, runLimits.interrupted);
      const got: Exchange[] = [];
      for (let i = 0; i < REST_LOOK_REQUESTS && !runLimits.stop; i++) {
        try {
          got.push(await whole(req, LOOK_OPTIONS));
        } catch (e) {
          if (isRunStopped(e)) break;
          throw e;
        }
      }
      return got;
    });
    if (answers === null || runLimits.stop) return;
    const { finding, stop } = trend.settle(slowing, trend.restLook(REST_MS, answers, slowing));
    settled = true;
    if (finding && stop) runLimits.halt('PSC_TARGET_SLOWING', finding.message.split('\n')[0]!);
    if (finding) p.slowing(finding);
  } finally {
    if (!settled) trend.abandon();
  }
}
