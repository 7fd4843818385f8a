/**
 * vitest setup file (runs before each test file, in its worker): the file gets a temp directory of its own, TMPDIR for
 * it and for every process it spawns, so what it leaves there is its own. After its tests, the folders it made with
 * `tempDir` are removed; a `psc-*` folder still there was made some other way and would be left behind on every run:
 * the file fails, naming it. The private directory itself (tsx's cache and the like included) is removed either way.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir.js';

const outer = process.env.TMPDIR;
const own = mkdtempSync(join(tmpdir(), 'vitest-file-'));
process.env.TMPDIR = own;

afterAll(() => {
  removeTempDirs();
  const left = readdirSync(own).filter((name) => name.startsWith('psc-'));
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  rmSync(own, { recursive: true, force: true, maxRetries: 3 });
  if (left.length > 0)
    throw new Error(
      `this test file left ${left.join(', ')} in the temp directory: make temporary folders with tempDir() (test/support/temp-dir.ts), which removes them`,
    );
});
