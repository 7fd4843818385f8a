/**
 * Every wait of a run (pacing, Retry-After, a rate-limit window) through one sleep that a stop ends early: a run
 * interrupted by a signal must not sit out a 60-second window before it writes its reports. The stop is the worker's
 * (one per thread, as the guard is): once `endWaits` is called, every sleep under way and to come returns at once, and
 * the next request meets the guard's stop (runner/guard.ts), which the caller sets first. Requests under way get
 * IN_FLIGHT_GRACE_MS to be answered; then the client aborts them (http/client.ts, PSC_RUN_STOPPED): a slow target must
 * not hold the reports past the few seconds a CI runner gives between SIGTERM and SIGKILL.
 */
const ENDED = Symbol.for('petstore-conformance.waits-ended');

function stopSignal(): AbortController {
  const g = globalThis as { [ENDED]?: AbortController };
  g[ENDED] ??= new AbortController();
  return g[ENDED];
}

/** How long requests under way at a stop may take to be answered before they are aborted. */
export const IN_FLIGHT_GRACE_MS = 1000;

/** The code of the transport error of a request aborted by the stop: no check judges it (runner/context.ts). */
export const RUN_STOPPED_CODE = 'PSC_RUN_STOPPED';

/** The thread's stop, as a signal (the client aborts what is still under way a grace after it). */
export function runStopSignal(): AbortSignal {
  return stopSignal().signal;
}

/** Ends every wait of this thread, now and from now on. */
export function endWaits(): void {
  stopSignal().abort();
}

/** Waits `ms`, or less when the run's waits end (a stop); never longer. */
export function sleep(ms: number): Promise<void> {
  const { signal } = stopSignal();
  // After the end, still yield to the event loop: a loop of sleeps must not spin without it.
  if (signal.aborted) return new Promise((r) => setImmediate(r));
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
