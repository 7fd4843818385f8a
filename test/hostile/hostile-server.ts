/**
 * A hostile Pet Store for the tests: a raw TCP server speaking just enough HTTP/1.1 to misbehave in the ways a real
 * target can and the reference server cannot (resets, stalls, lying Content-Length, chunked garbage, endless bodies,
 * redirects elsewhere, dying or slowing down). Modes that need sane answers forward to an upstream reference server.
 * Raw sockets, not node:http, because node:http refuses to send most of these byte sequences.
 */
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';

export const HOSTILE_MODES = [
  'reset',
  'stall-headers',
  'stall-body',
  'huge-body',
  'invalid-json',
  'length-over',
  'length-under',
  'chunked-garbage',
  'redirect',
  'close-after-n',
  'slower',
  'close-on-deep',
  'stall-huge-request',
] as const;
export type HostileMode = (typeof HOSTILE_MODES)[number];

export interface HostileOptions {
  readonly mode: HostileMode;
  /** Origin + /v1 of the reference server that answers when the mode calls for a sane answer. */
  readonly upstream: string;
  /** redirect: the base URL the Location points to. */
  readonly redirectTo?: string;
  /** close-after-n: requests answered before every later connection is dropped on its first request. */
  readonly n?: number;
  /** slower: the k-th answer waits stepMs × 2^k, until the client first gives up waiting; then the target recovers. */
  readonly stepMs?: number;
  /** stall-headers, stall-body: stall only the first this-many requests, then answer through the upstream. */
  readonly stallFirst?: number;
  /** huge-body: declared and (lazily) offered body size. */
  readonly hugeBytes?: number;
  /** stall-huge-request: request bodies declared larger than this are never read nor answered (default 1 MiB). */
  readonly hugeRequestBytes?: number;
}

/** How deep a JSON text's arrays and objects nest (strings skipped): what a recursive parser's stack must hold. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let most = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') most = Math.max(most, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return most;
}

/** Nesting beyond which close-on-deep's "parser" dies with the connection. */
const DEEP_CRASH = 512;

export interface HostileServer {
  readonly url: string;
  /** Requests received (complete heads). */
  readonly requests: () => number;
  /** Body bytes the huge-body mode managed to hand to the kernel, over all responses. */
  readonly hugeBytesWritten: () => number;
  close(): Promise<void>;
}

interface RawRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

const CRLF = '\r\n';

/** Parses complete requests off the front of `buf`; returns them and what is left. */
function parseRequests(buf: Buffer): { requests: RawRequest[]; rest: Buffer } {
  const requests: RawRequest[] = [];
  let rest = buf;
  for (let guard = 0; guard < 1000; guard++) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [line = '', ...lines] = rest.subarray(0, end).toString('latin1').split(CRLF);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) break;
    const [method = 'GET', target = '/'] = line.split(' ');
    requests.push({ method, target, headers, body: rest.subarray(end + 4, end + 4 + length) });
    rest = rest.subarray(end + 4 + length);
  }
  return { requests, rest };
}

function head(status: string, headers: Record<string, string | number>): string {
  return `HTTP/1.1 ${status}${CRLF}${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}${CRLF}`)
    .join('')}${CRLF}`;
}

/** Forwards a request to the upstream and returns its answer as raw bytes (exact Content-Length, keep-alive). */
function forward(upstream: URL, req: RawRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: upstream.host };
    const r = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.target, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers as IncomingHttpHeaders)) {
            if (
              v === undefined ||
              k === 'transfer-encoding' ||
              k === 'connection' ||
              k === 'keep-alive' ||
              k === 'content-length'
            )
              continue;
            out[k] = Array.isArray(v) ? v.join(', ') : v;
          }
          out['content-length'] = String(body.length);
          resolve(Buffer.concat([Buffer.from(head(`${res.statusCode} ${res.statusMessage}`, out), 'latin1'), body]));
        });
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

export async function startHostileServer(o: HostileOptions): Promise<HostileServer> {
  const upstream = new URL(o.upstream);
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let received = 0;
  let hugeWritten = 0;
  let gaveUp = false;
  let closed = false;
  const later = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(() => {
        timers.delete(t);
        r();
      }, ms);
      timers.add(t);
    });

  /** Streams `total` bytes lazily, stopping as soon as the client goes away (never buffers 100 MB). */
  async function streamHuge(socket: Socket, total: number): Promise<void> {
    socket.write(head('200 OK', { 'content-type': 'application/json', 'content-length': total }));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    while (sent < total && !socket.destroyed && !closed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      hugeWritten += piece.length;
      if (!socket.write(piece)) {
        await new Promise<void>((r) => {
          const done = () => {
            socket.off('drain', done);
            socket.off('close', done);
            r();
          };
          socket.on('drain', done);
          socket.on('close', done);
        });
      }
    }
  }

  /** Answers one request; returns false when the connection is finished. */
  async function answer(socket: Socket, req: RawRequest, index: number): Promise<boolean> {
    const json = { 'content-type': 'application/json' };
    switch (o.mode) {
      case 'reset':
        socket.write(`${head('200 OK', { ...json, 'content-length': 200 })}[{"id":1,"na`);
        await later(5);
        socket.resetAndDestroy();
        return false;
      case 'stall-headers':
        if (index > (o.stallFirst ?? Infinity)) break;
        return false; // Never answers; the socket stays open until the client gives up or the server closes.
      case 'stall-body':
        if (index > (o.stallFirst ?? Infinity)) break;
        socket.write(`${head('200 OK', { ...json, 'content-length': 1000 })}[{"id":1,`);
        return false;
      case 'huge-body':
        await streamHuge(socket, o.hugeBytes ?? 100 * 1024 * 1024);
        return !socket.destroyed;
      case 'invalid-json': {
        const body = '{"id": 1, "name": "Rex", "categoryId": ';
        socket.write(head('200 OK', { ...json, 'content-length': Buffer.byteLength(body) }) + body);
        return true;
      }
      case 'length-over':
        // Declares 1000 bytes, sends 2, then closes: the body can never be complete.
        socket.end(`${head('200 OK', { ...json, 'content-length': 1000 })}[]`);
        return false;
      case 'length-under':
        // Declares 2 bytes of a longer body: the client reads '[{' and the rest is junk on the connection.
        socket.write(
          `${head('200 OK', { ...json, 'content-length': 2 })}[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]`,
        );
        return true;
      case 'chunked-garbage':
        socket.end(`${head('200 OK', { ...json, 'transfer-encoding': 'chunked' })}ZZ-not-hex\r\n{"id":\r\nqq\r\n`);
        return false;
      case 'redirect':
        socket.write(
          head('307 Temporary Redirect', {
            location: `${o.redirectTo}${req.target.replace(/^\/v1/, '')}`,
            'content-length': 0,
          }),
        );
        return true;
      case 'close-after-n':
        if (index > (o.n ?? 5)) {
          socket.destroy();
          return false;
        }
        break;
      case 'close-on-deep':
        // A recursive parser that overflows its stack takes the worker, and the connection, with it.
        if (nestingDepth(req.body.toString('utf8')) > DEEP_CRASH) {
          socket.destroy();
          return false;
        }
        break;
      case 'slower': {
        if (!gaveUp) await later((o.stepMs ?? 4) * 2 ** index);
        if (socket.destroyed) {
          gaveUp = true; // The client timed out: the overload is shed and later answers come fast again.
          return false;
        }
        break;
      }
    }
    socket.write(await forward(upstream, req));
    return true;
  }

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {}); // Resets and early closes by the client are the point here.
    let buf: Buffer = Buffer.alloc(0);
    let busy = false;
    let done = false;
    const pump = async () => {
      if (busy || done) return;
      busy = true;
      try {
        for (let guard = 0; guard < 1000 && !done; guard++) {
          const { requests, rest } = parseRequests(buf);
          if (requests.length === 0) break;
          buf = rest;
          for (const req of requests) {
            if (done) break;
            received++;
            if (!(await answer(socket, req, received))) done = true;
          }
        }
      } catch {
        socket.destroy();
        done = true;
      } finally {
        busy = false;
      }
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (o.mode === 'stall-huge-request' && !done) {
        // A huge body is neither read nor answered: the client's send stalls on a full socket, and no answer comes.
        const end = buf.indexOf('\r\n\r\n');
        const length =
          end < 0 ? 0 : Number(/\r\ncontent-length:\s*(\d+)/i.exec(buf.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        if (length > (o.hugeRequestBytes ?? 1024 * 1024)) {
          received++;
          done = true;
          socket.pause();
          return;
        }
      }
      void pump();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => received,
    hugeBytesWritten: () => hugeWritten,
    close: () =>
      new Promise<void>((r) => {
        closed = true;
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export interface RecordedArrival {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** A plain server on another loopback address that records whatever reaches it (the redirect's other host). */
export async function startRecorder(
  host = '127.0.0.2',
): Promise<{ url: string; arrivals: RecordedArrival[]; close(): Promise<void> }> {
  const arrivals: RecordedArrival[] = [];
  const server = createHttpServer((req, res) => {
    arrivals.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/v1`,
    arrivals,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
