/** Runs one suite in-process against a reference server started with the given faults (the project's own tests). */
import { planKeys, startReferenceServer, type ReferenceOptions } from '../../reference/server.js';
import { runSuite } from '../../runner/run.js';
import type { SuiteName } from '../../config/config.js';
import type { Exchange } from '../../http/exchange.js';

export async function runAgainstReference(
  suite: SuiteName,
  options: ReferenceOptions & { seed?: number; runs?: number; strict?: boolean; lanes?: number },
) {
  const server = await startReferenceServer(options);
  try {
    const keys = planKeys(server.keys);
    const key = keys.find((k) => k.plan === 'enterprise')!;
    const exchangeList: Exchange[] = [];
    const result = await runSuite(
      suite,
      {
        target: server.url,
        keys,
        key,
        seed: options.seed ?? 42,
        runs: options.runs ?? 40,
        strict: options.strict ?? false,
        exchangeSink: { push: (ex) => exchangeList.push(ex) },
      },
      options.lanes !== undefined ? { concurrency: options.lanes } : {},
    );
    return { ...result, exchangeList };
  } finally {
    await server.close();
  }
}
