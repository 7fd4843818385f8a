/**
 * `serve` ends with the process that started it: a backgrounded `npx petstore-conformance serve` killed with
 * `kill $!` kills npm, not the server, which then sees its parent (or, behind `sh -c`, its shell's parent) go and
 * stops. Here a parent process starts the built command, directly and through `sh -c` (a shell that does not exec
 * it), and is killed with SIGKILL: it forwards nothing, so only the server's own watch can end it.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const bin = 'bin/petstore-conformance.js';

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname);
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('serve ends when its parent ends', () => {
  it.each([
    ['started directly', `spawn(process.execPath, [${JSON.stringify(bin)}, 'serve'], { stdio: 'inherit' })`],
    [
      'started through sh -c (as npm runs a bin)',
      `spawn('sh', ['-c', '"' + process.execPath + '" ${bin} serve; true'], { stdio: 'inherit' })`,
    ],
  ])(
    '%s: the parent is killed, the server stops',
    async (_how, start) => {
      const parent = spawn(
        process.execPath,
        ['-e', `const { spawn } = require('node:child_process'); ${start}; setInterval(() => {}, 1000);`],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      parent.stderr.on('data', (c) => (stderr += c));
      // The server's stdout is the parent's: the pipe closes only when the server too has exited.
      const closed = new Promise<void>((r) => parent.stdout.once('close', () => r()));
      const url = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: parent.stdout });
        rl.on('line', (l) => {
          const m = /listening at (\S+)/.exec(l);
          if (m) resolve(m[1]!);
        });
        parent.once('exit', () => reject(new Error(`the parent exited before the server started: ${stderr}`)));
      });
      expect(await refused(url)).toBe(false);
      parent.kill('SIGKILL');
      // The server exits after its parent was killed (bounded by the test's timeout, not a wall-clock assertion).
      await closed;
      expect(await refused(url)).toBe(true);
      expect(stderr).toMatch(/the process that started serve has ended: stopping/);
    },
    60_000,
  );
});
