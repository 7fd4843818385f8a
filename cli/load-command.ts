/**
 * `petstore-conformance load [--profile smoke|nightly|FILE.json] [--target URL] [--out DIR] [--thresholds FILE]
 * [--shard I/N] [--start-at TIME] [--limiter-shards first|all] [--samples FILE] [--allow-production] [--quiet]`: runs the
 * profile (or a shard's share of it), writes <out>/<UTC timestamp>/{report.json,report.html,summary.md}, appends
 * <out>/history.json, and exits 1 when a threshold fails (the reason is in the summary), 2 on usage errors, 3 when the
 * target is unavailable (a report is still written, with no performance verdict).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { loadConfig, readEnv, type Env } from '../config/config.js';
import { exitCodeFor, exitCodeOf, HarnessError } from '../errors/catalogue.js';
import { allowedOnTarget } from '../config/production.js';
import { LIMITER_SHARDS, type LimiterShards } from '../load/model.js';
import { loadPreflight } from '../load/preflight.js';
import { profileNamed } from '../load/profiles.js';
import { createProgress, type ProgressStream, silentProgress } from '../load/progress.js';
import { runLoad, unreachableRun, type RunLoadOptions } from '../load/run-load.js';
import { LoadStop, type ShardPlace } from '../load/run-scenario.js';
import { autocannonTransportWarnings } from '../load/transport.js';
import { resolveLoadTarget } from '../load/target.js';
import { loadThresholds } from '../reports/thresholds.js';
import { nightExitCode, writeRunReport } from '../reports/write-report.js';
import { errorText, parseCommand, TOOL } from './args.js';
import { Interrupt } from './interrupt.js';
import { loadCommandSpec } from './commands.js';
import { CLEAR_LINE } from './output.js';

/** The flags of `load` (its options table is in cli/commands.ts; exported for the example workflows' test). */
export const loadOptions = loadCommandSpec.flags;

export interface LoadCommandIo {
  readonly stderr?: ProgressStream;
  readonly stdout?: { write(text: string): unknown };
  readonly env?: Env;
}

/** --shard I/N: 1-based I of N shards. */
export function parseShard(text: string | undefined, limiterShards: string): ShardPlace | null {
  if (!LIMITER_SHARDS.includes(limiterShards as LimiterShards))
    throw new HarnessError(
      'PSC_USAGE',
      `--limiter-shards must be one of ${LIMITER_SHARDS.join(', ')}, got "${limiterShards}"`,
    );
  if (text === undefined) return null;
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || count < 1 || count > 1000 || index < 1 || index > count)
    throw new HarnessError(
      'PSC_USAGE',
      `--shard must be I/N with 1 ≤ I ≤ N (1-based, e.g. --shard 1/4; from a 0-based index such as JOB_COMPLETION_INDEX, add 1), got "${text}"`,
    );
  return { index, count, limiterShards: limiterShards as LimiterShards };
}

/** At most this far ahead: a mistyped barrier must not hold a CI job for hours. */
const MAX_START_WAIT_MS = 60 * 60 * 1000;

/** --start-at: an ISO 8601 instant with its zone (2030-01-31T02:00:00Z) or Unix epoch seconds. */
export function parseStartAt(text: string | undefined, now = Date.now()): Date | null {
  if (text === undefined) return null;
  const epoch = /^\d{9,11}(\.\d+)?$/.test(text) ? Number(text) * 1000 : null;
  const zoned = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(text) ? Date.parse(text) : null;
  const at = epoch ?? zoned;
  if (at === null || !Number.isFinite(at))
    throw new HarnessError(
      'PSC_USAGE',
      `--start-at must be an instant with its time zone (e.g. 2030-01-31T02:00:00Z) or Unix epoch seconds, got "${text}"`,
    );
  if (at - now > MAX_START_WAIT_MS)
    throw new HarnessError('PSC_USAGE', `--start-at ${text} is more than an hour ahead: refusing to wait that long`);
  return new Date(at);
}

export async function loadCommand(argv: string[], io: LoadCommandIo = {}): Promise<number> {
  const stderr = io.stderr ?? process.stderr;
  const stdout = io.stdout ?? process.stdout;
  // A signal (issue 22) stops the load run (LoadStop: the scenario under way ends at once, reported as partial)
  // and the reports are written with what it has; then the signal's exit code. A second signal ends it at once.
  const stop = new LoadStop();
  // On a terminal the line goes below the status line, which it clears first.
  const clear = stderr.isTTY ? CLEAR_LINE : '';
  const interrupt = new Interrupt({
    announce: (line) => void stderr.write(`${clear}${TOOL}: ${line}\n`),
  });
  interrupt.install().onInterrupt((i) => stop.stopNow(i.message, i.signal));
  try {
    const parsed = parseCommand(argv, loadCommandSpec);
    if (parsed.kind !== 'args') {
      stdout.write(parsed.text);
      return 0;
    }
    const { values } = parsed;
    const profile = profileNamed(values.profile);
    const shard = parseShard(values.shard, values['limiter-shards']);
    const startAt = parseStartAt(values['start-at']);
    if (startAt && !shard) stderr.write('note: --start-at without --shard: the run waits for it all the same\n');
    const config = loadConfig(
      {
        target: values.target,
        embedded: values.embedded,
        allowProduction: values['allow-production'],
        envFile: values['env-file'],
      },
      io.env ?? readEnv(values['env-file']),
    );
    allowedOnTarget(config, 'load', true);
    for (const w of autocannonTransportWarnings(config)) stderr.write(`${w}\n`);
    const thresholds = loadThresholds(values.thresholds ?? null);
    if (values.samples) writeFileSync(values.samples, '');
    const options: RunLoadOptions = { shard, startAt, samplesFile: values.samples ?? null, stop };
    const target = await resolveLoadTarget(config, profile);
    // In CI, plain lines even on a terminal (issue 22), as for run; --quiet: none.
    const stream = config.isCi ? { write: (t: string) => stderr.write(t), isTTY: false } : stderr;
    const progress = values.quiet ? silentProgress : createProgress(stream);
    let written: Awaited<ReturnType<typeof writeRunReport>>;
    try {
      let run: Awaited<ReturnType<typeof runLoad>>;
      try {
        const checked = await loadPreflight(target, config.transport);
        for (const n of checked.notes) progress.note(n);
        run = await runLoad(profile, { ...target, keys: checked.keys }, progress, options);
      } catch (e) {
        // A night without its target still leaves a report saying so (and why), with no performance verdict.
        if (!(e instanceof HarnessError) || exitCodeOf(e) !== exitCodeFor('PSC_UNREACHABLE')) throw e;
        stderr.write(errorText(e));
        run = unreachableRun(profile, target, e.message, options);
      }
      written = await writeRunReport(run, values.out, thresholds);
    } finally {
      await target.close();
    }
    stdout.write(`${written.summary}\nReport: ${written.dir}/report.html\n`);
    if (config.stepSummaryFile) appendFileSync(config.stepSummaryFile, `${written.summary}\n`);
    // Interrupted, every report is written all the same: the exit code says the signal (130, 143).
    return nightExitCode(written, interrupt.interruption?.exitCode ?? null);
  } catch (e) {
    stderr.write(errorText(e));
    return exitCodeOf(e);
  } finally {
    interrupt.uninstall();
  }
}
