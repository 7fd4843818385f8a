/** The files a run writes (--json, --har, replay files), read back by the tests that check them. */
import { readFileSync } from 'node:fs';
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
