/**
 * Another client of the target during a run, as other teams are on a shared staging: a key of its own that creates
 * and lists pets at a steady rate. Loopback only; it sends one request at a time and stops by itself after
 * `maxRequests` or `maxMs`, whichever comes first, or when the target stops answering.
 */
import { Agent, request } from 'undici';

export interface WriterOptions {
  /** Base URL ending in /v1, on 127.0.0.1, ::1 or localhost. */
  readonly url: string;
  /** The writer's own key (never one the run uses, so it spends none of the run's limits). */
  readonly key: string;
  /** Requests per second, default 20. */
  readonly perSecond?: number;
  /** Default 2,000. */
  readonly maxRequests?: number;
  /** Default 120,000 ms. */
  readonly maxMs?: number;
}

export interface WriterReport {
  readonly sent: number;
  /** Ids of the pets it created, as decimal digits. */
  readonly created: readonly string[];
  /** Responses by status ('error' for a transport failure). */
  readonly statuses: Readonly<Record<string, number>>;
}

export interface BackgroundWriter {
  /** Resolves when the writer has stopped by itself (limits reached, or the target gone). */
  readonly finished: Promise<WriterReport>;
  /** Stops after the request in flight; resolves with what it did. */
  stop(): Promise<WriterReport>;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const STATUSES = ['available', 'pending', 'sold'] as const;
/** Transport failures in a row after which the target is taken to be gone. */
const GIVE_UP_AFTER = 5;

export function startBackgroundWriter(o: WriterOptions): BackgroundWriter {
  const base = new URL(o.url);
  if (!LOOPBACK.has(base.hostname)) throw new Error(`background writer: ${base.hostname} is not a loopback address`);
  const perSecond = o.perSecond ?? 20;
  const maxRequests = o.maxRequests ?? 2_000;
  const maxMs = o.maxMs ?? 120_000;
  if (!(perSecond > 0 && perSecond <= 1_000)) throw new Error('background writer: perSecond must be in (0, 1000]');
  const interval = 1000 / perSecond;
  const dispatcher = new Agent({ connections: 1 });
  const headers = { authorization: `Bearer ${o.key}`, 'content-type': 'application/json' };
  const created: string[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  let stopped = false;
  let wake: (() => void) | null = null;

  const one = async (i: number): Promise<boolean> => {
    const creates = i % 2 === 0;
    const status = STATUSES[i % 3]!;
    const path = creates ? '/pets' : i % 4 === 1 ? '/pets?limit=100' : `/pets?status=${status}&limit=50`;
    const body = creates ? JSON.stringify({ name: `other client ${i}`, categoryId: i, status }) : undefined;
    try {
      const res = await request(`${o.url}${path}`, {
        method: creates ? 'POST' : 'GET',
        headers,
        body,
        dispatcher,
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      const text = await res.body.text();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const id = creates && res.statusCode === 201 ? /"id":(-?\d+)/.exec(text)?.[1] : undefined;
      if (id) created.push(id);
      return true;
    } catch {
      statuses.error = (statuses.error ?? 0) + 1;
      return false;
    }
  };

  const loop = async (): Promise<void> => {
    const start = Date.now();
    let failuresInARow = 0;
    while (!stopped && sent < maxRequests && Date.now() - start < maxMs && failuresInARow < GIVE_UP_AFTER) {
      // A steady pace: request i goes at start + i × interval, whatever the time the previous one took.
      const due = start + sent * interval - Date.now();
      if (due > 0) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, due);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = null;
        if (stopped) break;
      }
      failuresInARow = (await one(sent++)) ? 0 : failuresInARow + 1;
    }
  };

  const report = (): WriterReport => ({ sent, created: [...created], statuses: { ...statuses } });
  const finished = loop()
    .finally(() => dispatcher.close())
    .then(report);
  return {
    finished,
    async stop(): Promise<WriterReport> {
      stopped = true;
      (wake as (() => void) | null)?.();
      await finished;
      return report();
    },
  };
}
