/**
 * Temporary folders of the project's tests. A test makes each with `tempDir(prefix)` and never with mkdtemp itself:
 * every folder made here is removed when its test file ends, whether its tests passed or not, so no run leaves keys,
 * reports or test CA files in the temp directory. (test/support/temp-dirs-setup.ts, a vitest setup file, also fails a
 * file that leaves a psc-* folder made some other way.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made = new Set<string>();

/** A fresh folder in the temp directory whose name starts with `prefix` (psc-…), removed when the test file ends. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder `tempDir` made. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}

// Imported while a test file is collected (vitest gives each file modules of its own): its folders go when it ends,
// with or without the setup file.
afterAll(removeTempDirs);
