/**
 * `petstore-conformance run`: the flags (one table, in cli/commands.ts), the configuration read once, the run
 * conducted (cli/run-engine.ts), and its outputs and exit code chosen from its result (reports/conformance-outputs.ts):
 * 0 conformant, 1 violations, 2 usage, 3 unreachable or blocked, 130 or 143 stopped by SIGINT or SIGTERM.
 */
import { type Flags, loadConfig } from '../config/config.js';
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
  const config = loadConfig({ ...flagsOf(parsed.values), script: process.argv[1] });
  await checkBaselineFlags(config);
  return conductRun(config, out, parsed.values.suite !== undefined);
}
