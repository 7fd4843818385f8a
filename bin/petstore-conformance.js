#!/usr/bin/env node
// The petstore-conformance command: runs the build in dist/ (npm ci builds it through `prepare`; npm run build again
// after changing a source), so Node loads plain JavaScript and no TypeScript loader delays the start.
import { staleSource } from './build.js';

let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes('dist')) throw e;
  process.stderr.write('petstore-conformance: the build is missing (dist/): run `npm run build` (npm ci does it)\n');
  process.exit(2);
}
// A few milliseconds of stat calls, so that a build older than its sources never runs unannounced.
const stale = staleSource();
if (stale) process.stderr.write(`petstore-conformance: note: dist/ is older than ${stale}: run \`npm run build\`\n`);
process.exitCode = await main(process.argv.slice(2));
