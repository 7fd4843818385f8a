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
import { Recent } from './recent.js';
import { scrub, type ApiKey } from './redact.js';
import { createDispatcher, DEFAULT_TRANSPORT, PROXY_REFUSED_CODE, type TransportSettings } from './transport.js';
import { userAgent } from './user-agent.js';
import { IN_FLIGHT_GRACE_MS, RUN_STOPPED_CODE } from './waits.js';

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
  /**
   * The run's stop (a signal: runner/limits.ts `interrupted`): once it aborts, whatever is still under way a grace
   * later (IN_FLIGHT_GRACE_MS) is aborted, its exchange a transport error PSC_RUN_STOPPED. None by default.
   */
  readonly stop?: AbortSignal;
}

/**
 * How the Authorization header is built. `template` is the header value with `{key}` where the key goes, or null for
 * no header at all. The key is revealed only into the bytes on the wire; the recorded request shows its placeholder.
 */
export interface AuthSpec {
  readonly template: string | null;
  readonly key: ApiKey | null;
  readonly keyPlan: PlanName | 'none' | 'invalid';
  /** A second Authorization header, sent after the first (a repeated field, as a robustness case); no key in it. */
  readonly repeated?: string;
}

export interface OutgoingRequest {
  readonly operation: OperationId | null;
  readonly method: string;
  /** Path and query relative to the base address, already encoded: /pets?limit=5. */
  readonly path: string;
  readonly auth: AuthSpec;
  /** Headers to send (names in any case); an empty Content-Type sends none, where a body would default to JSON. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Raw body: a string is sent as UTF-8. */
  readonly body?: string | Uint8Array | null;
  /**
   * The request-target sent exactly as given (origin-form, from the origin: '/v1/./pets'), for the cases that test how
   * a target reads paths URL parsing would rewrite (dot segments, encoded dots, another case of the version segment).
   * The recorded URL is the origin and this target; `path` still names the request in reports. Default: the base
   * address joined with `path`, as URL parsing makes it.
   */
  readonly rawTarget?: string;
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Characters that WHATWG URL parsing leaves as they are in an http(s) path and query (no percent-encoding, no
 * backslash or tab to rewrite, no fragment), and a dot segment (".", "..", or their %2e spellings) it would resolve.
 */
const URL_STABLE = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*$/;
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:[/?]|$)/i;

/**
 * The request target undici is given for `path` (relative to the base address), as `new URL(base + path)` makes it
 * (WHATWG-normalised: what undici's request() would send). `prefix` is the base address's own path when the base is
 * exactly origin + that path, else null. Paths that parsing provably leaves as they are skip the URL parser: most of
 * them, per request.
 */
export function requestTarget(base: string, prefix: string | null, path: string): string {
  if (
    prefix !== null &&
    path.charCodeAt(0) === 0x2f &&
    path.charCodeAt(path.length - 1) !== 0x3f &&
    URL_STABLE.test(path) &&
    !DOT_SEGMENT.test(path)
  )
    return prefix + path;
  const u = new URL(base + path);
  return u.search ? `${u.pathname}${u.search}` : u.pathname;
}

/** The base address's path when the base is exactly origin + path, each left as it is by URL parsing; else null. */
function stablePrefix(base: string, u: URL): string | null {
  const prefix = u.pathname === '/' && !base.endsWith('/') ? '' : u.pathname;
  return base === u.origin + prefix && URL_STABLE.test(prefix) && !DOT_SEGMENT.test(prefix) ? prefix : null;
}

/** How often the requests' overall deadlines are looked at: one timer per client, not one per request. */
const DEADLINE_SWEEP_MS = 250;

interface InFlight {
  /** performance.now() past which the exchange is abandoned. */
  readonly deadline: number;
  expire(): void;
}

/** What dispatch hands back: the status, the raw header lines and the body read (up to the cap). */
interface RawResponse {
  readonly status: number;
  readonly rawHeaders: readonly (Buffer | string | readonly (Buffer | string)[])[];
  readonly bytes: Buffer;
  readonly truncated: boolean;
}

const NO_CODINGS: readonly string[] = Object.freeze([]);

export class HttpClient {
  readonly baseUrl: string;
  readonly transport: TransportSettings;
  private readonly agent: Dispatcher;
  private readonly opts: Required<Omit<ClientOptions, 'baseUrl' | 'transport' | 'stop'>>;
  private seq = 0;
  /** False for a fork: the connections are its parent's to close. */
  private readonly ownsAgent: boolean;
  /** The base address's origin, and its path when requests may skip the URL parser (see requestTarget). */
  private readonly origin: string;
  private readonly prefix: string | null;
  private readonly userAgent = userAgent();
  /**
   * Exchanges whose headers have come and whose body is still being read, under the overall deadline, and the one
   * timer that sweeps them while the client is open (a fork shares its parent's).
   */
  private readonly deadlines: { readonly inFlight: Set<InFlight>; sweeper: NodeJS.Timeout | null };
  /** Removes this client's listener from the run's stop signal. */
  private unlisten: (() => void) | undefined;
  /**
   * Requests under way (their abort), for the run's stop: a Set, not a signal per request, which would cost more than
   * the rest of the exchange on a local target (a fork shares its parent's).
   */
  private readonly underWay: Set<(reason?: Error) => void>;

  /** A fork (see `fork`) passes the client it forks. */
  constructor(options: ClientOptions, parent?: HttpClient) {
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
    this.ownsAgent = parent === undefined;
    this.agent = parent?.agent ?? createDispatcher(this.transport, this.opts);
    this.deadlines = parent?.deadlines ?? { inFlight: new Set(), sweeper: null };
    this.underWay = parent?.underWay ?? new Set();
    const stop = parent ? undefined : options.stop;
    if (stop) {
      const underWay = this.underWay;
      const abortUnderWay = () =>
        setTimeout(() => {
          for (const abort of [...underWay])
            abort(Object.assign(new Error('the run stopped (a signal) before the answer came'), { name: RUN_STOPPED }));
        }, IN_FLIGHT_GRACE_MS).unref();
      if (stop.aborted) abortUnderWay();
      else {
        stop.addEventListener('abort', abortUnderWay, { once: true });
        // A closed client has nothing under way: its listener goes (a run makes a client per suite on one signal).
        this.unlisten = () => stop.removeEventListener('abort', abortUnderWay);
      }
    }
    const u = new URL(this.baseUrl);
    this.origin = u.origin;
    this.prefix = stablePrefix(this.baseUrl, u);
  }

  /**
   * A client over the same connections whose exchanges are numbered from `firstSeq`: a part of a suite that runs
   * beside others numbers its exchanges whatever the interleaving. It shares the deadline sweep too; closing it closes
   * nothing.
   */
  fork(firstSeq: number): HttpClient {
    const child = new HttpClient({ baseUrl: this.baseUrl, transport: this.transport, ...this.opts }, this);
    child.seq = firstSeq - 1;
    return child;
  }

  async send(req: OutgoingRequest): Promise<Exchange> {
    const raw = req.rawTarget;
    const url = raw === undefined ? this.baseUrl + req.path : this.origin + raw;
    const wire: Record<string, string> = {};
    const recorded: Record<string, string> = {};
    const given = req.headers;
    if (given !== undefined)
      for (const k in given) {
        const name = k.toLowerCase();
        wire[name] = recorded[name] = given[k]!;
      }
    // Recorded too: curl lines, HAR files and replays then send what the run sent.
    if (wire['user-agent'] === undefined) wire['user-agent'] = recorded['user-agent'] = this.userAgent;
    const accept = this.transport.acceptEncoding;
    if (accept !== null && wire['accept-encoding'] === undefined)
      wire['accept-encoding'] = recorded['accept-encoding'] = accept;
    const body = req.body == null ? null : typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : req.body;
    if (body !== null && wire['content-type'] === undefined) {
      wire['content-type'] = recorded['content-type'] = 'application/json';
    } else if (wire['content-type'] === '') {
      // An empty Content-Type asks for none at all: a body sent without its media type (a robustness case).
      delete wire['content-type'];
      delete recorded['content-type'];
    }
    const template = req.auth.template;
    if (template !== null) {
      const key = req.auth.key;
      if (key) {
        const parts = templateParts.of(template, splitTemplate);
        wire.authorization = parts.join(key.reveal());
        recorded.authorization = parts.join(key.placeholder);
      } else wire.authorization = recorded.authorization = template;
    }
    const repeated = req.auth.repeated;
    const sent: Record<string, string | string[]> =
      repeated === undefined || wire.authorization === undefined
        ? wire
        : { ...wire, authorization: [wire.authorization, repeated] };
    const request: RecordedRequest = {
      method: req.method,
      url,
      path: req.path,
      headers: recorded,
      body,
      ...(raw !== undefined && { rawTarget: raw }),
      ...(sent !== wire && { laterLines: [['authorization', repeated!] as const] }),
    };
    const seq = ++this.seq;
    const startedAt = Date.now();
    const t0 = performance.now();
    let response: RecordedResponse | null = null;
    let error: TransportError | null = null;
    try {
      const target = raw ?? requestTarget(this.baseUrl, this.prefix, req.path);
      const res = await this.dispatch(target, req.method, sent, body, t0);
      const headers = responseHeaders(res.rawHeaders);
      const coding = headers['content-encoding'];
      const codings = coding === undefined ? NO_CODINGS : contentCodings(coding);
      // Bodies are judged decoded, whatever the status (a 429's Error body included); the coding is recorded.
      response =
        codings.length > 0 && res.bytes.length > 0
          ? await this.decoded(res, headers, codings)
          : this.recorded(res, headers, codings, res.bytes, res.truncated, null);
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
    return ex;
  }

  /** The response of a body that carries a Content-Encoding: decoded first (not on the path of most exchanges). */
  private async decoded(
    res: RawResponse,
    headers: Record<string, string | string[]>,
    codings: readonly string[],
  ): Promise<RecordedResponse> {
    try {
      const decoded = await decodeBody(res.bytes, codings, this.opts.maxBodyBytes);
      return this.recorded(res, headers, codings, decoded.bytes, res.truncated || decoded.truncated, null);
    } catch (e) {
      const why = `the body does not decode as its Content-Encoding says (${(e as Error).message})`;
      return this.recorded(res, headers, codings, res.bytes, res.truncated, why);
    }
  }

  private recorded(
    res: RawResponse,
    headers: Record<string, string | string[]>,
    codings: readonly string[],
    bytes: Buffer,
    truncated: boolean,
    decodeError: string | null,
  ): RecordedResponse {
    let raw = bytes;
    // A target may echo the key back (in an error message, a header): it is replaced by its placeholder before the
    // exchange is recorded, so no report, curl line or HAR file can carry it.
    let bodyText = raw.toString('utf8');
    const scrubbed = scrub(bodyText);
    if (scrubbed !== bodyText) {
      bodyText = scrubbed;
      raw = Buffer.from(scrubbed, 'utf8');
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
    const response: RecordedResponse = { status: res.status, headers, body: raw, bodyText, truncated, json, jsonError };
    return codings.length > 0 && decodeError === null ? { ...response, contentEncoding: codings.join(', ') } : response;
  }

  /**
   * One request through the dispatcher, its body read up to the cap (the rest is dropped: a hostile target may send far
   * more than any Pet Store answer needs). undici's handler interface rather than `request()`: no stream, async
   * resource or abort signal per request, which cost more than the rest of the exchange on a local target.
   * bodyTimeout measures silence between chunks; a body dripped slowly needs an overall deadline too (the headers are
   * bounded by connectTimeout and headersTimeout already): the client's one sweeping timer aborts it with a
   * TimeoutError (a timer per request costs more than the rest of the HTTP layer's own work).
   */
  private dispatch(
    target: string,
    method: string,
    headers: Record<string, string | string[]>,
    body: Uint8Array | null,
    t0: number,
  ): Promise<RawResponse> {
    const cap = this.opts.maxBodyBytes;
    const deadlineMs = this.opts.headersTimeoutMs + this.opts.bodyTimeoutMs * 2 + 5_000;
    const { inFlight } = this.deadlines;
    const underWay = this.underWay;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let status = 0;
      let rawHeaders: Buffer[] = [];
      let abort: ((reason?: Error) => void) | null = null;
      let watched: InFlight | null = null;
      let settled = false;
      const done = (truncated: boolean) => {
        if (settled) return;
        settled = true;
        if (abort) underWay.delete(abort);
        if (watched) inFlight.delete(watched);
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        resolve({ status, rawHeaders, bytes, truncated });
      };
      const fail = (e: Error) => {
        if (settled) return;
        settled = true;
        if (abort) underWay.delete(abort);
        if (watched) inFlight.delete(watched);
        reject(e);
      };
      const handler: Dispatcher.DispatchHandler = {
        onConnect: (a) => {
          abort = a as (reason?: Error) => void;
          // A run's stop (a signal) aborts what is still under way a grace later (see the constructor).
          underWay.add(abort);
        },
        onHeaders: (statusCode, raw) => {
          if (statusCode < 200) return true; // informational: the answer is still to come
          status = statusCode;
          rawHeaders = raw as Buffer[];
          watched = {
            deadline: t0 + deadlineMs,
            expire: () =>
              abort?.(
                Object.assign(new Error('the whole exchange took longer than its deadline'), { name: 'TimeoutError' }),
              ),
          };
          this.watch(watched);
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
          origin: this.origin,
          path: target,
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

  /** Puts an exchange under the overall deadline; the sweeping timer runs while the client is open. */
  private watch(entry: InFlight): void {
    const d = this.deadlines;
    d.inFlight.add(entry);
    d.sweeper ??= setInterval(() => {
      const now = performance.now();
      for (const e of d.inFlight) if (now >= e.deadline) e.expire();
    }, DEADLINE_SWEEP_MS).unref();
  }

  private stopSweeper(): void {
    if (!this.ownsAgent) return;
    if (this.deadlines.sweeper) clearInterval(this.deadlines.sweeper);
    this.deadlines.sweeper = null;
  }

  async close(): Promise<void> {
    this.unlisten?.();
    this.unlisten = undefined;
    try {
      if (this.ownsAgent) await this.agent.close();
    } finally {
      this.stopSweeper();
    }
  }
}

/** Authorization templates split at their `{key}` places: a run sends a handful, each again and again. */
const templateParts = new Recent<string, readonly string[]>(16);
const splitTemplate = (template: string): readonly string[] => template.split('{key}');

const latin1 = (v: Buffer | string): string => (typeof v === 'string' ? v : v.toString('latin1'));

/**
 * The response headers as recorded, in one pass over undici's raw lines: names lower-cased, values as latin1 text
 * with every known secret scrubbed, a repeated header an array (as undici's parseHeaders makes them).
 */
function responseHeaders(raw: RawResponse['rawHeaders']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = undiciUtil.headerNameToString(raw[i] as Buffer | string);
    const v = raw[i + 1]!;
    const values = Array.isArray(v) ? (v as readonly (Buffer | string)[]).map((x) => scrub(latin1(x))) : null;
    const value = values ?? scrub(latin1(v as Buffer | string));
    const prev = out[name];
    // Inherited names (constructor, __proto__) read as defined: only then is ownership asked.
    if (prev === undefined || !Object.hasOwn(out, name)) {
      // A header named __proto__ is data like any other, not the record's prototype.
      if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true });
      else out[name] = value;
      continue;
    }
    const list = typeof prev === 'string' ? [prev] : prev;
    if (typeof value === 'string') list.push(value);
    else list.push(...value);
    out[name] = list;
  }
  return out;
}

/** The name of the error with which the run's stop aborts a request under way. */
const RUN_STOPPED = 'RunStoppedAbort';

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
  if (err.name === RUN_STOPPED || (err.cause as { name?: string } | undefined)?.name === RUN_STOPPED)
    return { code: RUN_STOPPED_CODE, message: err.message ?? 'the run stopped before the answer came' };
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
