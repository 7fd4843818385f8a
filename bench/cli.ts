/** The bench's way to run the command as a user does: a child process of the build, its output discarded. */
import { spawn } from 'node:child_process';
import { FUNCTIONAL_SUITES } from '../config/config.js';

/** The functional suites as a --suite value. */
export const FUNCTIONAL = FUNCTIONAL_SUITES.join(',');

/**
 * This process's environment without its PETSTORE_* variables, with `env` added: only the settings a section gives
 * reach the command (a caller's PETSTORE_TARGET would turn an embedded run into a target run, PETSTORE_RUNS change
 * its length).
 */
export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PETSTORE_'))), ...env };
}

/** Runs `petstore-conformance ...args` with `env` (see cliEnv); its exit code and wall time. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/petstore-conformance.js', ...args], {
      env: cliEnv(env),
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    p.on('exit', (code) => resolve({ code: code ?? -1, ms: performance.now() - t0 }));
  });
}
