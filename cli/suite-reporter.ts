/**
 * The vitest reporter through which the run's outcome comes back to the command (runner/outcome.ts, in the task.meta
 * of suites/run.suite.ts's test), with the harness errors vitest saw; and, with --har, the exchanges, batch by batch as
 * the suites send them, appended to the HAR at once and forgotten; and the run's progress, which the worker writes as
 * marked console lines (suites/progress-feed.ts). Of vitest's state it touches only those artifacts, which it empties.
 */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import type { TestArtifact, UserConsoleLog } from 'vitest';
import type { HarWriter } from '../reports/har.js';
import type { RunOutcome } from '../runner/outcome.js';
import { EXCHANGES_ARTIFACT } from '../suites/meta.js';
import { type ProgressSnapshot, progressOf } from '../suites/progress-feed.js';

export class SuiteReporter implements Reporter {
  outcome: RunOutcome | null = null;
  readonly errors: string[] = [];
  /** Exchanges that reached the HAR, per suite. */
  private readonly streamed = new Map<string, number>();
  private ended = false;

  /**
   * `har`: where the exchanges go (--har); without it the suites send none. `progress`: told of the run's progress as
   * the worker reports it (the command draws it: cli/progress.ts).
   */
  constructor(
    private readonly root: string,
    private readonly har: HarWriter | null = null,
    private readonly progress: (snap: ProgressSnapshot) => void = () => {},
  ) {}

  /** The worker's progress arrives as its console lines (vitest's reporter API). */
  onUserConsoleLog(log: UserConsoleLog): void {
    // Console lines written in the same tick arrive together.
    for (const line of log.content.split('\n')) {
      const snap = progressOf(line);
      if (snap) this.progress(snap);
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
    for (const test of mod.children.allTests()) {
      const run = test.meta().run;
      if (!run) continue;
      this.outcome = run;
      this.errors.push(...run.errors);
      // Every exchange a suite counted must be in the HAR: a missing batch is a harness error, never a silent gap.
      if (this.har)
        for (const { meta } of run.outcomes) {
          const streamed = this.streamed.get(meta.suite) ?? 0;
          if (streamed !== meta.exchanges)
            this.errors.push(`${meta.suite}: ${streamed} of its ${meta.exchanges} exchanges reached the HAR`);
        }
      return;
    }
    // The run threw before handing over its outcome.
    const err =
      mod.errors()[0]?.message ??
      [...mod.children.allTests()].map((t) => t.result().errors?.[0]?.message).find(Boolean);
    this.errors.push(`${mod.moduleId.replace(`${this.root}/`, '')}: the run did not finish${err ? `: ${err}` : ''}`);
  }
}
