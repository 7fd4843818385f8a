/**
 * Every wait of a run (pacing, Retry-After, a rate-limit window) through one sleep that a stop ends early: a run
 * interrupted by a signal must not sit out a 60-second window before it writes its reports. The stop is the worker's
 * (one per thread, as the guard is): once `endWaits` is called, every sleep under way and to come returns at once, and
 * the next request meets the guard's stop (runner/guard.ts), which the caller sets first.
 */
const ENDED = Symbol.for('petstore-conformance.waits-ended');

function stopSignal(): AbortController {
  const g = globalThis as { [ENDED]?: AbortController };
  g[ENDED] ??= new AbortController();
  return g[ENDED];
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
