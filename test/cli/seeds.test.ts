/**
 * Determinism: the same seed sends byte-identical request sequences, a different seed does not; and the functional
 * suites, run with 20 different seeds against one faultless reference server, find nothing (no flaky check), and
 * their report has no defect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SuiteName, FUNCTIONAL_SUITES } from '../../config/config.js';
import type { Exchange } from '../../http/exchange.js';
import { planKeys, startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { runSuite } from '../../runner/run.js';
import type { RunSettings } from '../../runner/context.js';
import { reportOf } from '../meta/fault-report.js';

const FUNCTIONAL: readonly SuiteName[] = FUNCTIONAL_SUITES;
const SEEDS = 20;

function settingsFor(server: ReferenceServer, seed: number, runs: number): RunSettings {
  const keys = planKeys(server.keys);
  return { target: server.url, keys, key: keys.find((k) => k.plan === 'enterprise')!, seed, runs, strict: false };
}

/** What a run sent, in order: method, path and body bytes (ids come from a fresh server, so they match too). */
async function requestsOf(suite: SuiteName, seed: number): Promise<string[]> {
  const server = await startReferenceServer();
  try {
    const exchanges: Exchange[] = [];
    await runSuite(suite, { ...settingsFor(server, seed, 15), exchangeSink: { push: (ex) => exchanges.push(ex) } });
    return exchanges.map(
      (ex) =>
        `${ex.request.method} ${ex.request.path} ${ex.request.body ? Buffer.from(ex.request.body).toString('base64') : '-'}`,
    );
  } finally {
    await server.close();
  }
}

describe('--seed reproduces a run', () => {
  it.each(['createPet', 'listPets', 'getPet'] as const)(
    '%s: same seed → same requests; other seed → different',
    async (suite) => {
      const a = await requestsOf(suite, 1234);
      const b = await requestsOf(suite, 1234);
      const c = await requestsOf(suite, 98765);
      expect(a.length).toBeGreaterThan(10);
      expect(b).toEqual(a);
      expect(c).not.toEqual(a);
    },
  );
});

describe(`functional suites × ${SEEDS} seeds against one faultless reference server`, () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(async () => server?.close());

  it('finds zero violations and zero warnings for every seed: zero defects', async () => {
    const bad: string[] = [];
    let exchanges = 0;
    for (let i = 0; i < SEEDS; i++) {
      const seed = 1_000 + i * 7_919;
      const results = [];
      for (const suite of FUNCTIONAL) {
        const r = await runSuite(suite, settingsFor(server, seed, 20));
        results.push(r);
        exchanges += r.exchanges;
        expect(r.aborted).toBeNull();
        for (const f of r.findings)
          if (f.level !== 'observation') bad.push(`seed ${seed} ${suite}: ${f.level} ${f.checkId} ${f.message}`);
      }
      for (const d of reportOf(results, server.url, seed, 20).defects) bad.push(`seed ${seed}: defect ${d.signature}`);
    }
    console.log(
      `seeds: ${SEEDS} seeds × ${FUNCTIONAL.length} suites, ${exchanges} exchanges, ${bad.length} violations/warnings`,
    );
    expect(bad).toEqual([]);
    // 20 seeds × every functional suite, the robustness catalogue's megabyte bodies included: time for a busy machine
    // (about 10,500 exchanges; two minutes alone, more on a runner shared with other jobs).
  }, 300_000);
});
