/**
 * The vitest reporter through which the suites' results come back to the CLI: each module's outcome (task.meta of its
 * tests) and harness errors, as data the CLI reads after the run; and, with --har, the exchanges, batch by batch as
 * the suites send them, appended to the HAR at once and forgotten. Of vitest's state it touches only those artifacts,
 * which it empties.
 */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import type { TestArtifact, UserConsoleLog } from 'vitest';
import type { Finding } from '../checks/check.js';
import type { SuiteOutcome } from '../reports/conformance-report.js';
import type { HarWriter } from '../reports/har.js';
import { EXCHANGES_ARTIFACT, type SuiteMeta } from '../suites/meta.js';
import { type ProgressSnapshot, progressOf } from '../suites/progress-feed.js';

export class SuiteReporter implements Reporter {
  readonly outcomes: SuiteOutcome[] = [];
  readonly errors: string[] = [];
  /** Exchanges that reached the HAR, per suite. */
  private readonly streamed = new Map<string, number>();
  private ended = false;
  private trendReported = false;

  /** `har`: where the exchanges go (--har); without it the suites send none. */
  constructor(
    private readonly root: string,
    private readonly har: HarWriter | null = null,
  ) {}

  /** Told of the run's progress as the worker reports it (suites/progress-feed.ts); set by the CLI. */
  onProgress: ((snap: ProgressSnapshot) => void) | null = null;

  // HOOK (issue 22): the worker's progress arrives as its console lines (vitest's reporter API).
  onUserConsoleLog(log: UserConsoleLog): void {
    // Console lines written in the same tick arrive together.
    for (const line of log.content.split('\n')) {
      const snap = progressOf(line);
      if (snap) this.onProgress?.(snap);
    }
  }

  onTestCaseArtifactRecord(_test: TestCase, artifact: TestArtifact): void {
    if (artifact.type !== EXCHANGES_ARTIFACT) return;
    this.har?.append(artifact.exchanges);
    this.streamed.set(artifact.suite, (this.streamed.get(artifact.suite) ?? 0) + artifact.exchanges.length);
    // vitest keeps the artifact on the test and returns it to the worker: written out, it need carry nothing more.
    artifact.exchanges = [];
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    for (const mod of modules) this.collect(mod);
    for (const e of unhandled) this.errors.push(`unhandled: ${e?.message ?? String(e)}`);
    this.ended = true;
  }

  /** Whether vitest reached the end of the run (a run that never started leaves nothing to report). */
  get finished(): boolean {
    return this.ended;
  }

  private collect(mod: TestModule): void {
    let meta: SuiteMeta | undefined;
    const findings: Finding[] = [];
    let failedTests = 0;
    for (const test of mod.children.allTests()) {
      const m = test.meta();
      if (m.suite) meta = m.suite;
      if (m.findings) findings.push(...m.findings);
      const r = test.result();
      if (r.state === 'failed') {
        failedTests++;
        if (!m.findings && !m.suite) this.errors.push(`${test.fullName}: ${r.errors?.[0]?.message ?? 'failed'}`);
      }
    }
    if (meta) {
      // The guard's trend warning belongs to the run; each later suite's snapshot repeats it: report it once.
      if (meta.guard?.trend && !this.trendReported) {
        findings.push(meta.guard.trend);
        this.trendReported = true;
      }
      this.outcomes.push({ meta, findings, failedTests });
      // Every exchange the suite counted must be in the HAR: a missing batch is a harness error, never a silent gap.
      const streamed = this.streamed.get(meta.suite) ?? 0;
      if (this.har && streamed !== meta.exchanges)
        this.errors.push(`${meta.suite}: ${streamed} of its ${meta.exchanges} exchanges reached the HAR`);
      return;
    }
    // A failing beforeAll (the scenario itself) is an error of the describe block; its tests are only skipped.
    const err =
      mod.errors()[0]?.message ??
      [...mod.children.allSuites()].map((s) => s.errors()[0]?.message).find(Boolean) ??
      [...mod.children.allTests()].map((t) => t.result().errors?.[0]?.message).find(Boolean);
    this.errors.push(`${mod.moduleId.replace(`${this.root}/`, '')}: the suite did not run${err ? `: ${err}` : ''}`);
  }
}
