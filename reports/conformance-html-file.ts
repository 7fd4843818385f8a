/**
 * The HTML page of a conformance run as a file: written by the run (--html, or beside --json) and rebuilt by
 * `report html r.json` from the JSON report alone, through the same secret gate as every other output.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HarnessError } from '../errors/catalogue.js';
import { type HtmlInput, renderConformanceHtml } from './conformance-html.js';
import { guardSecrets } from './secret-gate.js';

/** A JSON report of `run`, read back; anything else is refused with what it is not. */
export function readConformanceJson(path: string): HtmlInput {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new HarnessError('PSC_CONFIG', `report html: cannot read ${path} as JSON: ${(e as Error).message}`);
  }
  const r = value as Partial<HtmlInput> | null;
  if (!r || typeof r !== 'object' || !Array.isArray(r.defects) || !Array.isArray(r.findings) || !r.verdict)
    throw new HarnessError('PSC_CONFIG', `report html: ${path} is not the JSON report of \`run\` (--json)`);
  return r as HtmlInput;
}

/**
 * A link from one folder to a file, as an href: its segments percent-encoded (a `#`, `?` or `:` in a name stays part
 * of the path), or a file: URL when no relative path leads there (another drive).
 */
export function hrefFrom(folder: string, file: string): string {
  const path = relative(folder, file);
  return isAbsolute(path) ? pathToFileURL(path).href : path.split(sep).map(encodeURIComponent).join('/');
}

/**
 * Renders and writes the page; a key in it stops the write (reports/secret-gate.ts). `reportDir` is the folder the
 * report's relative paths start from (its JSON's; by default the page's own): the HAR link is made from the page's.
 */
export async function writeConformanceHtml(
  report: HtmlInput,
  path: string,
  reportDir: string = dirname(resolve(path)),
): Promise<void> {
  const harHref = report.harFile ? hrefFrom(dirname(resolve(path)), resolve(reportDir, report.harFile)) : undefined;
  const html = guardSecrets(await renderConformanceHtml(report, harHref === undefined ? {} : { harHref }), path);
  mkdirSync(dirname(resolve(path)), { recursive: true });
  writeFileSync(path, html);
}
