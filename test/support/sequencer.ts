/**
 * The order of the project's test files: vitest's own (failed, then longest first when it has timings; largest file
 * first on a fresh clone), except that the files that mostly wait on rate-limit windows go first: the rate-limit
 * files (2 s windows, minutes in all), the budget runs with a Free key (paced at 60 a window) and the runs of every
 * default suite (test/meta/multi-fault-all-suites.test.ts). Using little CPU,
 * they overlap the CPU-bound files in the other worker instead of running last and alone.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const WAITS_ON_WINDOWS =
  /\/rate-limit\/|\/rate-limit\.test\.ts$|\/meta\/budget\.test\.ts$|\/meta\/multi-fault-all-suites\.test\.ts$/;

export default class ProjectSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waiting = (f: TestSpecification) => WAITS_ON_WINDOWS.test(f.moduleId);
    return [...sorted.filter(waiting), ...sorted.filter((f) => !waiting(f))];
  }
}
