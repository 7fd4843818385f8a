#!/usr/bin/env node
// The petstore-conformance command: runs the build in dist/ (npm ci builds it through `prepare`; npm run build again
// after changing a source), so Node loads plain JavaScript and no TypeScript loader delays the start.
import { existsSync } from 'node:fs';
import { staleSource } from './build.js';

// Asked of the file itself: a missing dependency fails the import below too, and is not a missing build.
if (!existsSync(new URL('../dist/cli/main.js', import.meta.url))) {
  process.stderr.write('petstore-conformance: the build is missing (dist/): run `npm run build` (npm ci does it)\n');
  process.exit(2);
}
let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') throw e;
  // A dependency not installed, or a build left half-made: npm ci installs and builds (an installed package: reinstall).
  const what = String(e.message).split('\n')[0];
  process.stderr.write(
    `petstore-conformance: ${what}: run \`npm ci\` in the checkout (it installs the dependencies and builds), or reinstall the package\n`,
  );
  process.exit(2);
}
// A few milliseconds of stat calls, so that a build older than its sources never runs unannounced.
const stale = staleSource();
if (stale) process.stderr.write(`petstore-conformance: note: dist/ is older than ${stale}: run \`npm run build\`\n`);
process.exitCode = await main(process.argv.slice(2));
