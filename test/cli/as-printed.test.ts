/**
 * Commands run as printed. A run started through `npx` (as the README starts it, from the clone) against a faulty
 * target prints a replay line per defect block; that line, pasted into a shell in the clone, starts the same run and
 * shows the same defect. `--replay-dir` writes one file per block the report shows, each block naming its file, and
 * `replay FILE` of a block's file reproduces its defect.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyEnv } from '../../config/config.js';
import { type ReferenceServer, startReferenceServer } from '../../reference/server.js';
import type { ReplayFile } from '../../reports/replay-file.js';
import { readJson } from '../support/artifacts.js';
import { distinctiveKeys } from './support.js';
import { tempDir } from '../support/temp-dir.js';

const root = new URL('../..', import.meta.url).pathname;
const keys = distinctiveKeys('printed');

/** A user's shell in the clone: their PATH and keys, nothing of this test's own configuration. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(PETSTORE_|npm_|GITHUB_|INIT_CWD$)/i.test(k)) env[k] = v;
  return { ...env, ...keyEnv(keys) };
}

function sh(line: string, timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], { cwd: root, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The block headers of a terminal summary (`✗ createPet › create-201 [clause …] …`), without their counts. */
const blocks = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => /^(✗|!) /.test(l))
    .map((l) => l.replace(/ · seen .*$/, ''));

describe('commands run as printed', () => {
  let server: ReferenceServer;
  let run: { code: number | null; stdout: string; stderr: string };
  let dir: string;

  beforeAll(async () => {
    server = await startReferenceServer({ keys, faults: ['create-200', 'list-limit-ignored'] });
    dir = tempDir('psc-printed-');
    run = await sh(
      `npx petstore-conformance run --target ${server.url} --suite createPet,listPets --runs 5 --seed 11 --replay-dir ${dir}/replays --json ${dir}/report.json`,
    );
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  it('an npx run prints replay lines that start with npx petstore-conformance', () => {
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.split('\n').filter((l) => l.includes('replay: '));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^ {4}replay: npx petstore-conformance run --target /);
  });

  it('a replay line pasted into a shell in the clone shows the same defect', async () => {
    const header = blocks(run.stdout).find((b) => b.includes('createPet ›'))!;
    expect(header, run.stdout).toBeDefined();
    const at = run.stdout.split('\n').indexOf(run.stdout.split('\n').find((l) => l.startsWith(header))!);
    const line = run.stdout
      .split('\n')
      .slice(at)
      .find((l) => l.includes('replay: '))!
      .replace(/^ {4}replay: /, '')
      .replace(/ {3}\(fast-check seed .*$/, '');
    const again = await sh(line);
    expect(again.code, again.stderr).toBe(1);
    expect(blocks(again.stdout)).toContain(header);
  }, 180_000);

  it('--replay-dir: one file per block, each block naming its file, and replay FILE reproduces its defect', async () => {
    const shown = blocks(run.stdout);
    const files = readdirSync(join(dir, 'replays'));
    expect(files.length).toBe(shown.length);
    const named = [...run.stdout.matchAll(/^ {4}replay file: (\S+)/gm)].map((m) => m[1]!);
    expect(named.length).toBe(shown.length);
    for (const f of named) expect(existsSync(f), f).toBe(true);
    // Numbered in the order the blocks are printed, and each file says which defect it is.
    const report = readJson<{ replayFiles: Record<string, string> }>(join(dir, 'report.json'));
    expect(Object.values(report.replayFiles).sort()).toEqual([...named].sort());
    for (const [signature, path] of Object.entries(report.replayFiles))
      expect(readJson<ReplayFile>(path).signature).toBe(signature);
    expect(named.map((p) => p.split('/').at(-1)!.slice(0, 2))).toEqual(
      named.map((_p, i) => String(i + 1).padStart(2, '0')),
    );
    // The file of the 200-for-a-create defect (create-201, its undocumented status folded under it), replayed as its
    // block prints it: the response checks see the undocumented status again.
    const statusFile = named.find((p) => p.endsWith('-create-201.json'));
    expect(statusFile, named.join('\n')).toBeDefined();
    const printed = run.stdout
      .split('\n')
      .find((l) => l.includes(`replay file: ${statusFile}`))!
      .replace(/^.*\((.*)\)$/, '$1');
    expect(printed).toBe(`npx petstore-conformance replay ${statusFile}`);
    const replayed = await sh(printed);
    expect(replayed.stdout, replayed.stderr).toMatch(/^reproduced: status-documented$/m);
  }, 180_000);
});
