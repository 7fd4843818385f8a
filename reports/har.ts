/**
 * HAR 1.2 export of every exchange of a run (optional, --har FILE), written as the exchanges arrive. Keys appear only
 * as placeholders: the recorded request never held them, and the file passes the secret gate like every other file.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { ExchangeData } from '../suites/meta.js';
import { guardSecrets } from './secret-gate.js';

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    queryString: { name: string; value: string }[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
    cookies: [];
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    content: { size: number; mimeType: string; text: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
    cookies: [];
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _error?: string;
}

function harEntry(ex: ExchangeData): HarEntry {
  const url = new URL(ex.request.url);
  const body = ex.request.body === null ? null : Buffer.from(ex.request.body).toString('utf8');
  const resHeaders = Object.entries(ex.response?.headers ?? {}).flatMap(([name, v]) =>
    (Array.isArray(v) ? v : [v]).map((value) => ({ name, value })),
  );
  return {
    startedDateTime: new Date(ex.startedAt).toISOString(),
    time: ex.durationMs,
    request: {
      method: ex.request.method,
      url: ex.request.url,
      httpVersion: 'HTTP/1.1',
      headers: [...Object.entries(ex.request.headers), ...(ex.request.laterLines ?? [])].map(([name, value]) => ({
        name,
        value,
      })),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(body !== null
        ? { postData: { mimeType: ex.request.headers['content-type'] ?? 'application/json', text: body } }
        : {}),
      headersSize: -1,
      bodySize: ex.request.body?.length ?? 0,
      cookies: [],
    },
    response: {
      status: ex.response?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: resHeaders,
      content: {
        size: ex.response?.body.length ?? 0,
        mimeType: String(ex.response?.headers['content-type'] ?? ''),
        text: ex.response?.bodyText ?? '',
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: ex.response?.body.length ?? -1,
      cookies: [],
    },
    cache: {},
    timings: { send: 0, wait: ex.durationMs, receive: 0 },
    ...(ex.error ? { _error: `${ex.error.code}: ${ex.error.message}` } : {}),
  };
}

/**
 * Writes a HAR as the exchanges arrive, so that a run never holds them all: the entries go to a temporary file beside
 * the target, each batch through the secret gate, and `close` adds the closing part and moves the file into place
 * (a run that fails leaves no partial HAR). The JSON is the same HAR 1.2 document a one-shot write would give, entries
 * in arrival order. A leak stops the writing: `close` then throws it, as the one-shot gate did.
 */
export class HarWriter {
  private readonly partial: string;
  private fd: number | null;
  private written = 0;
  private failure: Error | null = null;

  constructor(
    readonly path: string,
    version: string,
  ) {
    this.partial = `${path}.${process.pid}.partial`;
    this.fd = openSync(this.partial, 'w');
    const creator = JSON.stringify({ name: 'petstore-conformance', version });
    writeSync(this.fd, `{"log":{"version":"1.2","creator":${creator},"entries":[`);
  }

  /** How many entries were written so far. */
  get count(): number {
    return this.written;
  }

  /** Appends entries for the exchanges given (nothing of them is kept). */
  append(exchanges: readonly ExchangeData[]): void {
    if (this.fd === null || this.failure || exchanges.length === 0) return;
    let text = '';
    for (const ex of exchanges) text += `${this.written++ === 0 ? '' : ','}${JSON.stringify(harEntry(ex))}`;
    try {
      writeSync(this.fd, guardSecrets(text, this.path));
    } catch (e) {
      this.failure = e as Error;
    }
  }

  /** Ends the document (`comment`: what the run's limits did, HAR 1.2 log.comment), moves it into place; how many. */
  close(comment?: string): number {
    if (this.fd === null) throw new Error(`HAR ${this.path}: already closed`);
    if (this.failure) {
      this.abort();
      throw this.failure;
    }
    writeSync(this.fd, `]${comment ? `,"comment":${JSON.stringify(guardSecrets(comment, this.path))}` : ''}}}`);
    closeSync(this.fd);
    this.fd = null;
    renameSync(this.partial, this.path);
    return this.written;
  }

  /** Drops what was written (the run failed before its report). */
  abort(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    rmSync(this.partial, { force: true });
  }
}
