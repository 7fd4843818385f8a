/**
 * The one suite file of `petstore-conformance run`: it builds the run from the configuration the command provided
 * (suites/worker-config.ts), runs it (runner/run.ts schedules the suites) and hands the outcome, typed, to the
 * command's reporter through task.meta (cli/suite-reporter.ts); with --har, each suite's exchanges travel in batches as
 * they happen (suites/meta.ts); the run's progress as marked console lines (suites/progress-feed.ts); a signal the
 * command received halts the run's limits (suites/stop-channel.ts). Suites write no files. The verdict is the
 * reports' to give, from the findings: this test fails only when the run itself did (a suite that did not run).
 */
import { expect, inject, test } from 'vitest';
import { Run } from '../runner/run.js';
import { runOutcome } from '../runner/outcome.js';
import { ExchangeStream } from './meta.js';
import { ProgressFeed } from './progress-feed.js';
import { listenForStop } from './stop-channel.js';
import { workerSettings } from './worker-config.js';

/** Slack past the run's deadline for the last request to end and the outcome to be handed over. */
const DEADLINE_GRACE_MS = 60_000;

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
    // The run's progress (suites under way, requests, defects, waits) goes to the command as it happens.
    let run: Run | null = null;
    const feed = new ProgressFeed(() => run?.limits.requests ?? 0, provided.limits.maxRequests);
    run = new Run(
      { ...workerSettings(provided), onWait: feed.wait, onRecord: feed.found },
      {
        limits: provided.limits,
        concurrency: provided.concurrency,
        onSuite: (suite, event) => (event === 'start' ? feed.suiteStarted(suite) : feed.suiteEnded(suite)),
        ...(provided.recordExchanges && { sinkFor: (suite: string) => ExchangeStream.toReporter(task, suite) }),
      },
    );
    // A signal the command received stops the run through its limits, as a reached deadline does (issue 22).
    const limits = run.limits;
    const stopListening = provided.stopChannel
      ? listenForStop(provided.stopChannel, ({ code, message }) => limits.halt(code, message))
      : () => {};
    try {
      const outcome = runOutcome(await run.suites(provided.suites), provided.seed, provided.strict);
      task.meta.run = outcome;
      expect(outcome.errors).toEqual([]);
    } finally {
      stopListening();
      feed.close();
    }
  },
  timeoutMs(provided.limits.deadline),
);
