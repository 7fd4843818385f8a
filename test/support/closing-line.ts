// Prints the plain closing line "N passed, N failed" (", N skipped") that CI reads, after vitest's own summary.
import type { Reporter, TestModule } from 'vitest/node';

export default class ClosingLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      const failedBefore = failed;
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
      // A file that failed outside its tests (it did not load, or a hook failed: a psc-* folder left behind, see
      // temp-dirs-setup.ts) counts once, so the line never reads "0 failed" for a failed run.
      if (m.state() === 'failed' && failed === failedBefore) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
