/**
 * The conformance run's HTML page is derived from the JSON report alone: `report html r.json` rebuilds, byte for byte,
 * the page the run wrote beside its JSON. Its exchanges keep every digit of an int64, and it holds one map row per
 * clause of the registry.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { clauseMap, prettyBody, renderConformanceHtml, visible } from '../../reports/conformance-html.js';
import type { RunReport } from '../../reports/conformance-outputs.js';
import { hrefFrom } from '../../reports/conformance-html-file.js';
import { clauses } from '../../spec/clauses.js';
import { allChecks } from '../../checks/registry.js';
import { defectBlocks } from '../../reports/conformance-text.js';
import { runMain } from '../cli/support.js';
import { readJson } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';

describe('the HTML page of a conformance run', () => {
  it('is rebuilt byte for byte from the JSON report by `report html`', async () => {
    const dir = tempDir('psc-chtml-');
    const json = join(dir, 'r.json');
    const run = await runMain([
      'run',
      '--embedded',
      '--suite',
      'listPets',
      '--runs',
      '5',
      '--seed',
      '7',
      '--json',
      json,
    ]);
    expect(run.code, run.out.text()).toBe(0);
    expect(run.stderr).toContain(`HTML report: ${join(dir, 'r.html')}`);
    const written = readFileSync(join(dir, 'r.html'), 'utf8');
    const rebuilt = await runMain(['report', 'html', json, '--out', join(dir, 'again.html')]);
    expect(rebuilt.code, rebuilt.out.text()).toBe(0);
    expect(readFileSync(join(dir, 'again.html'), 'utf8')).toBe(written);
    // The same bytes from the module itself, and one map row per clause of the registry.
    expect(await renderConformanceHtml(readJson<RunReport>(json))).toBe(written);
    expect(written.match(/<tr data-clause="/g)?.length).toBe(clauses.length);
    expect(written).not.toContain('id="means-little"');
    // A clause only the auth suite's checks judge is proven nowhere by a run of the listPets suite alone.
    const authOnly = clauses.filter((c) => {
      const by = allChecks.filter((k) => [...k.clauses, ...k.covers].includes(c.id));
      return by.length > 0 && by.every((k) => k.area === 'auth');
    });
    expect(authOnly.length).toBeGreaterThan(0);
    const report0 = readJson<RunReport>(json);
    const map = clauseMap(report0, defectBlocks(report0));
    const authRows = map.rows.filter((r) => authOnly.some((c) => c.id === r.clause.id));
    expect(authRows).toHaveLength(authOnly.length);
    for (const row of authRows) expect(row.cells.map((c) => c.state)).not.toContain('proven');
    // Yet the response checks did judge what the listPets suite received.
    expect(map.rows.find((r) => r.clause.id === '2-pets-array')!.cells[0]!.state).toBe('proven');
    // A run that left whole suites out, or whose requests were mostly refused, says its pass means little.
    const report = readJson<RunReport>(json);
    const leftOut = await renderConformanceHtml({
      ...report,
      verdict: 'incomplete',
      notMeasured: ['createPet: not run: the request budget was spent'],
    });
    expect(leftOut).toMatch(/id="means-little"[\s\S]*createPet: not run/);
    expect(leftOut).toContain('<strong>INCOMPLETE</strong>');
    const stopped = await renderConformanceHtml({
      ...report,
      verdict: 'blocked',
      run: { ...report.run, stop: { code: 'PSC_MAX_DURATION', message: 'time budget reached' } },
    });
    expect(stopped).toMatch(/id="means-little"[\s\S]*stopped early: time budget reached/);
    expect(stopped).toContain('stopped by a limit: time budget reached [PSC_MAX_DURATION]');
    // "complete" only when nothing was left out: random cases the budget cut are left out too (issue 29).
    expect(await renderConformanceHtml(report)).toContain('<th>run</th><td>complete</td>');
    const cut = await renderConformanceHtml({
      ...report,
      run: { ...report.run, budget: { ...report.run.budget, leftOut: ['createPet: random cases after 12 of 57'] } },
    });
    expect(cut).not.toContain('<td>complete</td>');
    expect(cut).toContain('<th>run</th><td>not complete: the request budget left parts out (listed below)</td>');
    // The traffic counts every exchange the suites judged (the preflight's answer came before the run's clock).
    const answers = (report.traffic?.keys ?? []).reduce(
      (n, k) => n + Object.values(k.totals).reduce((a, b) => a + b, 0),
      0,
    );
    expect(answers).toBe(report.totals.exchanges - 1);
    // Requests with a valid key mostly refused: the pass means little. The keyless auth cases' 401s are not counted.
    const traffic = (free: Record<string, number>) => ({
      bucketSeconds: 1,
      seconds: 3,
      keys: [
        { plan: 'free', totals: free, buckets: [{ at: 0, counts: free }] },
        { plan: 'none', totals: { '401': 900 }, buckets: [{ at: 0, counts: { '401': 900 } }] },
      ],
      waits: [],
      waitsNotListed: 0,
    });
    const refused = await renderConformanceHtml({ ...report, traffic: traffic({ '2xx': 20, '429': 70, '401': 10 }) });
    expect(refused).toMatch(
      /id="means-little"[\s\S]*80 of 100 requests with the free key were refused with 401 or 429/,
    );
    const reached = await renderConformanceHtml({ ...report, traffic: traffic({ '2xx': 60, '429': 40 }) });
    expect(reached).not.toContain('id="means-little"');
  }, 60_000);

  it('--html FILE writes the page without --json', async () => {
    const dir = tempDir('psc-chtml-');
    const html = join(dir, 'sub', 'page.html');
    const run = await runMain(['run', '--embedded', '--suite', 'getPet', '--runs', '5', '--html', html]);
    expect(run.code, run.out.text()).toBe(0);
    const text = readFileSync(html, 'utf8');
    expect(text).toMatch(/^<!doctype html>/);
    expect(text).toContain('CONFORMANT');
    // Nothing outside the page: no remote resource, no stylesheet or script by address.
    expect(text).not.toMatch(/<link|src=|href="http|@import|url\(/i);
    // --no-html turns the page beside --json off; with --html too, the command says they contradict (exit 2).
    const json = join(dir, 'only.json');
    const off = await runMain(['run', '--embedded', '--suite', 'getPet', '--runs', '5', '--json', json, '--no-html']);
    expect(off.code, off.out.text()).toBe(0);
    expect(existsSync(json)).toBe(true);
    expect(existsSync(join(dir, 'only.html'))).toBe(false);
    const both = await runMain(['run', '--embedded', '--html', html, '--no-html']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--html and --no-html contradict each other/);
  }, 60_000);

  it('links the HAR from wherever the page is written, whatever its name holds', async () => {
    expect(hrefFrom('/r', '/r/run#1.har')).toBe('run%231.har');
    expect(hrefFrom('/r/page', '/r/h/a b?:c.har')).toBe('../h/a%20b%3F%3Ac.har');
    const dir = tempDir('psc-chtml-');
    const json = join(dir, 'r.json');
    const har = join(dir, 'exchanges', 'run #1.har');
    const run = await runMain(['run', '--embedded', '--suite', 'getPet', '--runs', '5', '--json', json, '--har', har]);
    expect(run.code, run.out.text()).toBe(0);
    // Kept relative to the JSON's folder; the page beside it links it from there...
    expect(readJson<RunReport>(json).harFile).toBe('exchanges/run #1.har');
    const hrefIn = (page: string) => readFileSync(page, 'utf8').match(/id="har"[\s\S]*?<a href="([^"]+)"/)?.[1];
    expect(hrefIn(join(dir, 'r.html'))).toBe('exchanges/run%20%231.har');
    // ...and a page rebuilt in another folder links it from its own.
    const elsewhere = join(dir, 'pages', 'again.html');
    expect((await runMain(['report', 'html', json, '--out', elsewhere])).code).toBe(0);
    const href = hrefIn(elsewhere)!;
    expect(href).toBe('../exchanges/run%20%231.har');
    expect(existsSync(fileURLToPath(new URL(href, pathToFileURL(elsewhere))))).toBe(true);
  }, 60_000);

  it('`report html` refuses a file that is not a JSON report of run (exit 2, saying so)', async () => {
    const dir = tempDir('psc-chtml-');
    const bad = join(dir, 'x.json');
    (await import('node:fs')).writeFileSync(bad, '{"hello":1}');
    const r = await runMain(['report', 'html', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not the JSON report of `run`/);
  });

  it('pretty-prints a body with every digit of an int64 kept', () => {
    const body = '{"id":9223372036854775807,"name":"x","categoryId":-9223372036854775808,"n":1.50}';
    const pretty = prettyBody(body);
    expect(pretty).toContain('9223372036854775807');
    expect(pretty).toContain('-9223372036854775808');
    expect(pretty).toContain('\n  "name": "x"');
    expect(prettyBody('not json {')).toBe('not json {');
    expect(visible('{\u0000"a\u0000"}\n')).toBe('{\u2400"a\u2400"}\n');
  });
});
