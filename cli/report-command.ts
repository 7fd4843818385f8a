/**
 * `petstore-conformance report merge DIR... [--out DIR] [--thresholds FILE]`: merges shard reports into one, written as
 * `load --out DIR` writes a night: DIR/<UTC timestamp>-merged/ and DIR/history.json (DIR defaults to reports).
 * `petstore-conformance report html r.json [--out FILE]`: rebuilds a conformance run's HTML page from its JSON report.
 */
import { appendFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Env, htmlPathBeside, readEnv, stepSummaryFileOf } from '../config/config.js';
import { exitCodeOf } from '../errors/catalogue.js';
import { mergeReports } from '../reports/merge.js';
import { nightExitCode } from '../reports/write-report.js';
import { readConformanceJson, writeConformanceHtml } from '../reports/conformance-html-file.js';
import { Interrupt } from './interrupt.js';
import { loadThresholds } from '../reports/thresholds.js';
import {
  errorText,
  helpText,
  missingPositional,
  parseCommand,
  suggestion,
  TOOL,
  UsageError,
  usageText,
} from './args.js';
import { reportHtmlCommandSpec, reportMergeCommandSpec } from './commands.js';

const SUBCOMMANDS = ['merge', 'html'];

/** The flags of `report merge` (its options table is in cli/commands.ts; exported for the recipes' test). */
export const reportOptions = reportMergeCommandSpec.flags;

export async function reportCommand(
  argv: string[],
  io: { stdout?: { write(text: string): unknown }; stderr?: { write(text: string): unknown }; env?: Env } = {},
): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  // A merge is short and writes its files at the end: a first signal lets it finish (its report written) and exits
  // with the signal's code; a second ends it at once (cli/interrupt.ts).
  const interrupt = new Interrupt({
    stopping: 'finishing the merge',
    announce: (line) => void stderr.write(`${TOOL}: ${line}\n`),
  }).install();
  try {
    const [sub, ...rest] = argv;
    // `report --help`: the help of both subcommands (`report` alone is a usage error).
    if (sub === '--help' || sub === '-h') {
      stdout.write(`${helpText(reportMergeCommandSpec)}\n${helpText(reportHtmlCommandSpec)}`);
      return 0;
    }
    if (sub === 'html') return await reportHtml(rest, stdout);
    if (sub !== 'merge')
      throw new UsageError(
        sub === undefined
          ? 'report: name a subcommand (merge, html)'
          : `report: unknown subcommand "${sub}"${suggestion(sub, SUBCOMMANDS)} (subcommands: ${SUBCOMMANDS.join(', ')})`,
        usageText(reportMergeCommandSpec),
      );
    const parsed = parseCommand(rest, reportMergeCommandSpec);
    if (parsed.kind !== 'args') {
      stdout.write(parsed.text);
      return 0;
    }
    const dirs = parsed.positionals;
    if (dirs.length === 0) missingPositional(reportMergeCommandSpec, 'give at least one report directory');
    const written = await mergeReports(dirs, parsed.values.out ?? 'reports', {
      thresholds: loadThresholds(parsed.values.thresholds ?? null),
    });
    stdout.write(`${written.summary}\nMerged report: ${written.dir}/report.html\n`);
    // As load does: the merged summary lands in the CI job's summary page.
    const summaryFile = stepSummaryFileOf(io.env ?? readEnv());
    if (summaryFile) appendFileSync(summaryFile, `${written.summary}\n`);
    // Interrupted, the merge still finished and wrote its files: the exit code says the signal.
    return nightExitCode(written, interrupt.interruption?.exitCode ?? null);
  } catch (e) {
    stderr.write(errorText(e));
    return exitCodeOf(e);
  } finally {
    interrupt.uninstall();
  }
}

/** `report html r.json [--out FILE]`: the page of the run, from the JSON report alone (as the run wrote it). */
async function reportHtml(argv: string[], stdout: { write(text: string): unknown }): Promise<number> {
  const parsed = parseCommand(argv, reportHtmlCommandSpec);
  if (parsed.kind !== 'args') {
    stdout.write(parsed.text);
    return 0;
  }
  const [json, ...more] = parsed.positionals;
  if (json === undefined || more.length > 0) missingPositional(reportHtmlCommandSpec, 'give one JSON report of `run`');
  const out = parsed.values.out ?? htmlPathBeside(json);
  await writeConformanceHtml(readConformanceJson(json), out, dirname(resolve(json)));
  stdout.write(`HTML report: ${out}\n`);
  return 0;
}
