// --concurrency: suites side by side over one pacer. A seed gives the same report whatever the interleaving, and the
// default concurrency, chosen from the key's plan, meets no 429 from the reference server at its real plan limits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../cli/run-command.js';
import { defaultConcurrency, FUNCTIONAL_SUITES } from '../../config/config.js';
import { contract } from '../../spec/contract.js';
import { startReferenceServer } from '../../reference/server.js';
import { readHar } from '../support/artifacts.js';
import { distinctiveKeys, runForReport, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

const FUNCTIONAL = FUNCTIONAL_SUITES.join(',');
const WINDOW_SECONDS = 2;
const dir = tempDir('psc-concurrency-');

/** A functional run with only a Pro key against a fresh reference server (ids start over), at the plan's limits. */
async function run(name: string, extra: string[]) {
  const keys = distinctiveKeys(`conc${name}`);
  const server = await startReferenceServer({ keys, windowSeconds: WINDOW_SECONDS });
  try {
    const env = writeEnvFile(
      join(dir, `${name}.env`),
      keys.filter((k) => k.plan === 'pro'),
      { PETSTORE_RATE_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    );
    const json = join(dir, `${name}.json`);
    const junit = join(dir, `${name}.xml`);
    const har = join(dir, `${name}.har`);
    const { code, out, report } = await runForReport(server.url, env, json, [
      '--suite',
      FUNCTIONAL,
      '--seed',
      '11',
      '--runs',
      '24',
      '--junit',
      junit,
      '--har',
      har,
      ...extra,
    ]);
    const statuses = readHar(har).log.entries.map((e) => e.response.status);
    return {
      code,
      out,
      url: server.url,
      report,
      junit: readFileSync(junit, 'utf8'),
      statuses,
    };
  } finally {
    await server.close();
  }
}

/**
 * What may differ between two runs of one seed: timings, the server's address, the rate-limit headers last seen (a
 * window's position in time), the traffic's timeline and waits (its totals per key and status class are compared),
 * the ids the target assigned (they follow the order creations reached it), and the HAR's name (each run has its own).
 */
function comparable(text: string, r: { url: string; report: RunReport }): string {
  let t = text.replaceAll(new URL(r.url).host, 'HOST');
  for (const id of r.report.run.created.ids)
    t = t.replace(new RegExp(`/pets/${id}(?=[^\\d]|$)`, 'g'), '/pets/{created}');
  return t;
}
const TIMING = new Set([
  'durationMs',
  'startedAt',
  'headerRemaining',
  'headerReset',
  'ids',
  'buckets',
  'bucketSeconds',
  'seconds',
  'waits',
  'harFile',
]);
const reportText = (r: { url: string; report: RunReport }) =>
  comparable(
    JSON.stringify(r.report, (k, v) => (TIMING.has(k) ? undefined : v), 1),
    r,
  );
const junitText = (r: { url: string; junit: string; report: RunReport }) =>
  comparable(r.junit.replace(/ (time|timestamp)="[^"]*"/g, ''), r);

describe('--concurrency', () => {
  it('the default follows the plan: one lane for Free (60 a minute), more for larger plans, never above the cap', () => {
    expect(defaultConcurrency(contract.plans.free!)).toBe(1);
    expect(defaultConcurrency(contract.plans.pro!)).toBe(4);
    // Headers showing a lower limit in force than the plan's win.
    expect(defaultConcurrency(contract.plans.pro!, 90)).toBe(1);
    expect(defaultConcurrency(null)).toBe(1);
  });

  it('one seed, one report at concurrency 1 and at the default (4 for Pro); no 429 at the plan limits', async () => {
    const one = await run('one', ['--concurrency', '1']);
    const many = await run('many', []);
    for (const r of [one, many]) expect(r.code, r.out.text()).toBe(0);
    expect(one.out.text()).toMatch(/concurrency 1\)/);
    expect(many.out.text()).toMatch(/concurrency 4 from the pro key's limits/);
    // The run spent more than one window of the Pro plan (300), so pacing had to hold requests back...
    expect(many.statuses.length).toBeGreaterThan(contract.plans.pro!.requestsPerMinute);
    // ...and it did, with four lanes sending side by side.
    for (const r of [one, many]) expect(r.statuses.filter((s) => s === 429)).toEqual([]);
    expect(many.report.totals).toEqual(one.report.totals);
    expect(reportText(many)).toBe(reportText(one));
    expect(junitText(many)).toBe(junitText(one));
    expect(many.report.run.created.ids).toHaveLength(one.report.run.created.ids.length);
  });
});
