/**
 * CPU hogs: one busy child process per core, so that a test runs the way a shared CI runner does, every core taken.
 * Each hog is a bare `node -e` loop that also ends itself after `maxMs` (a test that dies before its afterAll leaves
 * no hog behind for long); `stop` kills them all, by their own process ids, and waits for them to exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface CpuHogs {
  readonly count: number;
  stop(): Promise<void>;
}

export function startCpuHogs(maxMs: number, count = availableParallelism()): CpuHogs {
  const loop = `const end = Date.now() + ${Math.round(maxMs)}; for (;;) if (Date.now() > end) process.exit(0);`;
  const hogs: ChildProcess[] = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }),
  );
  const exited = hogs.map((h) => new Promise<void>((r) => (h.exitCode !== null ? r() : h.once('exit', () => r()))));
  return {
    count,
    async stop() {
      for (const h of hogs) if (h.exitCode === null && h.signalCode === null) h.kill('SIGKILL');
      await Promise.all(exited);
    },
  };
}
