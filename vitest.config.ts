// The project's own tests (npm test). The conformance suites in suites/ are run by the CLI (suites/vitest-options.ts).
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import ProjectSequencer from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default on 2 cores is one worker: files would run one after another although the longest of them mostly
    // wait on rate-limit windows. Two workers let the rest run meanwhile (see test/support/sequencer.ts).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: ProjectSequencer },
    // The command the tests spawn (bin/ → dist/) is never older than the sources.
    globalSetup: ['./test/support/fresh-build.ts'],
    // Each file gets a temp directory of its own and fails if it leaves a psc-* folder there (test/support/temp-dir.ts).
    setupFiles: ['./test/support/temp-dirs-setup.ts'],
    reporters: ['default', './test/support/closing-line.ts'],
    // GitHub's workflow and action parser imports its schemas as JSON modules, which Node loads only with an import
    // attribute: vite bundles it instead (test/ci/).
    deps: {
      optimizer: {
        ssr: { enabled: true, include: ['@actions/workflow-parser', '@actions/workflow-parser/actions/action-parser'] },
      },
    },
  },
});
