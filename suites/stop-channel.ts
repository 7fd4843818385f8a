/**
 * How a stop (a signal the CLI received: cli/interrupt.ts) reaches the suites' worker. Signals are delivered to the
 * main thread only, and the run's guard lives in the worker thread: a BroadcastChannel of node:worker_threads, named
 * for the run and handed over with the worker's configuration, carries the stop. The worker halts the guard with it
 * (one more stop reason beside the deadline and the budget: runner/guard.ts) and ends every wait (http/waits.ts).
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

/** The worker's end: `onStop` for every message (the caller makes it idempotent); it never keeps the thread alive. */
export function listenForStop(name: string, onStop: (stop: StopMessage) => void): void {
  const channel = new BroadcastChannel(name);
  channel.onmessage = (event) => onStop((event as { data: StopMessage }).data);
  channel.unref();
}
