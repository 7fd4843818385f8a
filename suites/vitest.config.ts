// Config of the conformance suites, used by `petstore-conformance run` (not by npm test).
import { defineConfig } from 'vitest/config';
import SuiteSequencer from './sequencer.js';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['suites/**/*.suite.ts'],
    pool: 'threads',
    // One worker, files in order: the suites share the target and its keys (see sequencer.ts).
    fileParallelism: false,
    isolate: false,
    sequence: { sequencer: SuiteSequencer },
    testTimeout: 60_000,
    hookTimeout: 60 * 60 * 1000,
  },
});
