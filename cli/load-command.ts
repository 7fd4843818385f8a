/**
 * `petstore-conformance load [--profile smoke|nightly] [--target URL] [--out DIR] [--thresholds FILE]
 * [--allow-production]`: runs the profile, writes <out>/<UTC timestamp>/{report.json,report.html,summary.md}, appends
 * <out>/history.json, and exits 1 when a threshold fails (the reason is in the summary), 2 on usage errors.
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig, readEnv, type Env } from '../config/config.js';
import { exitCodeOf, HarnessError } from '../config/errors.js';
import { allowedOnTarget } from '../config/production.js';
import { scrub } from '../http/redact.js';
import { profileNamed } from '../load/profiles.js';
import { createProgress, type ProgressStream, silentProgress } from '../load/progress.js';
import { LoadStop } from '../load/run-scenario.js';
import { Interrupt } from './interrupt.js';
import { runLoad } from '../load/run-load.js';
import { autocannonTransportWarnings } from '../load/transport.js';
import { resolveLoadTarget } from '../load/target.js';
import { loadThresholds } from '../reports/thresholds.js';
import { writeRunReport } from '../reports/write-report.js';

export const LOAD_USAGE =
  'usage: petstore-conformance load [--profile smoke|nightly] [--target URL] [--out DIR] [--thresholds FILE] [--allow-production] [--quiet]';

/** The flags of `load` (exported so that tests can check example workflows against them). */
export const loadOptions = {
  profile: { type: 'string', default: 'smoke' },
  target: { type: 'string' },
  out: { type: 'string', default: 'reports' },
  thresholds: { type: 'string' },
  'allow-production': { type: 'boolean', default: false },
  'env-file': { type: 'string' },
  quiet: { type: 'boolean', default: false },
} as const;

export interface LoadCommandIo {
  readonly stderr?: ProgressStream;
  readonly stdout?: { write(text: string): unknown };
  readonly env?: Env;
}

function parseLoadArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: loadOptions, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new HarnessError('PSC_USAGE', `${(e as Error).message}\n${LOAD_USAGE}`);
  }
}

export async function loadCommand(argv: string[], io: LoadCommandIo = {}): Promise<number> {
  const stderr = io.stderr ?? process.stderr;
  const stdout = io.stdout ?? process.stdout;
  // A signal (issue 22) stops the load run (LoadStop: the scenario under way ends at once, reported as partial)
  // and the reports are written with what it has; then the signal's exit code. A second signal ends it at once.
  const stop = new LoadStop();
  // On a terminal the line goes below the status line, which it clears first.
  const clear = stderr.isTTY ? '\r\x1b[2K' : '';
  const interrupt = new Interrupt({
    announce: (line) => void stderr.write(`${clear}petstore-conformance: ${line}\n`),
  });
  interrupt.install().onInterrupt((i) => stop.stopNow(i.message, i.signal));
  try {
    const values = parseLoadArgs(argv);
    const profile = profileNamed(values.profile);
    const config = loadConfig(
      { target: values.target, allowProduction: values['allow-production'], envFile: values['env-file'] },
      io.env ?? readEnv(values['env-file']),
    );
    allowedOnTarget(config, 'load', true);
    for (const w of autocannonTransportWarnings(config)) stderr.write(`${w}\n`);
    const thresholds = loadThresholds(values.thresholds ?? null);
    const target = await resolveLoadTarget(config, profile);
    let written: Awaited<ReturnType<typeof writeRunReport>>;
    try {
      // In CI, plain lines even on a terminal (issue 22), as for run.
      const stream = config.isCi ? { write: (t: string) => stderr.write(t), isTTY: false } : stderr;
      const run = await runLoad(profile, target, values.quiet ? silentProgress : createProgress(stream), stop);
      written = await writeRunReport(run, values.out, thresholds);
    } finally {
      await target.close();
    }
    stdout.write(`${written.summary}\nReport: ${written.dir}/report.html\n`);
    if (config.stepSummaryFile) appendFileSync(config.stepSummaryFile, `${written.summary}\n`);
    return interrupt.interruption?.exitCode ?? (written.report.verdict.pass ? 0 : 1);
  } catch (e) {
    stderr.write(
      `${scrub(e instanceof HarnessError ? `${e.code}: ${e.message}` : `error: ${(e as Error).stack ?? String(e)}`)}\n`,
    );
    return exitCodeOf(e);
  } finally {
    interrupt.uninstall();
  }
}
