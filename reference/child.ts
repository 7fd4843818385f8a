/**
 * Runs the reference server in a child process for the CLI's embedded target, so that serving requests never
 * competes with the harness for its event loop (vitest's main thread also serves its workers). Options arrive as JSON
 * in argv; the URL and generated keys go back as one JSON line on stdout (a pipe, never a terminal). The child exits
 * when its parent closes stdin, so it cannot outlive the run.
 */
import { startReferenceServer, type ReferenceOptions } from './server.js';

const options = JSON.parse(process.argv[2] ?? '{}') as ReferenceOptions;
const server = await startReferenceServer(options);
process.stdout.write(`${JSON.stringify({ url: server.url, keys: server.keys, options: server.options })}\n`);
const stop = () => void server.close().finally(() => process.exit(0));
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
// Ctrl-C on a terminal reaches the whole process group: the run, stopping gracefully, still needs its target for the
// requests under way. The parent ends the child by closing stdin once its reports are written.
process.on('SIGINT', () => {});
