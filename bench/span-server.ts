/**
 * The reference server in a child process, as the embedded target runs it (reference/child.ts), that also notes when
 * each request arrived and when its last response was finished: the span of a run's exchanges seen from the target,
 * for runs that record no HAR file (bench/ratio.ts). Node's HTTP diagnostics channels tell it, so the server's code
 * stays untouched; the subscribers cost a clock read per request and per response.
 * Protocol: options as JSON in argv; the URL and keys as one JSON line on stdout; when stdin ends, the times (ms on
 * this process's clock) as a second line, then exit.
 */
import { subscribe } from 'node:diagnostics_channel';
import { startReferenceServer, type ReferenceOptions } from '../reference/server.js';

/** When each request arrived, in order, and when the last response was finished. */
const starts: number[] = [];
let lastFinish: number | null = null;
subscribe('http.server.request.start', () => {
  starts.push(performance.now());
});
subscribe('http.server.response.finish', () => {
  lastFinish = performance.now();
});

const options = JSON.parse(process.argv[2] ?? '{}') as ReferenceOptions;
const server = await startReferenceServer(options);
process.stdout.write(`${JSON.stringify({ url: server.url, keys: server.keys })}\n`);
const stop = () => {
  process.stdout.write(`${JSON.stringify({ starts: starts.map((t) => +t.toFixed(3)), lastFinish })}\n`);
  void server.close().finally(() => process.exit(0));
};
process.stdin.on('end', stop);
process.stdin.resume();
