// A TLS or proxy failure after the first request (a certificate rotated to one this process does not trust, a proxy
// that goes away) ends the run like one on the first request: exit 3 with the cause and the remedy, never as spec
// violations, and with the findings so far kept and every report written.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { distinctiveKeys } from '../cli/support.js';
import { readJson } from '../support/artifacts.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { RunReport } from '../../cli/run-command.js';
import { makePki, runCli, startForwardProxy, startFront, userEnv, type Pki } from './support.js';

const RUN = ['run', '--suite', 'listPets,createPet', '--runs', '10', '--seed', '5'];
/** The failure comes this many requests into the run, in the listPets suite's sequential seeding. */
const AFTER = 12;

describe('a TLS or proxy failure in the middle of a run', () => {
  const keys = distinctiveKeys('midrun');
  let pki: Pki;
  let stranger: Pki;
  let reference: ReferenceServer;

  beforeAll(async () => {
    pki = await makePki();
    // Another CA, which the run is never told about.
    stranger = await makePki();
    reference = await startReferenceServer({ keys });
  });
  afterAll(async () => reference?.close());

  const expectBlocked = (
    r: { status: number | null; stdout: string; stderr: string },
    json: string,
    code: string,
    before: number,
  ) => {
    expect(r.status, r.stderr + r.stdout).toBe(3);
    const report = readJson<RunReport>(json);
    expect(report.verdict).toBe('blocked');
    expect(report.run.stop?.code).toBe(code);
    // What ran before is reported; the failure itself is no finding of the target.
    expect(report.run.budget.sent).toBeGreaterThan(before);
    expect(report.totals.exchanges).toBeGreaterThanOrEqual(before);
    expect(report.findings.filter((f) => f.level !== 'observation')).toEqual([]);
    expect(r.stdout).toMatch(new RegExp(`Stopped early: .*\\[${code}\\]`));
    return report;
  };

  test('a certificate rotated to one from an unknown CA: exit 3, PSC_TLS, naming --ca and NODE_EXTRA_CA_CERTS', async () => {
    const front = await startFront(reference.url, { tls: pki.server, rotate: { after: AFTER, tls: stranger.server } });
    try {
      const json = join(pki.dir, 'rotated.json');
      const r = await runCli([...RUN, '--target', front.url, '--ca', pki.caFile, '--json', json], userEnv(keys));
      const report = expectBlocked(r, json, 'PSC_TLS', AFTER);
      expect(report.run.stop?.message).toMatch(/not trusted .*--ca FILE.*NODE_EXTRA_CA_CERTS/);
      expect(r.stdout).toMatch(/Remedy: pass that CA's certificate/);
    } finally {
      await front.close();
    }
  }, 120_000);

  test('a proxy that goes away: exit 3, PSC_PROXY, naming the variable to fix', async () => {
    // The preflight's tunnel and the suites' first: then the proxy stops listening, and the run's next connection
    // finds nothing there.
    const proxy = await startForwardProxy({ goAwayAfterTunnels: 2 });
    try {
      const json = join(pki.dir, 'proxy-gone.json');
      const r = await runCli(
        [...RUN, '--target', reference.url, '--json', json],
        userEnv(keys, { HTTP_PROXY: proxy.url }),
      );
      const report = expectBlocked(r, json, 'PSC_PROXY', 1);
      // Connections already on their way when it stopped listening may still have got through.
      expect(proxy.tunnels.length).toBeGreaterThanOrEqual(2);
      expect(report.run.stop?.message).toMatch(/could not be reached \(ECONNREFUSED.*fix HTTP_PROXY/);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
