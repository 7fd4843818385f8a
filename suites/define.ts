/**
 * A conformance suite as vitest tests, thin over runner/: the scenario runs once in beforeAll, then one test per
 * (operation, check) passes or fails on that check's findings, which travel to reporters as data in task.meta.
 * The target, keys, seed and runs come from the CLI through vitest's `inject`. Suites write no files: with --har,
 * exchanges travel to the reporter in batches as they happen (suites/meta.ts), and it appends them to the HAR.
 * Suites run side by side (--concurrency) inside the one worker that runs the suite files (suites/vitest-options.ts):
 * the first file to start launches every suite of the run that may run beside the others, and each file awaits its
 * own; inside a suite, independent properties run side by side too (runner/property.ts). One worker keeps one pacer,
 * one guard and one set of request lanes for all of them, so pacing, the run's limits and --concurrency (requests in
 * flight) stay whole; the results do not depend on the interleaving, as each suite and each of its properties keeps
 * its own context, sequence numbers and finding log, and a suite takes in its properties' logs in a fixed order.
 */
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { type Finding, failsRun } from '../checks/check.js';
import { isFunctionalSuite, type SuiteName } from '../config/config.js';
import { runSuite, type SuiteResult, suiteChecks, suiteDefinition } from '../runner/suites.js';
import type { RunSettings } from '../runner/context.js';
import { lanesOf } from '../runner/lanes.js';
import { contract } from '../spec/contract.js';
import { ExchangeStream, type SuiteMeta } from './meta.js';
import { type ProgressFeed, sharedProgressFeed } from './progress-feed.js';
import { sharedLanes, sharedPacer, type WorkerConfig, workerSettings } from './worker-config.js';

/** Slack past the run's deadline for a suite to finish its last request and hand its findings over. */
const DEADLINE_GRACE_MS = 60_000;
const ALL_OPERATIONS = [...contract.operations.keys()];

/** The scenario may run until the run's deadline, plus a grace to hand over; without a deadline, an hour. */
function suiteTimeoutMs(deadline: number | null): number {
  return deadline === null ? 60 * 60 * 1000 : Math.max(1_000, deadline - Date.now() + DEADLINE_GRACE_MS);
}

/**
 * Suites that may run beside one another: their checks already allow for others' traffic on the target (a staging has
 * other clients: other pets listed, ids not in order). The rate-limit and quota suites measure a key's counters, which
 * any other traffic would disturb: they run alone, after (the sequencer orders them last).
 */
const sideBySide = isFunctionalSuite;

type SuiteRun = Awaited<ReturnType<typeof runSuite>>;
const RUNS = Symbol.for('petstore-conformance.suite-runs');

/**
 * The run of suite `name` in this worker: started now, with the suites that may run beside it when the run has more
 * than one lane. A request budget shared out per suite (runner/guard.ts counts a suite's share while it is the one
 * running) keeps the suites one at a time.
 */
function suiteRun(
  name: SuiteName,
  provided: WorkerConfig,
  settings: RunSettings,
  streamFor: (suite: SuiteName) => ExchangeStream | undefined,
  feed?: ProgressFeed,
): Promise<SuiteRun> {
  const g = globalThis as { [RUNS]?: Map<SuiteName, Promise<SuiteRun>> };
  g[RUNS] ??= new Map();
  const runs = g[RUNS];
  const started = runs.get(name);
  if (started) return started;
  const lanes = provided.limits.suiteEstimates ? 1 : provided.concurrency;
  const together =
    lanes > 1 && sideBySide(name)
      ? [name, ...provided.suites.filter((s) => s !== name && sideBySide(s) && !runs.has(s))]
      : [name];
  const lane = lanesOf(lanes);
  for (const s of together) {
    const run = lane.run(async () => {
      const stream = streamFor(s);
      // HOOK (issue 22): the progress feed hears each suite start and end.
      feed?.suiteStarted(s);
      try {
        return await runSuite(s, stream ? { ...settings, exchangeSink: stream } : settings);
      } finally {
        await stream?.close();
        feed?.suiteEnded(s);
      }
    });
    // Awaited by its own file later: a failure meanwhile is not an unhandled rejection.
    run.catch(() => {});
    runs.set(s, run);
  }
  return runs.get(name)!;
}

function describeFinding(f: Finding): string {
  return `[${f.checkId} · ${f.clause}] ${f.message}${f.exchanges[0] ? `\n  ${f.exchanges[0].curl}` : ''}`;
}

export function defineConformanceSuite(name: SuiteName): void {
  const provided = inject('petstore');
  if (!provided)
    throw new Error('no configuration provided: the conformance suites are run by `petstore-conformance run`');
  const base = workerSettings(provided);
  // HOOK (issue 22): the run's progress (suites, requests, defects so far, waits) goes to the CLI (progress-feed.ts).
  const feed = base.guard ? sharedProgressFeed(base.guard, provided.limits.maxRequests) : undefined;
  const settings: RunSettings = {
    ...base,
    ...(feed && { onWait: feed.wait, onRecord: feed.found }),
    pacer: sharedPacer(feed?.wait ?? (() => {})),
    // The rate-limit and quota suites run alone and measure with bursts of their own: no lanes for them.
    ...(sideBySide(name) && { lanes: sharedLanes(provided.concurrency) }),
  };
  const def = suiteDefinition(name);
  let result: Omit<SuiteResult, 'ctx'> | undefined;

  describe(def.title, () => {
    // biome-ignore lint/correctness/noEmptyPattern: vitest parses the first argument as fixtures (it must be an object pattern); the suite is the second
    beforeAll(async ({}, suite) => {
      // A suite's exchanges travel as artifacts of a test of the file that started its run (the reporter only reads
      // the suite name they carry): suites started beside this one stream through this file's test too.
      const first = suite.tasks.find((t) => t.type === 'test');
      const streamFor = (s: SuiteName): ExchangeStream | undefined =>
        provided.recordExchanges && first ? ExchangeStream.toReporter(first, s) : undefined;
      const { ctx: _ctx, ...r } = await suiteRun(name, provided, settings, streamFor, feed);
      result = r;
    }, suiteTimeoutMs(provided.limits.deadline));

    test(`${name}: cases executed for every operation`, ({ task }) => {
      const r = result!;
      const meta: SuiteMeta = {
        suite: name,
        stats: r.stats,
        occurrences: r.occurrences,
        exchanges: r.exchanges,
        durationMs: r.durationMs,
        aborted: r.aborted,
        seed: settings.seed,
        observations: r.findings.filter((f) => f.level === 'observation'),
        rateLimits: r.rateLimits,
        stopped: r.stopped,
        guard: r.guard,
      };
      task.meta.suite = meta;
      expect(r.aborted, r.aborted?.message).toBeNull();
      // A suite the run's limits stopped reports what it covered; the report says what the limit left out.
      if (r.stopped) return;
      for (const op of def.operations) {
        expect(
          r.stats[op]?.cases ?? 0,
          `no case executed for ${op}: a run that tests nothing must not pass`,
        ).toBeGreaterThan(0);
      }
    });

    // One test per (operation, check) for every operation: a suite about one operation still sends others (createPet
    // fetches and lists what it made), and their findings must reach the report. Findings with no operation go to
    // the suite's first operation.
    for (const op of ALL_OPERATIONS) {
      for (const check of suiteChecks(def)) {
        if (check.level === 'observation') continue;
        test(`${op} › ${check.id} [${check.clause}]`, ({ task }) => {
          const mine = result!.findings.filter(
            (f) => f.checkId === check.id && (f.operation ?? def.operations[0]) === op,
          );
          task.meta.findings = mine;
          const failing = mine.filter((f) => failsRun(f.level, settings.strict));
          expect(failing.map(describeFinding), `${check.title}`).toEqual([]);
        });
      }
    }
  });
}
