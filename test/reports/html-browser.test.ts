/**
 * The HTML report in a real browser: the Chromium that `npm ci` brings (test/support/browser.ts), driven by
 * playwright-core. A platform it cannot run on fails this test with the reason rather than skipping it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../reports/build-report.js';
import { DEFAULT_THRESHOLDS } from '../../reports/thresholds.js';
import { writeReportFiles } from '../../reports/write-report.js';
import { chartsOf, openFile, withBrowser } from '../support/browser.js';
import { tempDir } from '../support/temp-dir.js';
import { syntheticRun } from './fixtures.js';

describe('report.html in headless Chromium', () => {
  it('loads offline without console errors, and every chart rendered data marks', async () => {
    const dir = tempDir('psc-html-');
    const history = [1, 2, 3].map((i) => ({
      createdAt: `2029-12-2${i}T02:00:00.000Z`,
      dir: `n${i}`,
      profile: 'smoke',
      target: 'embedded',
      pass: true,
      figures: {
        ...buildReport(syntheticRun(), DEFAULT_THRESHOLDS, []).figures,
        p99LatencyMs: 10 + i,
        throughputRps: 400 + i,
      },
    }));
    await writeReportFiles(buildReport(syntheticRun(), DEFAULT_THRESHOLDS, history), dir);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    // Self-contained: no script, no external resource.
    expect(html).not.toMatch(/<script|<link|src="http|href="http|@import/i);

    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      const { problems, requests } = await openFile(page, join(dir, 'report.html'));
      expect(problems).toEqual([]);
      expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
      expect(await page.locator('#verdict strong').textContent()).toBe('PASS');
      const charts = await chartsOf(page);
      expect(charts.map((c) => c.id)).toEqual([
        'latency-percentiles',
        'throughput',
        'status-codes',
        'plan-free',
        'trend-p99',
        'trend-throughput',
      ]);
      for (const c of charts) {
        expect(c.width, c.id!).toBeGreaterThan(100);
        expect(c.height, c.id!).toBeGreaterThan(50);
        expect(c.items, `${c.id} has no data marks`).toBeGreaterThan(0);
      }
    });
  });
});
