/**
 * What the run spent, for the reports: requests per key and what the target's rate-limit headers last said of it,
 * every id the run created, what the request budget left out inside the suites, what each suite's coverage phase
 * sent, and the traffic over time (runner/traffic.ts). It limits nothing (runner/limits.ts does).
 */
import type { OutgoingRequest } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitNumber } from '../http/rate-limit-headers.js';
import { Traffic, type TrafficSnapshot } from './traffic.js';

/** What one key spent and what the target's rate-limit headers last said about it. */
export interface KeySpend {
  sent: number;
  /** X-RateLimit-Limit / -Remaining / -Reset as last seen on an answer to this key (null: not sent). */
  headerLimit: number | null;
  headerRemaining: number | null;
  headerReset: number | null;
}

export interface LedgerSnapshot {
  readonly createdIds: readonly string[];
  readonly byKey: Readonly<Record<string, KeySpend>>;
  /** What the request budget left out inside suites: a phase cut short, a random exploration that ended early. */
  readonly leftOut: readonly string[];
  /** Requests each suite sent in its coverage phase (before its first random part). */
  readonly coverage: Readonly<Record<string, number>>;
  /** Answers per key and second by status class, and the waits. */
  readonly traffic: TrafficSnapshot;
}

export class Ledger {
  private readonly createdIds: string[] = [];
  private readonly byKey: Record<string, KeySpend> = {};
  private readonly left: string[] = [];
  private readonly coverage: Record<string, number> = {};
  private readonly traffic = new Traffic();

  /** A request is on its way with its key. */
  sent(req: OutgoingRequest): void {
    const plan = req.auth.keyPlan;
    this.byKey[plan] ??= { sent: 0, headerLimit: null, headerRemaining: null, headerReset: null };
    this.byKey[plan].sent++;
  }

  /** Its answer: what the rate-limit headers say of the key, and the id of a pet it created. */
  answered(ex: Exchange): void {
    this.traffic.answered(ex);
    const spend = this.byKey[ex.keyPlan];
    if (spend && ex.response) {
      spend.headerLimit = rateLimitNumber(ex, 'limit') ?? spend.headerLimit;
      spend.headerRemaining = rateLimitNumber(ex, 'remaining') ?? spend.headerRemaining;
      spend.headerReset = rateLimitNumber(ex, 'reset') ?? spend.headerReset;
    }
    if (ex.operation !== 'createPet' || !ex.response || ex.response.status < 200 || ex.response.status >= 300) return;
    const id = (ex.response.json as { id?: unknown } | null | undefined)?.id;
    if (id !== undefined && id !== null && typeof id !== 'object') this.createdIds.push(String(id));
    else if (id !== undefined && id !== null && typeof (id as { value?: unknown }).value === 'string')
      this.createdIds.push((id as { value: string }).value);
  }

  /** The run waited `ms` for a key's limit (a Retry-After, a spent window) or a scenario's reason. */
  waited(plan: string | null, ms: number, reason: string): void {
    this.traffic.waited(plan, ms, reason);
  }

  leftOut(what: string): void {
    this.left.push(what);
  }

  /** What a suite's coverage phase sent: its requests when its first random part begins (later parts change nothing). */
  coverageSent(suite: string, sent: number): void {
    if (!(suite in this.coverage)) this.coverage[suite] = sent;
  }

  snapshot(): LedgerSnapshot {
    return {
      createdIds: [...this.createdIds],
      byKey: structuredClone(this.byKey),
      leftOut: [...this.left],
      coverage: { ...this.coverage },
      traffic: this.traffic.snapshot(),
    };
  }
}
