/**
 * Runs the suite files one after another in the order they were asked for. They share one target and, on a staging
 * target, often one key: running them side by side would let one suite's traffic disturb another's rate-limit
 * measurements, and the order keeps the rate-limit suite (which exhausts keys on purpose) last.
 */
import { SUITES } from '../config/config.js';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ORDER: readonly string[] = SUITES;

function rank(spec: TestSpecification): number {
  const name = /([\w-]+)\.suite\.[jt]s$/.exec(spec.moduleId)?.[1] ?? '';
  const i = ORDER.indexOf(name);
  return i < 0 ? ORDER.length : i;
}

export default class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
  override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    return files;
  }
}
