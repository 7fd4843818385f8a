/**
 * A conformance suite as vitest tests, thin over runner/: the scenario runs once in beforeAll, then one test per
 * (operation, check) passes or fails on that check's findings, which travel to reporters as data in task.meta.
 * The target, keys, seed and runs come from the CLI through vitest's `inject`. Suites write no files: with --har,
 * exchanges travel to the reporter in batches as they happen (suites/meta.ts), and it appends them to the HAR.
 */
import { beforeAll, describe, expect, inject, test } from 'vitest';
import type { Finding } from '../checks/check.js';
import type { SuiteName } from '../config/config.js';
import { runSuite, type SuiteResult, suiteChecks, suiteDefinition } from '../runner/suites.js';
import { contract } from '../spec/contract.js';
import { ExchangeStream, type SuiteMeta } from './meta.js';
import { workerSettings } from './worker-config.js';

/** Slack past the run's deadline for a suite to finish its last request and hand its findings over. */
const DEADLINE_GRACE_MS = 60_000;
const ALL_OPERATIONS = [...contract.operations.keys()];

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

/** The scenario may run until the run's deadline, plus a grace to hand over; without a deadline, an hour. */
function suiteTimeoutMs(deadline: number | null): number {
  return deadline === null ? 60 * 60 * 1000 : Math.max(1_000, deadline - Date.now() + DEADLINE_GRACE_MS);
}

function describeFinding(f: Finding): string {
  return `[${f.checkId} · ${f.clause}] ${f.message}${f.exchanges[0] ? `\n  ${f.exchanges[0].curl}` : ''}`;
}

export function defineConformanceSuite(name: SuiteName): void {
  const provided = inject('petstore');
  if (!provided)
    throw new Error('no configuration provided: the conformance suites are run by `petstore-conformance run`');
  const settings = workerSettings(provided);
  const def = suiteDefinition(name);
  let result: Omit<SuiteResult, 'ctx'> | undefined;

  describe(def.title, () => {
    // biome-ignore lint/correctness/noEmptyPattern: vitest parses the first argument as fixtures (it must be an object pattern); the suite is the second
    beforeAll(async ({}, suite) => {
      const first = suite.tasks.find((t) => t.type === 'test');
      const stream = provided.recordExchanges && first ? ExchangeStream.toReporter(first, name) : undefined;
      try {
        const { ctx: _ctx, ...r } = await runSuite(name, {
          ...settings,
          onWait: announceWait,
          ...(stream && { exchangeSink: stream }),
        });
        result = r;
      } finally {
        await stream?.close();
      }
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
          const failing = mine.filter((f) => f.level === 'violation' || (settings.strict && f.level === 'warning'));
          expect(failing.map(describeFinding), `${check.title}`).toEqual([]);
        });
      }
    }
  });
}
