/**
 * How a stop (a signal the CLI received: cli/interrupt.ts) reaches the suites' worker. Signals are delivered to the
 * main thread only, and the run (runner/run.ts) lives in the worker thread: a BroadcastChannel of node:worker_threads,
 * named for the run and handed over with the worker's configuration, carries the stop. The worker halts the run's
 * limits with it (one more stop reason beside the deadline and the budget: runner/limits.ts), which also ends every
 * wait of the run and, a grace later, the requests still under way.
 */
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';

/** What the worker is told: why the run stops, as the reports will say it. */
export interface StopMessage {
  readonly code: 'PSC_SIGINT' | 'PSC_SIGTERM';
  readonly message: string;
}

export function stopChannelName(): string {
  return `petstore-conformance:stop:${process.pid}:${randomUUID()}`;
}

/** The CLI's end: `send` may be repeated (a worker that subscribes late still hears it); `close` when the run ends. */
export function stopSender(name: string): { send(stop: StopMessage): void; close(): void } {
  const channel = new BroadcastChannel(name);
  channel.unref();
  return {
    send: (stop) => channel.postMessage(stop),
    close: () => channel.close(),
  };
}

/**
 * The worker's end: `onStop` for every message (the caller makes it idempotent); it never keeps the thread alive.
 * Returns the way to stop listening (the run is over).
 */
export function listenForStop(name: string, onStop: (stop: StopMessage) => void): () => void {
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event) => onStop((event as { data: StopMessage }).data);
  channel.unref();
  return () => channel.close();
}
