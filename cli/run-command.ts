/**
 * `petstore-conformance run`: the flags (one table, in cli/commands.ts), the configuration read once, the run
 * conducted (cli/run-engine.ts), and its outputs and exit code chosen from its result (reports/conformance-outputs.ts):
 * 0 conformant, 1 violations, 2 usage, 3 unreachable or blocked, 130 or 143 stopped by SIGINT or SIGTERM.
 */
import {
  type Config,
  DEFAULT_MAX_DURATION_MS,
  type Flags,
  loadConfig,
  reportPathsOf,
  targetTextOf,
} from '../config/config.js';
import { toolVersion } from '../http/user-agent.js';
import { ExitCode } from '../errors/catalogue.js';
import { parseCommand } from './args.js';
import { runCommandSpec } from './commands.js';
import type { Output } from './output.js';
import { checkBaselineFlags, conductRun } from './run-engine.js';

export type { RunReport } from '../reports/conformance-outputs.js';
export { requestBudget } from './run-engine.js';

/** The flags of `run` (its options table is in cli/commands.ts; exported for the example workflows' test). */
export const runOptions = runCommandSpec.flags;

/** The flags by their names in the configuration: each option of the table, its dashes turned to camelCase. */
function flagsOf(values: Record<string, string | boolean | (string | boolean)[] | undefined>): Flags {
  return Object.fromEntries(
    Object.entries(values).map(([name, v]) => [name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase()), v]),
  ) as Flags;
}

export async function runCommand(argv: string[], out: Output): Promise<number> {
  const parsed = parseCommand(argv, runCommandSpec);
  if (parsed.kind !== 'args') {
    out.result(parsed.text);
    return ExitCode.conformant;
  }
  // The printed commands (replay lines) start the way this process was started.
  const flags: Flags = { ...flagsOf(parsed.values), script: process.argv[1] };
  const startedAt = new Date();
  const t0 = performance.now();
  let config: Config | null = null;
  try {
    config = loadConfig(flags);
    await checkBaselineFlags(config);
    return await conductRun(config, out, parsed.values.suite !== undefined);
  } catch (e) {
    // A run that cannot start or go on (exit 2 or 3) still writes every report it was asked for, saying why and what
    // to do, as a signal's stop does: a CI step that publishes them finds them. The error itself is main's to print.
    await writeFailureReports(e, flags, config, startedAt, performance.now() - t0, out);
    throw e;
  }
}

async function writeFailureReports(
  error: unknown,
  flags: Flags,
  config: Config | null,
  startedAt: Date,
  durationMs: number,
  out: Output,
): Promise<void> {
  const paths = config ?? reportPathsOf(flags);
  if (!paths.jsonReport && !paths.junitReport && !paths.htmlReport && !paths.stepSummaryFile) return;
  const seedText = flags.seed ?? '';
  const target = config ? (config.target ?? '') : targetTextOf(flags);
  await (await import('../reports/conformance-outputs.js')).writeFailureOutputs(
    {
      error,
      paths,
      target: { url: target, embedded: config ? config.target === null : flags.embedded === true },
      seed: config?.seed ?? (/^\d+$/.test(seedText) ? Number(seedText) : 0),
      strict: config?.strict ?? flags.strict === true,
      maxDurationMs: config?.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
      invocation: config?.invocation ?? 'npx petstore-conformance',
      startedAt,
      durationMs,
      toolVersion: toolVersion(),
    },
    out,
  );
}
