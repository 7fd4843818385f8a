/**
 * Time from SIGTERM to exit with every report written (issue 22): what a CI runner allows between SIGTERM and
 * SIGKILL is a few seconds. A default run against the embedded server with --har, --json, --junit and --replay-dir,
 * signalled mid-run; and `load --profile smoke`, signalled during its first scenario. Medians and maxima of rounds.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliEnv } from './cli.js';
import { median } from '../reports/thresholds.js';

const ROUNDS = 3;

interface Stop {
  readonly exit: number | null;
  readonly ms: number;
  readonly reportsWritten: boolean;
}

function signalled(args: string[], cwd: string, ready: RegExp, written: () => boolean): Promise<Stop> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(process.cwd(), 'bin/petstore-conformance.js'), ...args], {
      cwd,
      env: cliEnv({ PETSTORE_PROGRESS_SECONDS: '0.2' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let t0 = 0;
    createInterface({ input: p.stderr! }).on('line', (line) => {
      if (t0 !== 0 || !ready.test(line)) return;
      t0 = performance.now();
      p.kill('SIGTERM');
    });
    p.on('exit', (code) => resolve({ exit: code, ms: performance.now() - t0, reportsWritten: written() }));
  });
}

export async function benchSignalStop(dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const cases = [
    {
      name: 'run (all default suites, embedded, --har --json --junit --replay-dir), SIGTERM after 500 requests',
      args: ['run', '--embedded', '--har', 'h.har', '--json', 'r.json', '--junit', 'j.xml', '--replay-dir', 'rep'],
      ready: /^progress: .*\b([5-9]\d{2}|\d{4,}) requests/,
      written: (cwd: string) => ['h.har', 'r.json', 'j.xml'].every((f) => existsSync(join(cwd, f))),
    },
    {
      name: 'load --profile smoke, SIGTERM during its first scenario',
      args: ['load', '--embedded', '--profile', 'smoke', '--out', 'out'],
      ready: /^load: mix, /,
      written: (cwd: string) =>
        existsSync(join(cwd, 'out')) &&
        readdirSync(join(cwd, 'out')).some((d) => existsSync(join(cwd, 'out', d, 'report.html'))),
    },
  ];
  for (const c of cases) {
    const rounds: Stop[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const cwd = mkdtempSync(join(dir, 'signal-'));
      rounds.push(await signalled(c.args, cwd, c.ready, () => c.written(cwd)));
    }
    const ms = rounds.map((r) => r.ms);
    out[c.name] = {
      medianMs: Math.round(median(ms)!),
      maxMs: Math.round(Math.max(...ms)),
      exits: rounds.map((r) => r.exit),
      reportsWritten: rounds.every((r) => r.reportsWritten),
    };
  }
  return out;
}
