/** Runs the rate-limit or quota suite in-process against a reference server (windows of a few seconds). */
import { planKeys, startReferenceServer, type ReferenceOptions } from '../../reference/server.js';
import { runSuite } from '../../runner/suites.js';
import type { SuiteName } from '../../config/config.js';

export async function runRateLimit(
  suite: SuiteName,
  options: ReferenceOptions & { plans?: readonly string[]; onWait?: (ms: number, reason: string) => void },
) {
  const server = await startReferenceServer(options);
  try {
    const keys = planKeys(server.keys.filter((k) => !options.plans || options.plans.includes(k.plan)));
    const t0 = performance.now();
    const { ctx, ...result } = await runSuite(suite, {
      target: server.url,
      keys,
      key: keys[0]!,
      seed: 1,
      runs: 10,
      strict: false,
      windowSeconds: server.options.windowSeconds,
      ...(options.onWait ? { onWait: options.onWait } : {}),
    });
    return {
      ...result,
      wallMs: performance.now() - t0,
      rateLimitResults: ctx.rateLimitResults,
      exchangeList: ctx.exchanges,
    };
  } finally {
    await server.close();
  }
}

export const PLANS = ['free', 'pro', 'business'] as const;
