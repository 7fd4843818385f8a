/**
 * The HTTP layer: the only module of the harness that talks to the network. It sends exactly what it is given (plus
 * its User-Agent and Accept-Encoding, unless the request sets them), never follows redirects, never retries, never
 * throws for a 4xx/5xx, and records every exchange. Transport failures (refused, reset, timeouts, TLS, proxy) come
 * back as data on the exchange, never as an exception. TLS trust and proxies are the transport's (transport.ts).
 */
import { type Dispatcher, util as undiciUtil } from 'undici';
import type { OperationId, PlanName } from '../spec/contract.js';
import { contentCodings, decodeBody } from './decode.js';
import type { Exchange, RecordedRequest, RecordedResponse, TransportError } from './exchange.js';
import { parseLossless } from './lossless.js';
import { scrub, type ApiKey } from './redact.js';
import { createDispatcher, DEFAULT_TRANSPORT, PROXY_REFUSED_CODE, type TransportSettings } from './transport.js';
import { userAgent } from './user-agent.js';

export interface ClientOptions {
  /** Base address ending in /v1, possibly under a path prefix: http://127.0.0.1:8080/v1, https://host/api/v1. */
  readonly baseUrl: string;
  /** TLS trust, proxies and Accept-Encoding (default: Node's roots, no proxy, gzip asked for). */
  readonly transport?: TransportSettings;
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Bytes of a response body read at most; the rest is dropped and the exchange marked truncated. */
  readonly maxBodyBytes?: number;
  readonly connections?: number;
}

/**
 * How the Authorization header is built. `template` is the header value with `{key}` where the key goes, or null for
 * no header at all. The key is revealed only into the bytes on the wire; the recorded request shows its placeholder.
 */
export interface AuthSpec {
  readonly template: string | null;
  readonly key: ApiKey | null;
  readonly keyPlan: PlanName | 'none' | 'invalid';
}

export interface OutgoingRequest {
  readonly operation: OperationId | null;
  readonly method: string;
  /** Path and query relative to the base address, already encoded: /pets?limit=5. */
  readonly path: string;
  readonly auth: AuthSpec;
  readonly headers?: Readonly<Record<string, string>>;
  /** Raw body: a string is sent as UTF-8. */
  readonly body?: string | Uint8Array | null;
}

export type ExchangeListener = (ex: Exchange) => void;

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export class HttpClient {
  readonly baseUrl: string;
  readonly transport: TransportSettings;
  private readonly agent: Dispatcher;
  private readonly opts: Required<Omit<ClientOptions, 'baseUrl' | 'transport'>>;
  private readonly listeners: ExchangeListener[] = [];
  private seq = 0;
  /** False for a fork: the connections are its parent's to close. */
  private readonly ownsAgent: boolean;

  constructor(options: ClientOptions, agent?: Dispatcher) {
    // Requests' paths start with /, so joining is concatenation: a prefix before /v1 is kept as it is.
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.transport = options.transport ?? DEFAULT_TRANSPORT;
    this.opts = {
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      connections: options.connections ?? 16,
    };
    this.ownsAgent = agent === undefined;
    this.agent = agent ?? createDispatcher(this.transport, this.opts);
  }

  /**
   * A client over the same connections, with listeners of its own, whose exchanges are numbered from `firstSeq`: a
   * part of a suite that runs beside others numbers its exchanges whatever the interleaving. Closing it closes nothing.
   */
  fork(firstSeq: number): HttpClient {
    const child = new HttpClient({ baseUrl: this.baseUrl, transport: this.transport, ...this.opts }, this.agent);
    child.seq = firstSeq - 1;
    return child;
  }

  onExchange(listener: ExchangeListener): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener), 1);
  }

  async send(req: OutgoingRequest): Promise<Exchange> {
    const url = this.baseUrl + req.path;
    const wire: Record<string, string> = {};
    const recorded: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      wire[k.toLowerCase()] = v;
      recorded[k.toLowerCase()] = v;
    }
    // Recorded too: curl lines, HAR files and replays then send what the run sent.
    if (wire['user-agent'] === undefined) wire['user-agent'] = recorded['user-agent'] = userAgent();
    const accept = this.transport.acceptEncoding;
    if (accept !== null && wire['accept-encoding'] === undefined)
      wire['accept-encoding'] = recorded['accept-encoding'] = accept;
    const body = req.body == null ? null : typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body;
    if (body !== null && wire['content-type'] === undefined) {
      wire['content-type'] = recorded['content-type'] = 'application/json';
    }
    if (req.auth.template !== null) {
      const key = req.auth.key;
      wire.authorization = key ? req.auth.template.replaceAll('{key}', key.reveal()) : req.auth.template;
      recorded.authorization = key ? req.auth.template.replaceAll('{key}', key.placeholder) : req.auth.template;
    }
    const request: RecordedRequest = { method: req.method, url, path: req.path, headers: recorded, body };
    const seq = ++this.seq;
    const startedAt = Date.now();
    const t0 = performance.now();
    let response: RecordedResponse | null = null;
    let error: TransportError | null = null;
    try {
      response = await this.exchange(url, req.method, wire, body, t0);
    } catch (e) {
      error = toTransportError(e);
    }
    const ex: Exchange = {
      seq,
      operation: req.operation,
      keyPlan: req.auth.keyPlan,
      request,
      response,
      error,
      startedAt,
      durationMs: performance.now() - t0,
    };
    for (const l of this.listeners) l(ex);
    return ex;
  }

  private async exchange(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: Uint8Array | null,
    t0: number,
  ): Promise<RecordedResponse> {
    const res = await this.dispatch(url, method, headers, body, t0);
    let truncated = res.truncated;
    let raw: Buffer = res.bytes;
    // Bodies are judged decoded, whatever the status (a 429's Error body included); the coding is recorded.
    const codings = contentCodings(res.headers['content-encoding']);
    let decodeError: string | null = null;
    if (codings.length > 0 && raw.length > 0) {
      try {
        const decoded = await decodeBody(raw, codings, this.opts.maxBodyBytes);
        raw = decoded.bytes;
        truncated ||= decoded.truncated;
      } catch (e) {
        decodeError = `the body does not decode as its Content-Encoding says (${(e as Error).message})`;
      }
    }
    // A target may echo the key back (in an error message, a header): it is replaced by its placeholder before the
    // exchange is recorded, so no report, curl line or HAR file can carry it.
    let bodyText = raw.toString('utf8');
    const scrubbed = scrub(bodyText);
    if (scrubbed !== bodyText) {
      bodyText = scrubbed;
      raw = Buffer.from(scrubbed, 'utf8');
    }
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) responseHeaders[k.toLowerCase()] = Array.isArray(v) ? v.map(scrub) : scrub(v);
    }
    let json: unknown;
    let jsonError: string | null = null;
    if (decodeError !== null) jsonError = decodeError;
    else if (raw.length === 0) jsonError = 'empty body';
    else if (truncated) jsonError = `body larger than ${this.opts.maxBodyBytes} bytes (read capped)`;
    else {
      try {
        json = parseLossless(bodyText);
      } catch (e) {
        jsonError = (e as Error).message;
      }
    }
    return {
      status: res.status,
      headers: responseHeaders,
      body: raw,
      bodyText,
      truncated,
      json,
      jsonError,
      ...(codings.length > 0 && decodeError === null ? { contentEncoding: codings.join(', ') } : {}),
    };
  }

  /**
   * One request through the dispatcher, its body read up to the cap (the rest is dropped: a hostile target may send far
   * more than any Pet Store answer needs). undici's handler interface rather than `request()`: no stream, async
   * resource or abort signal per request, which cost more than the rest of the exchange on a local target.
   * bodyTimeout measures silence between chunks; a body dripped slowly needs an overall deadline too (the headers are
   * bounded by connectTimeout and headersTimeout already): one timer, which aborts with a TimeoutError.
   */
  private dispatch(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: Uint8Array | null,
    t0: number,
  ): Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    bytes: Buffer;
    truncated: boolean;
  }> {
    // The path on the wire is the URL's, as undici's request() makes it (WHATWG-normalised).
    const u = new URL(url);
    const cap = this.opts.maxBodyBytes;
    const deadlineMs = this.opts.headersTimeoutMs + this.opts.bodyTimeoutMs * 2 + 5_000;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let status = 0;
      let rawHeaders: Buffer[] = [];
      let abort: ((reason?: Error) => void) | null = null;
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const done = (truncated: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        resolve({ status, headers: undiciUtil.parseHeaders(rawHeaders), bytes, truncated });
      };
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      };
      const handler: Dispatcher.DispatchHandler = {
        onConnect: (a) => {
          abort = a as (reason?: Error) => void;
        },
        onHeaders: (statusCode, raw) => {
          if (statusCode < 200) return true; // informational: the answer is still to come
          status = statusCode;
          rawHeaders = raw as Buffer[];
          timer = setTimeout(
            () =>
              abort?.(
                Object.assign(new Error('the whole exchange took longer than its deadline'), { name: 'TimeoutError' }),
              ),
            Math.max(0, deadlineMs - (performance.now() - t0)),
          );
          return true;
        },
        onData: (chunk) => {
          if (settled) return false;
          if (size + chunk.length > cap) {
            chunks.push(chunk.subarray(0, cap - size));
            size = cap;
            done(true);
            // Stop reading: the connection is dropped with the rest of the body.
            abort?.(new Error('body read capped'));
            return false;
          }
          chunks.push(chunk);
          size += chunk.length;
          return true;
        },
        onComplete: () => done(false),
        onError: (e) => fail(e),
      };
      this.agent.dispatch(
        {
          origin: u.origin,
          path: u.search ? `${u.pathname}${u.search}` : u.pathname,
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          headersTimeout: this.opts.headersTimeoutMs,
          bodyTimeout: this.opts.bodyTimeoutMs,
        },
        handler,
      );
    });
  }

  async close(): Promise<void> {
    if (this.ownsAgent) await this.agent.close();
  }

  /** Closes at once, dropping requests in flight (used when a hostile target stalls). */
  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}

function toTransportError(e: unknown): TransportError {
  const err = e as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  // undici's HTTPParserError (chunked garbage, invalid HTTP) carries no code: its name says what happened.
  const named = err.name && err.name !== 'Error' ? err.name : undefined;
  // undici reports a proxy's refusal of CONNECT only in its message ("Proxy response (407) !== 200 …").
  const proxyStatus = /Proxy response \((\d+)\)|Proxy Authentication Required \((\d+)\)/.exec(err.message ?? '');
  if (proxyStatus) {
    const status = proxyStatus[1] ?? proxyStatus[2];
    return { code: PROXY_REFUSED_CODE, message: `the proxy answered ${status} instead of opening a tunnel` };
  }
  // The overall deadline (AbortSignal.timeout) surfaces as a TimeoutError, here or as the cause of an abort.
  if (err.name === 'TimeoutError' || (err.cause as { name?: string } | undefined)?.name === 'TimeoutError') {
    return { code: 'PSC_REQUEST_DEADLINE', message: 'the whole exchange took longer than its deadline' };
  }
  const code =
    (typeof err.cause?.code === 'string' ? err.cause.code : undefined) ??
    (typeof err.code === 'string' ? err.code : undefined) ??
    named ??
    'UNKNOWN';
  return { code, message: err.cause?.message ?? err.message ?? String(e) };
}

/** Transport codes that mean nobody answered at all at that address. */
export const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
]);
