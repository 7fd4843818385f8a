/** Test helpers for the reference server: raw requests against 127.0.0.1 with undici, bodies parsed losslessly. */
import { request } from 'undici';
import { parseLossless } from '../../http/lossless.js';
import type { PlanName } from '../../spec/contract.js';
import type { ReferenceClock, ReferenceServer } from '../../reference/server.js';

/** A parsed body as the tests probe it: any shape a faulty server may answer, read without ceremony. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary (possibly non-conformant) JSON field by field
export type Json = any;

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  /** Lossless parse (numbers are LosslessNumber); undefined when the body is not JSON. */
  readonly json: Json;
}

export interface CallOptions {
  /** Full Authorization header value; null sends none. Default: Bearer <key of `plan`>. */
  readonly auth?: string | null;
  readonly plan?: PlanName;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
}

export function keyOf(server: ReferenceServer, plan: PlanName = 'enterprise'): string {
  const k = server.keys.find((x) => x.plan === plan);
  if (!k) throw new Error(`no ${plan} key`);
  return k.key;
}

export async function call(server: ReferenceServer, method: string, path: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  const auth = o.auth === undefined ? `Bearer ${keyOf(server, o.plan)}` : o.auth;
  if (auth !== null) headers.authorization = auth;
  if (o.body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const res = await request(server.url + path, { method: method as 'GET', headers, body: o.body });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
  let json: unknown;
  try {
    json = parseLossless(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: flat, text, json };
}

export function createBody(name: string, categoryId: string | number, status?: string, extra = ''): string {
  const s = status === undefined ? '' : `,"status":${JSON.stringify(status)}`;
  return `{"name":${JSON.stringify(name)},"categoryId":${categoryId}${s}${extra}}`;
}

/**
 * A reference server's time, moved by hand (startReferenceServer's second argument): a window passes when the test
 * says so, never while a busy machine is slow between two requests. An answer a fault holds back is recorded in
 * `held` (ms) and sent at once: time is the test's, and the hold-back is the behaviour to observe.
 */
export class ManualClock implements ReferenceClock {
  readonly held: number[] = [];
  /** Default start: a fixed instant, a whole second plus 250 ms (Reset and Retry-After round to whole seconds). */
  constructor(private at = Date.UTC(2030, 0, 1, 0, 0, 0, 250)) {}
  now(): number {
    return this.at;
  }
  later(ms: number, fn: () => void): void {
    this.held.push(ms);
    fn();
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

/** The digits of a lossless number (or the string itself), for exact comparisons. */
export function text(value: unknown): string {
  return String((value as { value?: string })?.value ?? value);
}
