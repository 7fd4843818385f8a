/**
 * How `petstore-conformance run` runs its one suite file through vitest (not used by npm test). Plain options rather
 * than a config file: vitest then loads no config (no bundling of a config file at every start), and this module,
 * built or not, is imported like any other.
 */
import type { InlineConfig } from 'vitest/node';

export const suiteVitestOptions = {
  pool: 'threads',
  isolate: false,
} satisfies InlineConfig;
