/**
 * The rule "every test removes what it creates" stays true: a test file's temporary folders made with tempDir are
 * gone after it, and a file that leaves a psc-* folder fails, naming it (test/support/temp-dirs-setup.ts). Shown on a
 * fixture run by a vitest of its own, in a temp directory of its own.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const repo = resolve(import.meta.dirname, '../..');

/** Runs the fixture with the project's setup file and TMPDIR `outer`; its exit status and output. */
function runFixture(leak: boolean): { status: number | null; output: string; left: string[] } {
  const outer = tempDir('psc-outer-');
  const config = join(tempDir('psc-config-'), 'vitest.config.mjs');
  writeFileSync(
    config,
    `export default ${JSON.stringify({
      root: repo,
      test: {
        include: ['test/meta/fixtures/temp-folders.ts'],
        setupFiles: ['./test/support/temp-dirs-setup.ts'],
        reporters: ['default'],
        pool: 'forks',
      },
    })};\n`,
  );
  const r = spawnSync(process.execPath, [join(repo, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config], {
    cwd: repo,
    env: {
      ...process.env,
      TMPDIR: outer,
      PSC_FIXTURE_OUTER: outer,
      PSC_FIXTURE_LEAK: leak ? '1' : '',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}`, left: readdirSync(outer) };
}

describe('temporary folders of the tests', () => {
  test('made with tempDir: removed after the file, which passes', () => {
    const r = runFixture(false);
    expect(r.status, r.output).toBe(0);
    expect(r.left).toEqual([]);
  });

  test('made around it: the file fails naming the folder, and nothing is left behind', () => {
    const r = runFixture(true);
    expect(r.status, r.output).toBe(1);
    expect(r.output).toMatch(/left psc-made-around-\w+ in the temp directory: make temporary folders with tempDir\(\)/);
    expect(r.left).toEqual([]);
  });
});
