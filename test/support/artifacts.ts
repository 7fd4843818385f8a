/** The files a run writes (--json, --har, replay files), read back by the tests that check them; test artifacts. */
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { HarEntry } from '../../reports/har.js';

/** A JSON file, as the type the test expects of it. */
export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The HAR 1.2 document reports/har.ts writes. */
export interface HarDocument {
  log: { version: string; comment?: string; entries: HarEntry[] };
}

export function readHar(path: string): HarDocument {
  return readJson<HarDocument>(path);
}

/**
 * A folder for what a test leaves for people to look at (screenshots): test-artifacts/<name>/ at the repository's
 * root, git-ignored, kept after the run (CI can upload it).
 */
export function artifactDir(name: string): string {
  const dir = fileURLToPath(new URL(`../../test-artifacts/${name}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}
