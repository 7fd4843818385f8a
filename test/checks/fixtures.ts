/** Synthetic exchanges for check tests: a full Exchange whose response json is parsed losslessly from a body string. */
import type { Exchange, RecordedResponse } from '../../http/exchange.js';
import { parseLossless } from '../../http/lossless.js';
import type { OperationId, PlanName } from '../../spec/contract.js';
import type { ResponseEvidence } from '../../checks/response.js';

/** A fixed "now": 2025-06-01T12:00:00Z. */
export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
export const NOW_S = NOW / 1000;
export const FREE = { requestsPerMinute: 60, requestsPerDay: 1000 } as const;

export const PET = '{"id":1,"name":"Rex","categoryId":2,"status":"available"}';
export const ERROR = (status: number) => `{"code":"E","message":"m","status":${status}}`;

export interface ExchangeInit {
  seq?: number;
  operation?: OperationId | null;
  method?: string;
  path?: string;
  status?: number;
  /** Merged over valid defaults; undefined removes a default header. */
  headers?: Record<string, string | string[] | undefined>;
  body?: string;
  requestBody?: string | null;
  requestHeaders?: Record<string, string>;
  error?: { code: string; message: string };
  keyPlan?: PlanName | 'none' | 'invalid';
  /** When the request started (epoch ms) and how long until it was answered: by default answered at NOW. */
  startedAt?: number;
  durationMs?: number;
}

const defaults: Record<
  OperationId,
  { method: string; path: string; status: number; body: string; requestBody: string | null }
> = {
  listPets: { method: 'GET', path: '/pets', status: 200, body: `[${PET}]`, requestBody: null },
  createPet: {
    method: 'POST',
    path: '/pets',
    status: 201,
    body: PET,
    requestBody: '{"name":"Rex","categoryId":2,"status":"available"}',
  },
  getPet: { method: 'GET', path: '/pets/1', status: 200, body: PET, requestBody: null },
};

export function rateLimitHeaders(nowMs = NOW): Record<string, string> {
  return {
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '59',
    'x-ratelimit-reset': String(Math.floor(nowMs / 1000) + 30),
  };
}

let seq = 0;

export function exchange(init: ExchangeInit = {}): Exchange {
  const operation = init.operation === undefined ? 'listPets' : init.operation;
  const d = operation
    ? defaults[operation]
    : { method: 'GET', path: '/', status: 404, body: ERROR(404), requestBody: null };
  const status = init.status ?? d.status;
  const body = init.body ?? (init.status !== undefined && init.status !== d.status ? ERROR(status) : d.body);
  const headers: Record<string, string | string[]> = {
    'content-type': 'application/json; charset=utf-8',
    date: new Date(NOW).toUTCString(),
    ...rateLimitHeaders(),
  };
  if (status === 401) headers['www-authenticate'] = 'Bearer realm="petstore"';
  if (status === 429) headers['retry-after'] = '30';
  for (const [k, v] of Object.entries(init.headers ?? {})) {
    if (v === undefined) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  let json: unknown;
  let jsonError: string | null = null;
  if (body.length === 0) jsonError = 'empty body';
  else {
    try {
      json = parseLossless(body);
    } catch (e) {
      jsonError = (e as Error).message;
    }
  }
  const bytes = new TextEncoder().encode(body);
  const response: RecordedResponse | null = init.error
    ? null
    : { status, headers, body: bytes, bodyText: body, truncated: false, json, jsonError };
  const reqBody = init.requestBody === undefined ? d.requestBody : init.requestBody;
  const path = init.path ?? d.path;
  return {
    seq: init.seq ?? ++seq,
    operation,
    keyPlan: init.keyPlan ?? 'free',
    request: {
      method: init.method ?? d.method,
      url: `http://127.0.0.1:1/v1${path}`,
      path,
      headers: {
        authorization: 'Bearer $PETSTORE_API_KEY_FREE',
        ...(reqBody !== null ? { 'content-type': 'application/json' } : {}),
        ...init.requestHeaders,
      },
      body: reqBody === null ? null : new TextEncoder().encode(reqBody),
    },
    response,
    error: init.error ?? null,
    startedAt: init.startedAt ?? NOW - 10,
    durationMs: init.durationMs ?? 10,
  };
}

export function evidence(
  init: ExchangeInit = {},
  extra: Partial<Omit<ResponseEvidence, 'exchange'>> = {},
): ResponseEvidence {
  return { exchange: exchange(init), plan: FREE, ...extra };
}
