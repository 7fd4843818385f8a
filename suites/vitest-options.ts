/**
 * How `petstore-conformance run` runs the suite files through vitest (not used by npm test). Plain options rather than
 * a config file: vitest then loads no config (no bundling of a config file at every start), and this module, built or
 * not, is imported like any other.
 */
import type { InlineConfig } from 'vitest/node';
import SuiteSequencer from './sequencer.js';

export const suiteVitestOptions = {
  pool: 'threads',
  // One worker, files in order: the suites share the target and its keys (see sequencer.ts).
  fileParallelism: false,
  isolate: false,
  sequence: { sequencer: SuiteSequencer },
  testTimeout: 60_000,
  hookTimeout: 60 * 60 * 1000,
} satisfies InlineConfig;
