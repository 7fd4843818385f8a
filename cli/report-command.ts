/** `petstore-conformance report merge DIR... [--out DIR] [--thresholds FILE]`: merges shard reports into one. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { exitCodeOf, HarnessError } from '../config/errors.js';
import { mergeReports } from '../reports/merge.js';
import { Interrupt } from './interrupt.js';
import { loadThresholds } from '../reports/thresholds.js';
import { utcStamp } from '../reports/write-report.js';

export const REPORT_USAGE = 'usage: petstore-conformance report merge DIR... [--out DIR] [--thresholds FILE]';

function parseReportArgs(argv: string[]) {
  const options = { out: { type: 'string' }, thresholds: { type: 'string' } } as const;
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new HarnessError('PSC_USAGE', `${(e as Error).message}\n${REPORT_USAGE}`);
  }
}

export async function reportCommand(
  argv: string[],
  io: { stdout?: { write(text: string): unknown }; stderr?: { write(text: string): unknown } } = {},
): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  // A merge is short and writes its files at the end: a first signal lets it finish (its report written) and exits
  // with the signal's code; a second ends it at once (cli/interrupt.ts).
  const interrupt = new Interrupt({
    stopping: 'finishing the merge',
    announce: (line) => void stderr.write(`petstore-conformance: ${line}\n`),
  }).install();
  try {
    const parsed = parseReportArgs(argv);
    const [sub, ...dirs] = parsed.positionals;
    if (sub !== 'merge')
      throw new HarnessError('PSC_USAGE', `report: unknown subcommand ${JSON.stringify(sub ?? '')}\n${REPORT_USAGE}`);
    if (dirs.length === 0)
      throw new HarnessError('PSC_USAGE', `report merge: give at least one report directory\n${REPORT_USAGE}`);
    const out = parsed.values.out ?? join('reports', `${utcStamp(new Date())}-merged`);
    const written = await mergeReports(dirs, out, { thresholds: loadThresholds(parsed.values.thresholds ?? null) });
    stdout.write(`${written.summary}\nMerged report: ${written.dir}/report.html\n`);
    return interrupt.interruption?.exitCode ?? (written.report.verdict.pass ? 0 : 1);
  } catch (e) {
    stderr.write(
      `${e instanceof HarnessError ? `${e.code}: ${e.message}` : `error: ${(e as Error).stack ?? String(e)}`}\n`,
    );
    return exitCodeOf(e);
  } finally {
    interrupt.uninstall();
  }
}
