// The project's own tests (npm test). The conformance suites in suites/ are run by the CLI with their own config.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The command the tests spawn (bin/ → dist/) is never older than the sources.
    globalSetup: ['./test/support/fresh-build.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/closing-line.ts'],
  },
});
