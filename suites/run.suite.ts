/**
 * The one suite file of `petstore-conformance run`: it builds the run from the configuration the command provided
 * (suites/worker-config.ts), runs it (runner/run.ts schedules the suites) and hands the outcome, typed, to the
 * command's reporter through task.meta (cli/suite-reporter.ts); with --har, each suite's exchanges travel in batches as
 * they happen (suites/meta.ts). Suites write no files. The verdict is the reports' to give, from the findings: this
 * test fails only when the run itself did (a suite that did not run).
 */
import { expect, inject, test } from 'vitest';
import { Run } from '../runner/run.js';
import { runOutcome } from '../runner/outcome.js';
import { ExchangeStream } from './meta.js';
import { workerSettings } from './worker-config.js';

/** Slack past the run's deadline for the last request to end and the outcome to be handed over. */
const DEADLINE_GRACE_MS = 60_000;

/** Says what a wait is for on stderr (the run's progress stream): a countdown on a terminal, one line otherwise. */
function announceWait(ms: number, reason: string): void {
  if (ms < 1000) return;
  const seconds = Math.ceil(ms / 1000);
  if (!process.stderr.isTTY) {
    process.stderr.write(`waiting ${seconds} s: ${reason}\n`);
    return;
  }
  let left = seconds;
  const tick = () => {
    process.stderr.write(`\r\x1b[Kwaiting ${left} s: ${reason}`);
    if (--left < 0) {
      clearInterval(timer);
      process.stderr.write('\r\x1b[K');
    }
  };
  const timer = setInterval(tick, 1000);
  timer.unref();
  tick();
}

/** The run may go on until its deadline, plus a grace to hand over; without a deadline, an hour. */
function timeoutMs(deadline: number | null): number {
  return deadline === null ? 60 * 60 * 1000 : Math.max(1_000, deadline - Date.now() + DEADLINE_GRACE_MS);
}

const provided = inject('petstore');
if (!provided)
  throw new Error('no configuration provided: the conformance suites are run by `petstore-conformance run`');

test(
  `conformance: ${provided.suites.join(', ')}`,
  async ({ task }) => {
    const run = new Run(
      { ...workerSettings(provided), onWait: announceWait },
      {
        limits: provided.limits,
        concurrency: provided.concurrency,
        ...(provided.recordExchanges && { sinkFor: (suite: string) => ExchangeStream.toReporter(task, suite) }),
      },
    );
    const outcome = runOutcome(await run.suites(provided.suites), provided.seed, provided.strict);
    task.meta.run = outcome;
    expect(outcome.errors).toEqual([]);
  },
  timeoutMs(provided.limits.deadline),
);
