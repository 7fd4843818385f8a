/**
 * The reference server's time: when a request arrived (the rate windows, Reset, Retry-After and bans are all reckoned
 * from it) and how a fault holds an answer back. The wall clock by default; the project's tests pass a clock of their
 * own to startReferenceServer and move time by hand, so no test of a window waits on, or races, the real one.
 */
export interface ReferenceClock {
  /** Ms since the epoch. */
  now(): number;
  /** Runs `fn` `ms` later (a fault that delays its answers). */
  later(ms: number, fn: () => void): void;
}

export const wallClock: ReferenceClock = Object.freeze({
  now: () => Date.now(),
  later: (ms: number, fn: () => void) => {
    setTimeout(fn, ms);
  },
});
