/**
 * The real browser the tests render pages in: the Chromium that `@sparticuz/chromium` carries in its registry tarball
 * (brotli-compressed), so `npm ci` brings it and no system package or browser download is needed. It is unpacked once
 * into node_modules/.cache (the package itself unpacks into the temp directory, where concurrent test files would race
 * and leave it behind), then driven by playwright-core. `PSC_CHROMIUM=/path/to/chromium` uses another build instead,
 * for a platform the bundled one does not run on.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);

/** Flags for a closed network: without the background-networking ones Chromium keeps trying to reach Google's hosts. */
const OFFLINE_FLAGS = [
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Path of the browser binary, unpacked on first use. Throws with what to do where the bundled build cannot run. */
export function browserExecutable(): string {
  const given = process.env.PSC_CHROMIUM;
  if (given) {
    if (!existsSync(given)) throw new Error(`PSC_CHROMIUM=${given}: no such file`);
    return given;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the bundled Chromium (@sparticuz/chromium) runs on Linux x64 only, not ${process.platform}/${process.arch}: ` +
        'set PSC_CHROMIUM to the path of a Chromium or Chrome binary to run the browser tests here',
    );
  }
  // The package exports no package.json: its root is three levels above its entry (build/cjs/index.cjs).
  const root = dirname(dirname(dirname(require.resolve('@sparticuz/chromium'))));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const cache = join(root, '..', '..', '.cache', `psc-chromium-${pkg.version}`);
  const binary = join(cache, 'chromium');
  if (existsSync(binary)) return binary;
  // Unpack into a private folder, then rename it into place: a rename is atomic, so a concurrent test file sees either
  // no browser or a whole one. The package unpacks into os.tmpdir(), which TMPDIR sets for the child alone.
  mkdirSync(dirname(cache), { recursive: true });
  const staging = mkdtempSync(`${cache}.partial-`);
  try {
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "console.log(await (await import('@sparticuz/chromium')).default.executablePath())",
      ],
      { cwd: root, env: { ...process.env, TMPDIR: staging }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      renameSync(staging, cache);
    } catch (e) {
      if (!existsSync(binary)) throw e; // another test file unpacked it first: theirs is as good
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}

/**
 * The fonts the browser draws with: DejaVu (the dejavu-fonts-ttf package, a development dependency, so `npm ci` brings
 * it: Sans, Serif and Mono, with ✓ U+2713 and ✗ U+2717), and whatever fonts the bundled build unpacked beside itself.
 * The fontconfig file the bundled build carries points at the directories of the platform it was made for, absent
 * here, so page text drew nothing on a machine without system fonts. Written into the profile folder, with the font
 * cache beside it, and gone with it; returns the file's path.
 */
function writeFontconfig(profile: string, browserDir: string): string {
  const dejavu = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const dirs = [dejavu, join(browserDir, 'fonts')].filter((d) => existsSync(d));
  const alias = (generic: string, family: string) =>
    `  <alias><family>${generic}</family><prefer><family>${family}</family></prefer></alias>`;
  const file = join(profile, 'fonts.conf');
  writeFileSync(
    file,
    [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      '<fontconfig>',
      ...dirs.map((d) => `  <dir>${d}</dir>`),
      `  <cachedir>${join(profile, 'fontconfig-cache')}</cachedir>`,
      alias('sans-serif', 'DejaVu Sans'),
      alias('system-ui', 'DejaVu Sans'),
      alias('serif', 'DejaVu Serif'),
      alias('monospace', 'DejaVu Sans Mono'),
      '</fontconfig>',
      '',
    ].join('\n'),
  );
  return file;
}

/**
 * A headless browser with a fresh profile, closed and removed by the returned `close`. Its arguments are the package's
 * own (the binary is built for them: single process, SwiftShader for graphics) plus the offline flags.
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const executablePath = browserExecutable();
  const { default: bundled } = await import('@sparticuz/chromium');
  const profile = mkdtempSync(join(tmpdir(), 'psc-chromium-'));
  const fontconfig = writeFontconfig(profile, dirname(executablePath));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...(process.env.PSC_CHROMIUM ? ['--no-sandbox'] : bundled.args), ...OFFLINE_FLAGS],
    env: { ...process.env, FONTCONFIG_FILE: fontconfig, FONTCONFIG_PATH: dirname(fontconfig) },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Runs `use` with a fresh browser context, closed and removed afterwards whatever `use` does. */
export async function withBrowser<T>(use: (browser: BrowserContext) => Promise<T>): Promise<T> {
  const { context, close } = await launchBrowser();
  try {
    return await use(context);
  } finally {
    await close();
  }
}

/**
 * Opens a file in `page` and returns what a self-contained page must not do, recorded from before it loads: console
 * errors, uncaught errors and failed requests (`problems`), and every URL it requested (`requests`, the page's own
 * file among them).
 */
export async function openFile(page: Page, file: string): Promise<{ problems: string[]; requests: string[] }> {
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { problems, requests };
}

/** A chart of a page as a reader sees it: its figure's id, its drawn size, its data marks, and its text. */
export interface ChartSeen {
  readonly id: string | null;
  readonly width: number;
  readonly height: number;
  /** Data items drawn: vega draws each mark group with class role-mark (axes, legends and titles aside). */
  readonly items: number;
  readonly text: string;
}

/** Every `figure[data-chart]` of the page, in order. */
export function chartsOf(page: Page): Promise<ChartSeen[]> {
  return page.$$eval('figure[data-chart]', (figs) =>
    figs.map((f) => {
      const svg = f.querySelector('svg');
      const box = svg?.getBoundingClientRect();
      const marks = [...(svg?.querySelectorAll('g.role-mark') ?? [])].filter(
        (g) => !/role-axis|role-legend|role-title/.test(g.getAttribute('class') ?? ''),
      );
      const items = marks.reduce((n, g) => n + g.querySelectorAll('path, rect, line, circle').length, 0);
      return {
        id: f.getAttribute('data-chart'),
        width: box?.width ?? 0,
        height: box?.height ?? 0,
        items,
        text: svg?.textContent ?? '',
      };
    }),
  );
}
