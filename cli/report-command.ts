/**
 * `petstore-conformance report merge DIR... [--out DIR] [--thresholds FILE]`: merges shard reports into one, written as
 * `load --out DIR` writes a night: DIR/<UTC timestamp>-merged/ and DIR/history.json (DIR defaults to reports).
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Env, readEnv } from '../config/config.js';
import { exitCodeFor, exitCodeOf, HarnessError } from '../config/errors.js';
import { mergeReports } from '../reports/merge.js';
import { loadThresholds } from '../reports/thresholds.js';

export const REPORT_USAGE = 'usage: petstore-conformance report merge DIR... [--out DIR] [--thresholds FILE]';

/** The flags of `report merge` (exported so that tests can check example workflows against them). */
export const reportOptions = { out: { type: 'string', default: 'reports' }, thresholds: { type: 'string' } } as const;

function parseReportArgs(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: reportOptions, strict: true, allowPositionals: true });
  } catch (e) {
    throw new HarnessError('PSC_USAGE', `${(e as Error).message}\n${REPORT_USAGE}`);
  }
}

export async function reportCommand(
  argv: string[],
  io: { stdout?: { write(text: string): unknown }; stderr?: { write(text: string): unknown }; env?: Env } = {},
): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  try {
    const parsed = parseReportArgs(argv);
    const [sub, ...dirs] = parsed.positionals;
    if (sub !== 'merge')
      throw new HarnessError('PSC_USAGE', `report: unknown subcommand ${JSON.stringify(sub ?? '')}\n${REPORT_USAGE}`);
    if (dirs.length === 0)
      throw new HarnessError('PSC_USAGE', `report merge: give at least one report directory\n${REPORT_USAGE}`);
    const written = await mergeReports(dirs, parsed.values.out, {
      thresholds: loadThresholds(parsed.values.thresholds ?? null),
    });
    stdout.write(`${written.summary}\nMerged report: ${written.dir}/report.html\n`);
    // As load does: the merged summary lands in the CI job's summary page.
    const summaryFile = (io.env ?? readEnv()).GITHUB_STEP_SUMMARY;
    if (summaryFile) appendFileSync(summaryFile, `${written.summary}\n`);
    if (written.report.verdict.unavailable) return exitCodeFor('PSC_UNREACHABLE');
    return written.report.verdict.pass ? 0 : 1;
  } catch (e) {
    stderr.write(
      `${e instanceof HarnessError ? `${e.code}: ${e.message}` : `error: ${(e as Error).stack ?? String(e)}`}\n`,
    );
    return exitCodeOf(e);
  }
}
