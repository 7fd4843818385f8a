/**
 * Child-process entry for the benchmark: the target runs in its own process, as a real one would, so the generator's
 * CPU is not taken from the server's. Sends { url, keys } to the parent over IPC; exits on 'close'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReferenceServer } from '../reference/server.js';

const kind = process.argv[2];
if (kind === 'bare') {
  const body = process.argv[3] ?? '[]';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, keys: [] });
  });
  process.on('message', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
} else {
  // A 10 s window: the enterprise key's budget is then far above what a benchmark sends, so no 429 skews it.
  const server = await startReferenceServer({ port: 0, windowSeconds: 10 });
  process.send?.({ url: server.url, keys: server.keys });
  process.on('message', () => void server.close().then(() => process.exit(0)));
}
