/**
 * HAR 1.2 export of every exchange of a run (optional, --har FILE). Keys appear only as placeholders: the recorded
 * request never held them, and the file passes the secret gate like every other file.
 */
import { writeFileSync } from 'node:fs';
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

export function harEntry(ex: ExchangeData): HarEntry {
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
      headers: Object.entries(ex.request.headers).map(([name, value]) => ({ name, value })),
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

/** Writes one HAR of the given exchanges (in the order given), through the secret gate; returns how many. */
export function writeHar(path: string, exchanges: readonly ExchangeData[], version: string): number {
  const har = {
    log: { version: '1.2', creator: { name: 'petstore-conformance', version }, entries: exchanges.map(harEntry) },
  };
  writeFileSync(path, guardSecrets(JSON.stringify(har), path));
  return exchanges.length;
}
