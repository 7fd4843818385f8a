/**
 * The HTML page of a conformance run in a real browser (the Chromium `npm ci` brings, test/support/browser.ts): for a
 * conformant embedded run and for a run against a server with several faults, no console error, no request leaving
 * the page, one card per defect and one row per clause (counted against the JSON report and the clause registry), the
 * rate-limit charts and every key's traffic timeline drawn with data marks (429s marked), and a screenshot of each left in test-artifacts/conformance-html/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { RunReport } from '../../reports/conformance-outputs.js';
import { keyMeasured } from '../../runner/rate-limit-results.js';
import { clauses } from '../../spec/clauses.js';
import { distinctiveKeys, runForReport, runMain, tempEnvFile } from '../cli/support.js';
import { artifactDir, readJson } from '../support/artifacts.js';
import { chartsOf, openFile, withBrowser } from '../support/browser.js';
import { tempDir } from '../support/temp-dir.js';

const FAULTS = ['ids-beyond-int64', 'create-malformed-500', 'auth-401-no-body', 'create-200'];

/** Opens the page and returns what a reader would see of it, after checking it stayed offline and quiet. */
async function inspectPage(html: string, screenshot: string) {
  return withBrowser(async (browser) => {
    const page = await browser.newPage();
    const { problems, requests } = await openFile(page, html);
    await page.screenshot({ path: join(artifactDir('conformance-html'), screenshot), fullPage: true });
    const seen = {
      problems,
      outside: requests.filter((u) => !/^(file|data|about):/.test(u)),
      verdict: await page.locator('#verdict strong').textContent(),
      cards: await page.locator('article.card').count(),
      clauseRows: await page.locator('tr[data-clause]').count(),
      links: await page.$$eval('a[href^="#"]', (as) => as.map((a) => a.getAttribute('href')!.slice(1))),
      ids: await page.$$eval('[id]', (els) => els.map((e) => e.id)),
      charts: await chartsOf(page),
    };
    return { ...seen, labels: Object.fromEntries(seen.charts.map((c) => [c.id, c.text])) as Record<string, string> };
  });
}

/** What the page must show of a report: every defect as a card, every clause as a row, a chart per measured key. */
function expectPageOf(report: RunReport, seen: Awaited<ReturnType<typeof inspectPage>>, word: string) {
  expect(seen.problems).toEqual([]);
  expect(seen.outside).toEqual([]);
  expect(seen.verdict).toBe(word);
  expect(seen.cards).toBe(report.defects.filter((d) => d.level !== 'observation').length);
  expect(seen.clauseRows).toBe(clauses.length);
  // Every link of the map lands on its evidence.
  expect(seen.links.filter((l) => !seen.ids.includes(l))).toEqual([]);
  const measured = (report.rateLimits ?? []).filter((r) => r.suite === 'rate-limit' && keyMeasured(r));
  expect(measured.length).toBeGreaterThan(0);
  // A chart per measured key, then a traffic timeline per key the run used (the keyless auth cases have none).
  const used = (report.traffic?.keys ?? []).filter((k) => k.plan !== 'none' && k.plan !== 'invalid');
  expect(used.length).toBeGreaterThan(0);
  expect(seen.charts.map((c) => c.id)).toEqual([
    ...measured.map((k) => `key-${'key' in k ? k.key : ''}`),
    ...used.map((k) => `traffic-${k.plan}`),
  ]);
  // The rate-limit suite's 429s are marked on their key's timeline, with their count.
  const limited = used.filter((k) => (k.totals['429'] ?? 0) > 0);
  expect(limited.length).toBeGreaterThan(0);
  for (const k of limited) expect(seen.labels[`traffic-${k.plan}`]).toMatch(/429 ×\d+/);
  for (const c of seen.charts) {
    expect(c.width, c.id!).toBeGreaterThan(100);
    expect(c.items, `${c.id} has no data marks`).toBeGreaterThan(0);
  }
}

describe('the conformance HTML page in headless Chromium', () => {
  it('a conformant embedded run: quiet, offline, every clause row, no card, the key charts drawn', async () => {
    const dir = tempDir('psc-chtml-');
    const json = join(dir, 'r.json');
    const r = await runMain(['run', '--embedded', '--json', json]);
    expect(r.code, r.out.text()).toBe(0);
    const report = readJson<RunReport>(json);
    expect(report.verdict).toBe('conformant');
    expectPageOf(report, await inspectPage(join(dir, 'r.html'), 'conformant.png'), 'CONFORMANT');
  }, 120_000);

  describe('a run against a server with several faults', () => {
    let server: ReferenceServer;
    beforeAll(async () => {
      server = await startReferenceServer({ keys: distinctiveKeys('html'), faults: FAULTS, windowSeconds: 2 });
    });
    afterAll(async () => server?.close());

    it('one card per defect, each map cell of a violation linking to its card', async () => {
      const dir = tempDir('psc-chtml-');
      const env = tempEnvFile('psc-env-', distinctiveKeys('html'), { PETSTORE_RATE_WINDOW_SECONDS: '2' });
      const { code, report, out } = await runForReport(server.url, env, join(dir, 'r.json'), [
        '--runs',
        '30',
        '--har',
        join(dir, 'exchanges', 'run.har'),
      ]);
      expect(code, out.text()).toBe(1);
      expect(report.defects.filter((d) => d.level === 'violation').length).toBeGreaterThanOrEqual(FAULTS.length);
      const seen = await inspectPage(join(dir, 'r.html'), 'faults.png');
      expectPageOf(report, seen, 'NOT CONFORMANT');
      // The response of ids-beyond-int64 is shown with the id's every digit (pretty-printed unless cut).
      const page = readFileSync(join(dir, 'r.html'), 'utf8');
      expect(page).toMatch(/&quot;id&quot;: ?922337203685477580[89]/);
      // With the response's headers, as received.
      expect(page).toMatch(/<h4>response[\s\S]*?x-ratelimit-limit: \d+/);
      // The page links the HAR from its own folder, so the link holds when the folder is a CI artifact.
      const har = await withBrowser(async (browser) => {
        const p = await browser.newPage();
        await p.goto(pathToFileURL(join(dir, 'r.html')).href);
        return p.locator('#har a').getAttribute('href');
      });
      expect(har).toBe('exchanges/run.har');
      expect(existsSync(join(dir, har!))).toBe(true);
      // The map's violated cells lead to the cards.
      expect(seen.links.filter((l) => l.startsWith('defect-')).length).toBeGreaterThan(0);
    }, 120_000);
  });
});
