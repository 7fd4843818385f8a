// Config of the conformance suites, used by `petstore-conformance run` (not by npm test).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['suites/**/*.suite.ts'],
    pool: 'threads',
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60 * 60 * 1000,
  },
});
