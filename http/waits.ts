/**
 * Every wait of a run (pacing, Retry-After, a rate-limit window, a scenario's pause) through one sleep that the run's
 * stop ends early: a run interrupted by a signal must not sit out a 60-second window before it writes its reports. The
 * stop is the run's own (`RunLimits.interrupted`, runner/limits.ts), passed in: nothing here is shared by the thread.
 * Requests under way get IN_FLIGHT_GRACE_MS to be answered; then the client aborts them (http/client.ts,
 * PSC_RUN_STOPPED): a slow target must not hold the reports past the few seconds a CI runner gives between SIGTERM
 * and SIGKILL.
 */

/** How long requests under way at a stop may take to be answered before they are aborted. */
export const IN_FLIGHT_GRACE_MS = 1000;

/** The code of the transport error of a request aborted by the stop: no check judges it (runner/request-path.ts). */
export const RUN_STOPPED_CODE = 'PSC_RUN_STOPPED';

/** Waits `ms`, or less when `until` aborts (the run's stop); never longer. */
export function sleep(ms: number, until?: AbortSignal): Promise<void> {
  // After the stop, still yield to the event loop: a loop of sleeps must not spin without it.
  if (until?.aborted) return new Promise((r) => setImmediate(r));
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      until?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    until?.addEventListener('abort', done, { once: true });
  });
}
