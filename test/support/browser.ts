/** Debian's chromium (/usr/bin/chromium) driven by playwright-core, headless, offline, with a fresh profile. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';

/** Runs `use` with a browser context; a missing browser fails with the reason rather than skipping. */
export async function withBrowser<T>(use: (browser: BrowserContext) => Promise<T>): Promise<T> {
  expect(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)`,
  ).toBe(true);
  const profile = mkdtempSync(join(tmpdir(), 'psc-chromium-'));
  // A fresh profile directory: playwright passes it as --user-data-dir.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    return await use(browser);
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
