/**
 * `petstore-conformance run`: the flags (one table, `runOptions`), the configuration read once, the run conducted
 * (cli/run-engine.ts), and its outputs and exit code chosen from its result (reports/conformance-outputs.ts): 0
 * conformant, 1 violations, 2 usage, 3 unreachable or blocked, 130 or 143 stopped by SIGINT or SIGTERM.
 */
import { type Flags, loadConfig } from '../config/config.js';
import { parseFlags } from './args.js';
import type { Output } from './output.js';
import { checkBaselineFlags, conductRun } from './run-engine.js';

export type { RunReport } from '../reports/conformance-outputs.js';
export { requestBudget } from './run-engine.js';

export const runOptions = {
  target: { type: 'string' },
  suite: { type: 'string', multiple: true },
  seed: { type: 'string' },
  runs: { type: 'string' },
  strict: { type: 'boolean' },
  json: { type: 'string' },
  junit: { type: 'string' },
  har: { type: 'string' },
  'replay-dir': { type: 'string' },
  baseline: { type: 'string' },
  'update-baseline': { type: 'boolean' },
  'allow-production': { type: 'boolean' },
  'env-file': { type: 'string' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  'max-duration': { type: 'string' },
  budget: { type: 'string' },
  'max-creates': { type: 'string' },
  'name-prefix': { type: 'string' },
  concurrency: { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

/** The flags by their names in the configuration: each option of the table, its dashes turned to camelCase. */
function flagsOf(values: Record<string, string | boolean | string[] | undefined>): Flags {
  return Object.fromEntries(
    Object.entries(values).map(([name, v]) => [name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase()), v]),
  ) as Flags;
}

export async function runCommand(argv: string[], out: Output): Promise<number> {
  const { values } = parseFlags(argv, runOptions);
  const config = loadConfig(flagsOf(values));
  await checkBaselineFlags(config);
  return conductRun(config, out, values.suite !== undefined, (run, har, outputs) =>
    outputs.writeRunOutputs(run, har, out),
  );
}
