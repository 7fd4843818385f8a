/**
 * A shared staging in miniature: the reference server holding 5,000 pets that are not the run's, with ids from
 * 2^53 + 1, and another client creating and listing pets during the run. The functional suites run in-process
 * against it, with keys that exclude the other client's.
 */
import type { SuiteName } from '../../config/config.js';
import { DEFAULT_ENTERPRISE_LIMITS, randomKey } from '../../reference/keys.js';
import { generateKeys, planKeys, type ReferenceKey, startReferenceServer } from '../../reference/server.js';
import { runSuite } from '../../runner/run.js';
import { startBackgroundWriter, type WriterReport } from '../support/background-writer.js';

export const SHARED = Object.freeze({
  seedPets: 5_000,
  idStart: 2n ** 53n + 1n,
  listOrder: 'newest-first',
  writerPerSecond: 50,
} as const);

export async function runShared(suite: SuiteName, o: { seed: number; faults?: readonly string[]; runs?: number }) {
  const keys = generateKeys();
  const other: ReferenceKey = { key: randomKey('enterprise'), plan: 'enterprise', limits: DEFAULT_ENTERPRISE_LIMITS };
  const server = await startReferenceServer({
    seedPets: SHARED.seedPets,
    idStart: SHARED.idStart,
    listOrder: SHARED.listOrder,
    keys: [...keys, other],
    windowSeconds: 5,
    faults: o.faults ?? [],
  });
  const writer = startBackgroundWriter({ url: server.url, key: other.key, perSecond: SHARED.writerPerSecond });
  let writes: WriterReport | undefined;
  try {
    const runKeys = planKeys(keys);
    const key = runKeys.find((k) => k.plan === 'enterprise')!;
    const result = await runSuite(suite, {
      target: server.url,
      keys: runKeys,
      key,
      seed: o.seed,
      runs: o.runs ?? 40,
      strict: false,
    });
    writes = await writer.stop();
    return { ...result, writes };
  } finally {
    if (!writes) await writer.stop();
    await server.close();
  }
}
