/**
 * Bench section `html` (issue 23's measure): the conformance page of a default embedded run and of a run of about
 * 100,000 exchanges (the functional suites with many runs; BENCH_HTML_RUNS): its size, and the time to render it from
 * the JSON report in this process (the median of five renders, as `report html` does). Loading it in a browser is
 * measured by the browser tests' page, not here: the bench runs where no browser may be.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type HtmlInput, renderConformanceHtml } from '../reports/conformance-html.js';
import { median } from '../reports/thresholds.js';
import { FUNCTIONAL, runCli } from './cli.js';

export interface PageFigures {
  readonly exchanges: number;
  readonly runWallSeconds: number;
  readonly jsonKilobytes: number;
  readonly htmlKilobytes: number;
  readonly renderMs: { readonly median: number; readonly max: number };
  readonly defects: number;
  readonly trafficBuckets: number;
}

async function measure(dir: string, name: string, args: readonly string[]): Promise<PageFigures> {
  const json = join(dir, `${name}.json`);
  // Time enough for the long run (the default 30 minutes could stop a slow machine's run short of its length).
  const run = await runCli(['run', '--embedded', '--seed', '7', '--max-duration', '60m', '--json', json, ...args]);
  if (run.code !== 0) throw new Error(`bench html: \`run ${args.join(' ')}\` exited ${run.code}, not 0`);
  const report = JSON.parse(readFileSync(json, 'utf8')) as HtmlInput;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await renderConformanceHtml(report);
    times.push(performance.now() - t0);
  }
  return {
    exchanges: report.totals.exchanges,
    runWallSeconds: +(run.ms / 1000).toFixed(1),
    jsonKilobytes: Math.round(statSync(json).size / 1024),
    htmlKilobytes: Math.round(statSync(join(dir, `${name}.html`)).size / 1024),
    renderMs: { median: Math.round(median(times)!), max: Math.round(Math.max(...times)) },
    defects: report.defects.length,
    trafficBuckets: (report.traffic?.keys ?? []).reduce((n, k) => n + k.buckets.length, 0),
  };
}

export async function benchHtmlPage(dir: string): Promise<Record<string, PageFigures>> {
  const runs = process.env.BENCH_HTML_RUNS ?? '15000';
  return {
    'default embedded run': await measure(dir, 'page-default', []),
    [`functional suites, --runs ${runs}`]: await measure(dir, 'page-long', ['--suite', FUNCTIONAL, '--runs', runs]),
  };
}
