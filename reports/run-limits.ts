/**
 * What the run's limits did, for every report: the time budget, the request budget and what it left out, the
 * creations and every id created, and per key the requests spent and what the target's headers say is left.
 */
import { isUnkeyedPlan } from '../http/exchange.js';
import type { KeySpend } from '../runner/ledger.js';
import type { Stop } from '../runner/limits.js';
import type { RunOutcome } from '../runner/outcome.js';

/** A key's spend (runner/ledger.ts), the preflight's request included, under its plan. */
export interface KeySpendReport extends Readonly<KeySpend> {
  readonly plan: string;
}

/** The run's request budget and where it came from. */
export interface RunBudget {
  /** Hard cap on the requests of the run (null: none). */
  readonly limit: number | null;
  /** Where the cap came from: --budget, or a quarter of the key's daily quota. */
  readonly source: 'flag' | 'quota' | 'none';
}

export interface RunLimitsReport {
  readonly maxDurationSeconds: number;
  readonly budget: {
    /** Hard cap on the requests of the run (null: none). */
    readonly limit: number | null;
    /** Where the cap came from: --budget, or a quarter of the key's daily quota. */
    readonly source: 'flag' | 'quota' | 'none';
    /** Requests sent, the start-up check included. */
    readonly sent: number;
    /** Suites (or parts) a limit left out, and why. */
    readonly leftOut: readonly string[];
  };
  readonly maxCreates: number | null;
  readonly created: { readonly count: number; readonly ids: readonly string[] };
  readonly keys: readonly KeySpendReport[];
  /** Why the run stopped early, if it did. */
  readonly stop: Stop | null;
}

/** Ids ascending: integers by value (the target's ids may pass 2^53), anything else after them as text. */
function inIdOrder(ids: readonly string[]): string[] {
  const value = (id: string) => (/^-?\d{1,400}$/.test(id) ? BigInt(id) : null);
  return [...ids].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
    if (x !== null || y !== null) return x !== null ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

/** What the run's limits did, from the run's totals (its snapshot) and the requests sent before the suites. */
export function runLimitsOf(r: {
  readonly maxDurationMs: number;
  readonly maxCreates: number | null;
  /** The suites asked for: one that did not run is left out. */
  readonly suites: readonly string[];
  readonly budget: RunBudget;
  readonly outcome: RunOutcome | null;
  readonly functionalPlan: string;
  /** Requests the command sent before the suites, with the functional key (the preflight's). */
  readonly preflightRequests: number;
  /** A signal's stop (cli/interrupt.ts): the stop the reports name, whatever limit the run met before it. */
  readonly interrupted?: Stop | null;
}): RunLimitsReport {
  const outcomes = r.outcome?.outcomes ?? [];
  const last = r.outcome?.snapshot ?? null;
  const keys = Object.entries(last?.byKey ?? {}).map(([plan, k]) => ({
    plan,
    ...k,
    sent: k.sent + (plan === r.functionalPlan ? r.preflightRequests : 0),
  }));
  if (!keys.some((k) => k.plan === r.functionalPlan))
    keys.push({
      plan: r.functionalPlan,
      sent: r.preflightRequests,
      headerLimit: null,
      headerRemaining: null,
      headerReset: null,
    });
  const leftOut: string[] = [];
  const ran = new Set(outcomes.map((o) => o.meta.suite));
  for (const o of outcomes)
    if (o.meta.stopped)
      leftOut.push(`${o.meta.suite}: stopped after ${o.meta.exchanges} requests (${o.meta.stopped.message})`);
  const why = r.interrupted ? ` (${r.interrupted.message})` : '';
  for (const s of r.suites) if (!ran.has(s)) leftOut.push(`${s}: did not run${why}`);
  // Inside the suites that ran: random phases the budget cut short.
  leftOut.push(...(last?.leftOut ?? []));
  return {
    maxDurationSeconds: Math.round(r.maxDurationMs / 1000),
    budget: { ...r.budget, sent: (last?.sent ?? 0) + r.preflightRequests, leftOut },
    maxCreates: r.maxCreates,
    // In id order, not arrival order: suites side by side (--concurrency) interleave their creations.
    created: { count: last?.createdIds.length ?? 0, ids: inIdOrder(last?.createdIds ?? []) },
    keys: keys.sort((a, b) => a.plan.localeCompare(b.plan)),
    stop: r.interrupted ?? last?.stop ?? null,
  };
}

function keyLine(k: KeySpendReport): string {
  const left =
    k.headerRemaining === null
      ? 'no X-RateLimit-Remaining seen'
      : `headers say ${k.headerRemaining}${k.headerLimit === null ? '' : ` of ${k.headerLimit}`} left` +
        (k.headerReset === null ? '' : ` (reset ${new Date(k.headerReset * 1000).toISOString()})`);
  return `${k.plan} key: ${k.sent} requests; ${left}`;
}

function lines(r: RunLimitsReport): string[] {
  const out = [
    `Time budget: ${r.maxDurationSeconds} s (--max-duration)`,
    `Requests: ${r.budget.sent}${r.budget.limit === null ? '' : ` of a budget of ${r.budget.limit} (${r.budget.source === 'flag' ? '--budget' : "a quarter of the key's daily quota"})`}`,
    `Pets created: ${r.created.count}${r.maxCreates === null ? '' : ` (at most ${r.maxCreates}, --max-creates)`}`,
    ...r.keys.filter((k) => !isUnkeyedPlan(k.plan)).map(keyLine),
  ];
  // Requests sent with no key or a deliberately bad one (the auth cases) spend no key's quota.
  const unkeyed = r.keys.filter((k) => isUnkeyedPlan(k.plan)).reduce((n, k) => n + k.sent, 0);
  if (unkeyed > 0) out.push(`without a valid key (auth cases): ${unkeyed} requests`);
  if (r.stop) out.push(`Stopped early: ${r.stop.message} [${r.stop.code}]`);
  for (const l of r.budget.leftOut) out.push(`Left out: ${l}`);
  return out;
}

/** One line for files that hold free text only (HAR's log.comment). */
export function runLimitsLine(r: RunLimitsReport): string {
  return lines(r).join('; ');
}

export function renderRunLimits(r: RunLimitsReport): string {
  return `\nRun limits\n${lines(r)
    .map((l) => `  ${l}`)
    .join('\n')}\n`;
}

export function renderRunLimitsMarkdown(r: RunLimitsReport): string {
  return `\n#### Run limits\n\n${lines(r)
    .map((l) => `- ${l}`)
    .join('\n')}\n`;
}
