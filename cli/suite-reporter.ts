/**
 * The vitest reporter through which the suites' results come back to the CLI: each module's outcome (task.meta of its
 * tests), harness errors, and the exchanges for the HAR, all as data. The CLI reads what it collected after the run;
 * it never reaches into vitest's state.
 */
import type { Reporter, SerializedError, TestModule } from 'vitest/node';
import type { Finding } from '../checks/check.js';
import type { SuiteOutcome } from '../reports/conformance-report.js';
import type { ExchangeData, SuiteMeta } from '../suites/meta.js';

export class SuiteReporter implements Reporter {
  readonly outcomes: SuiteOutcome[] = [];
  readonly errors: string[] = [];
  readonly exchanges: ExchangeData[] = [];
  private ended = false;

  constructor(private readonly root: string) {}

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
      if (m.exchanges) this.exchanges.push(...m.exchanges);
      if (m.findings) findings.push(...m.findings);
      const r = test.result();
      if (r.state === 'failed') {
        failedTests++;
        if (!m.findings && !m.suite) this.errors.push(`${test.fullName}: ${r.errors?.[0]?.message ?? 'failed'}`);
      }
    }
    if (meta) {
      this.outcomes.push({ meta, findings, failedTests });
      return;
    }
    const err =
      mod.errors()[0]?.message ??
      [...mod.children.allTests()].map((t) => t.result().errors?.[0]?.message).find(Boolean);
    this.errors.push(`${mod.moduleId.replace(`${this.root}/`, '')}: the suite did not run${err ? `: ${err}` : ''}`);
  }
}
