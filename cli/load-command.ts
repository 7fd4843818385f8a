/**
 * `petstore-conformance load [--profile smoke|nightly] [--target URL] [--out DIR] [--thresholds FILE]
 * [--allow-production]`: runs the profile, writes <out>/<UTC timestamp>/{report.json,report.html,summary.md}, appends
 * <out>/history.json, and exits 1 when a threshold fails (the reason is in the summary), 2 on usage errors.
 */
import { appendFileSync } from 'node:fs';
import { loadConfig, readEnv, type Env } from '../config/config.js';
import { exitCodeOf } from '../config/errors.js';
import { allowedOnTarget } from '../config/production.js';
import { profileNamed } from '../load/profiles.js';
import { createProgress, type ProgressStream } from '../load/progress.js';
import { runLoad } from '../load/run-load.js';
import { autocannonTransportWarnings } from '../load/transport.js';
import { resolveLoadTarget } from '../load/target.js';
import { loadThresholds } from '../reports/thresholds.js';
import { writeRunReport } from '../reports/write-report.js';
import { errorText, parseCommand } from './args.js';
import { loadCommandSpec } from './commands.js';

/** The flags of `load` (its options table is in cli/commands.ts; exported for the example workflows' test). */
export const loadOptions = loadCommandSpec.flags;

export interface LoadCommandIo {
  readonly stderr?: ProgressStream;
  readonly stdout?: { write(text: string): unknown };
  readonly env?: Env;
}

export async function loadCommand(argv: string[], io: LoadCommandIo = {}): Promise<number> {
  const stderr = io.stderr ?? process.stderr;
  const stdout = io.stdout ?? process.stdout;
  try {
    const parsed = parseCommand(argv, loadCommandSpec);
    if (parsed.kind !== 'args') {
      stdout.write(parsed.text);
      return 0;
    }
    const { values } = parsed;
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
      const run = await runLoad(profile, target, createProgress(stderr));
      written = await writeRunReport(run, values.out, thresholds);
    } finally {
      await target.close();
    }
    stdout.write(`${written.summary}\nReport: ${written.dir}/report.html\n`);
    if (config.stepSummaryFile) appendFileSync(config.stepSummaryFile, `${written.summary}\n`);
    return written.report.verdict.pass ? 0 : 1;
  } catch (e) {
    stderr.write(errorText(e));
    return exitCodeOf(e);
  }
}
