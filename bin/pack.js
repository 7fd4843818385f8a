#!/usr/bin/env node
/**
 * The release tarball (issue 29): `npm pack` of the build, with the lock file inside it as npm-shrinkwrap.json, so that
 * an install of the tarball (`npm install --omit=dev FILE.tgz`) takes exactly the dependency versions the release was
 * tested with, each checked against its integrity hash, and none of the development ones (npm leaves a dependency's
 * devDependencies out). The package's files are staged in a temporary folder with the lock file renamed there: the
 * checkout itself is never changed. The build must be current (`npm run build` first, as `npm test` does).
 *
 *   node bin/pack.js DIR   writes DIR/petstore-conformance-<version>.tgz and prints its path
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, staleSource } from './build.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Packs into `dir` and returns the tarball's path. */
export function pack(dir) {
  const stale = staleSource();
  if (stale) throw new Error(`dist/ is older than ${stale}: run npm run build first`);
  const out = resolve(dir);
  mkdirSync(out, { recursive: true });
  // What `npm pack` would put in the tarball (package.json's `files`), as npm itself lists it.
  const [listing] = JSON.parse(
    execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  );
  const stage = mkdtempSync(join(tmpdir(), 'psc-pack-'));
  try {
    for (const { path } of listing.files) {
      mkdirSync(dirname(join(stage, path)), { recursive: true });
      copyFileSync(join(root, path), join(stage, path));
    }
    copyFileSync(join(root, 'package-lock.json'), join(stage, 'npm-shrinkwrap.json'));
    // The build is inside: no script runs (`prepare` would look for TypeScript, a development dependency).
    const [packed] = JSON.parse(
      execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], {
        cwd: stage,
        encoding: 'utf8',
      }),
    );
    return join(out, packed.filename);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir || process.argv.length > 3) {
    console.error('usage: node bin/pack.js DIR');
    process.exitCode = 2;
  } else {
    try {
      console.log(pack(dir));
    } catch (e) {
      console.error(`petstore-conformance pack: ${e instanceof Error ? e.message : e}`);
      process.exitCode = 1;
    }
  }
}
