/**
 * vitest globalSetup: tests that spawn the command run the build in dist/, so it is rebuilt first whenever a source is
 * newer than it (npm test has just built it, and this finds nothing to do; a lone `npx vitest run test/...` after an
 * edit rebuilds). A build that fails stops the run rather than testing a stale command.
 */
import { spawnSync } from 'node:child_process';

export default function setup(): void {
  const r = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { stdio: 'inherit' });
  if (r.status !== 0)
    throw new Error(`the build failed (node bin/build.js exited ${r.status}): tests would run a stale command`);
}
