/**
 * What a staging puts between the suite and the Pet Store, rebuilt on loopback: a private CA and certificates made at
 * test time, a reverse proxy in front of the reference server (TLS, a path prefix, gzip), a forward proxy that counts
 * what goes through it, and the binary run as a user runs it, with an environment the test controls entirely.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { generate } from 'selfsigned';
import { keyEnv } from '../../config/config.js';
import type { ReferenceKey } from '../../reference/server.js';
import { tempDir } from '../support/temp-dir.js';

export interface KeyPair {
  readonly key: string;
  readonly cert: string;
}

export interface Pki {
  readonly dir: string;
  /** The private CA's certificate, as a file for --ca / NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  /** A server certificate for 127.0.0.1 and localhost, signed by the CA. */
  readonly server: KeyPair;
  /** The same names, signed by the CA, valid until yesterday. */
  readonly expired: KeyPair;
}

const DAY = 86_400_000;

async function leaf(ca: KeyPair, notBeforeDate: Date, notAfterDate: Date): Promise<KeyPair> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.key, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

export async function makePki(): Promise<Pki> {
  const dir = tempDir('psc-pki-');
  const now = Date.now();
  // A distinct name per CA: OpenSSL picks an issuer by name, so two CAs named alike would shadow each other.
  const name = `petstore-conformance test CA ${dir.slice(-6)}`;
  const caPems = await generate([{ name: 'commonName', value: name }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY),
    notAfterDate: new Date(now + 30 * DAY),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const ca = { key: caPems.private, cert: caPems.cert };
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  return {
    dir,
    caFile,
    server: await leaf(ca, new Date(now - DAY), new Date(now + 30 * DAY)),
    expired: await leaf(ca, new Date(now - 3 * DAY), new Date(now - DAY)),
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Closes a server and every socket it still holds (keep-alive, tunnels), so that afterAll never waits. */
function closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly userAgent: string | undefined;
  readonly acceptEncoding: string | undefined;
  /** Whether the answer went back gzip-compressed. */
  gzipped: boolean;
  status: number;
}

export interface Front {
  /** Base URL for --target: scheme, this front's port, the prefix, /v1. */
  readonly url: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

export interface FrontOptions {
  /** Serve https with this certificate. */
  readonly tls?: KeyPair;
  /** A path before /v1 (e.g. /api), stripped before forwarding: requests without it get a 404. */
  readonly prefix?: string;
  /** Compress every answer (any status) for clients that accept gzip, as reverse proxies do. */
  readonly gzip?: boolean;
  /**
   * From the request numbered `after` on, serve this certificate instead (a certificate rotated mid-run): new
   * connections get it, and every answer from then on closes its connection, so the client soon has to reconnect.
   */
  readonly rotate?: { readonly after: number; readonly tls: KeyPair };
}

/** A reverse proxy in front of an http upstream (the reference server, whose base URL ends in /v1). */
export async function startFront(upstream: string, options: FrontOptions = {}): Promise<Front> {
  const up = new URL(upstream);
  const prefix = options.prefix ?? '';
  const seen: SeenRequest[] = [];
  const handler = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const entry: SeenRequest = {
      method: req.method!,
      url: req.url!,
      userAgent: req.headers['user-agent'],
      acceptEncoding: req.headers['accept-encoding'],
      gzipped: false,
      status: 0,
    };
    seen.push(entry);
    if (options.rotate && seen.length === options.rotate.after && 'setSecureContext' in server) {
      // Fresh ticket keys: no session of the old certificate may be resumed.
      server.setSecureContext({ ...options.rotate.tls, ticketKeys: randomBytes(48) });
    }
    const rotated = options.rotate !== undefined && seen.length >= options.rotate.after;
    if (!req.url!.startsWith(`${prefix}/v1/`)) {
      entry.status = 404;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such path on this front');
      return;
    }
    // The header lines as sent (a repeated Authorization stays two lines, as a transparent front passes it).
    const headers = forwardedLines(req.rawHeaders, up.host, ['accept-encoding']);
    const out = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path: req.url!.slice(prefix.length), headers },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('end', () => {
          let body = Buffer.concat(chunks);
          const h = { ...upRes.headers };
          entry.status = upRes.statusCode!;
          if (options.gzip && /\bgzip\b/.test(entry.acceptEncoding ?? '') && body.length > 0) {
            body = gzipSync(body);
            h['content-encoding'] = 'gzip';
            h.vary = 'accept-encoding';
            entry.gzipped = true;
          }
          h['content-length'] = String(body.length);
          delete h.connection;
          delete h['keep-alive'];
          if (rotated) h.connection = 'close';
          res.writeHead(upRes.statusCode!, h).end(body);
        });
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  };
  const server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler)
    : createHttpServer(handler);
  const close = closer(server, new Set());
  // A handshake the client refuses is not an error of the test.
  server.on('tlsClientError', () => {});
  const port = await listen(server);
  return { url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}${prefix}/v1`, seen, close };
}

export interface ForwardProxy {
  readonly url: string;
  /** host:port of every CONNECT tunnel opened. */
  readonly tunnels: string[];
  /** Absolute-form requests proxied without a tunnel. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * A tiny forward proxy: CONNECT tunnels and absolute-form requests, to loopback only (anything else gets 403).
 * With `requireAuth`, a CONNECT without that Proxy-Authorization value gets 407.
 */
export async function startForwardProxy(
  options: { requireAuth?: string; goAwayAfterTunnels?: number } = {},
): Promise<ForwardProxy> {
  const tunnels: string[] = [];
  const requests: string[] = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url!);
    if (url.hostname !== '127.0.0.1') return void res.writeHead(403).end();
    requests.push(req.url!);
    const out = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: url.pathname + url.search,
        headers: req.rawHeaders,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode!, upRes.headers);
        upRes.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  });
  const sockets = new Set<Socket>();
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('error', () => {});
    if (options.requireAuth !== undefined && req.headers['proxy-authorization'] !== options.requireAuth) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
      return;
    }
    const [host, port] = req.url!.split(':');
    if (host !== '127.0.0.1' && host !== 'localhost') {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    tunnels.push(req.url!);
    // The proxy goes away: the tunnels open stay up, and any new connection finds nothing listening.
    if (tunnels.length === options.goAwayAfterTunnels) server.close();
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  const close = closer(server, sockets);
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, tunnels, requests, close };
}

/** The variables a test must not inherit: its own configuration decides them all. */
const INHERITED = /^(PETSTORE_|NODE_EXTRA_CA_CERTS$|NODE_TLS_REJECT_UNAUTHORIZED$|(https?|no|all)_proxy$)/i;

/** The environment of a user who set the reference server's keys (and `extra`), and nothing else of ours. */
export function userEnv(keys: readonly ReferenceKey[], extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !INHERITED.test(k)) env[k] = v;
  return { ...env, ...keyEnv(keys), ...extra };
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the binary asynchronously: the servers it talks to live in this process, so its event loop must stay free.
 * Bounded by a timeout after which the child is killed.
 */
export function runCli(args: readonly string[], env: Record<string, string>, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/petstore-conformance.js', ...args], { env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Header lines to forward: `raw` (name, value, name, value…) as sent but `host` (set to `host`) and `drop`. */
function forwardedLines(raw: readonly string[], host: string, drop: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (name !== 'host' && !drop.includes(name)) out.push(raw[i]!, raw[i + 1]!);
  }
  return [...out, 'Host', host];
}
