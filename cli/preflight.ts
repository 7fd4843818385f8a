/**
 * Before any suite runs: is the target there, does it take the key, and can the key's remaining quota cover the run?
 * A run that cannot finish is scaled down or refused up front rather than failing halfway (or getting a key banned).
 */
import type { Config, PlanKey, SuiteName } from '../config/config.js';
import { HarnessError } from '../errors/catalogue.js';
import { HttpClient, UNREACHABLE_CODES } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { rateLimitNumber } from '../http/rate-limit-headers.js';
import { listPets } from '../runner/requests.js';
import { reachFailure } from '../runner/reach.js';
import { refusedKeyError } from '../runner/key-refusal.js';

export interface PreflightResult {
  readonly remaining: number | null;
  /** X-RateLimit-Limit of the first answer (the limit in force), for the default concurrency. */
  readonly limit: number | null;
  readonly runs: number;
  readonly notes: string[];
  /** The preflight's exchange: judged by the response checks with the run's (runner/preflight-outcome.ts). */
  readonly exchange: Exchange;
}

/** Codes of a target that accepted the connection but did not answer in time. */
const STALLED_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export const PREFLIGHT_LIMITS = { connectTimeoutMs: 5_000, headersTimeoutMs: 15_000, bodyTimeoutMs: 15_000 } as const;

export async function preflight(
  config: Config,
  key: PlanKey,
  functionalSuites: readonly SuiteName[],
  limits: { connectTimeoutMs?: number; headersTimeoutMs?: number; bodyTimeoutMs?: number } = PREFLIGHT_LIMITS,
): Promise<PreflightResult> {
  const client = new HttpClient({ baseUrl: config.target!, transport: config.transport, ...limits });
  try {
    const ex = await client.send(listPets({ template: 'Bearer {key}', key: key.key, keyPlan: key.plan }));
    // TLS trust and proxy failures are configuration, named with their remedy (before "unreachable": through a proxy,
    // a refused connection is the proxy's).
    const reach = ex.error ? reachFailure(config.target!, config.transport, ex.error) : null;
    if (reach) throw reach;
    if (ex.error && UNREACHABLE_CODES.has(ex.error.code)) {
      throw new HarnessError(
        'PSC_UNREACHABLE',
        `target unreachable: ${config.target} (${ex.error.code}: ${ex.error.message})`,
      );
    }
    // A target that stalls its first answer would cost every request of the run a full timeout: a hang in CI.
    if (ex.error && STALLED_CODES.has(ex.error.code)) {
      throw new HarnessError(
        'PSC_UNREACHABLE',
        `target stalled: ${config.target} accepted the connection but did not answer GET /pets in time (${ex.error.code})`,
      );
    }
    const notes: string[] = [];
    if (ex.error)
      notes.push(`the first request failed (${ex.error.code}); the suites will report what the target does`);
    const status = ex.response?.status;
    if (status === 401 || status === 403)
      throw refusedKeyError(config.target!, key, status, ex.response?.bodyText ?? '');
    const remaining = rateLimitNumber(ex, 'remaining');
    let runs = config.runs;
    if (remaining !== null && key.limits) {
      // Remaining speaks for the current window only; the pacer waits windows out, so only the daily quota bounds the run.
      const dayLeft = remaining <= key.limits.requestsPerMinute ? key.limits.requestsPerDay : remaining;
      // The suites' estimates load every scenario (and with them the checks): only here, after the first request.
      const [{ estimateRequests }, { suiteDefinition }] = await Promise.all([
        import('../runner/budget.js'),
        import('../runner/suites.js'),
      ]);
      const need = estimateRequests(functionalSuites.map(suiteDefinition), runs);
      if (need > dayLeft) {
        const scaled = Math.max(1, Math.floor((runs * dayLeft) / need / 1.2));
        notes.push(
          `the ${key.plan} key has about ${dayLeft} requests left; the run needs about ${need}, so --runs was scaled from ${runs} to ${scaled}`,
        );
        runs = scaled;
      }
    }
    return { remaining, limit: rateLimitNumber(ex, 'limit'), runs, notes, exchange: ex };
  } finally {
    await client.close();
  }
}
