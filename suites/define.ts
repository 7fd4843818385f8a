/**
 * A conformance suite as vitest tests, thin over runner/: the scenario runs once in beforeAll, then one test per
 * (operation, check) passes or fails on that check's findings, which travel to reporters as data in task.meta.
 * The target, keys, seed and runs come from the configuration (the CLI sets them for the workers).
 */
import { beforeAll, describe, expect, test } from 'vitest';
import './meta.js';
import { contract } from '../spec/contract.js';
import { functionalKey, loadConfig, type SuiteName } from '../config/config.js';
import type { Finding } from '../checks/check.js';
import { runSuite, suiteChecks, suiteDefinition, type SuiteResult } from '../runner/suites.js';
import type { SuiteMeta } from './meta.js';
import { appendHarPart } from '../reports/har.js';

const SUITE_TIMEOUT_MS = 60 * 60 * 1000;
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

function describeFinding(f: Finding): string {
  return `[${f.checkId} · ${f.clause}] ${f.message}${f.exchanges[0] ? `\n  ${f.exchanges[0].curl}` : ''}`;
}

export function defineConformanceSuite(name: SuiteName): void {
  const config = loadConfig();
  const def = suiteDefinition(name);
  let result: Omit<SuiteResult, 'ctx'> | undefined;

  describe(def.title, () => {
    beforeAll(async () => {
      const key = functionalKey(config);
      if (!config.target || !key) throw new Error('no target or key configured for the conformance suites');
      const { ctx, ...r } = await runSuite(name, {
        target: config.target,
        keys: config.keys,
        key,
        seed: config.seed,
        runs: config.runs,
        strict: config.strict,
        onWait: announceWait,
        windowSeconds: config.rateWindowSeconds,
        transport: config.transport,
      });
      result = r;
      if (config.harFile) appendHarPart(`${config.harFile}.${name}.part`, ctx.exchanges);
    }, SUITE_TIMEOUT_MS);

    test(`${name}: cases executed for every operation`, ({ task }) => {
      const r = result!;
      const meta: SuiteMeta = {
        suite: name,
        stats: r.stats,
        occurrences: r.occurrences,
        exchanges: r.exchanges,
        durationMs: r.durationMs,
        aborted: r.aborted,
        seed: config.seed,
        observations: r.findings.filter((f) => f.level === 'observation'),
        rateLimits: r.rateLimits,
      };
      task.meta.suite = meta;
      expect(r.aborted, r.aborted?.message).toBeNull();
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
          const failing = mine.filter((f) => f.level === 'violation' || (config.strict && f.level === 'warning'));
          expect(failing.map(describeFinding), `${check.title}`).toEqual([]);
        });
      }
    }
  });
}
