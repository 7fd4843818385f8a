#!/usr/bin/env node
/**
 * The build Node runs directly (issue 12: no TypeScript loader at start-up). `tsc` type-checks and emits every .ts file
 * to dist/ in the same pass; the files the code reads beside itself (the spec's YAML, the report schema,
 * package.json) are copied into dist/ (each YAML also as JSON), so that dist/ runs on its own in a package; they are
 * sources like the .ts files, so a change to one makes the build stale. A stamp written last marks a complete build. `npm ci` builds through `prepare`, `npm test` and `npm run bench` build first, and the project's tests rebuild
 * when a source is newer than the stamp (vitest.config.ts), so they never run the CLI from a stale build.
 *
 *   node bin/build.js             build (exit code of tsc when it reports errors)
 *   node bin/build.js --if-stale  build only if a source is newer than the last complete build
 *   node bin/build.js --check     exit 1 and name the newest source if dist/ is older than the sources
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const dist = join(root, 'dist');
const STAMP = '.build-stamp';
/** Directories whose sources are compiled (tsconfig.json includes every .ts but these hold what dist/ runs). */
const SOURCE_DIRS = [
  'bench',
  'checks',
  'cli',
  'config',
  'generators',
  'http',
  'load',
  'reference',
  'reports',
  'runner',
  'spec',
  'suites',
];
/** Files outside those directories that the build depends on or that code reads relative to itself. */
const ROOT_FILES = ['package.json', 'tsconfig.json', 'bin/build.js'];
const ASSET = /\.(ya?ml|json)$/;
/** Files the tool writes beside its sources (ignored by git): output, never input of the build. */
const WRITTEN = new Set(['bench/results.json', 'reports/history.json']);

/** Every source file of the build, as paths relative to `at`. Reports written under reports/ are not sources. */
function sources(at = root) {
  const out = ROOT_FILES.filter((f) => existsSync(join(at, f)));
  const walk = (dir) => {
    if (!existsSync(join(at, dir))) return;
    for (const e of readdirSync(join(at, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) {
        if (!(dir === 'reports' && /^\d/.test(e.name))) walk(rel);
      } else if ((e.name.endsWith('.ts') || ASSET.test(e.name)) && !WRITTEN.has(rel)) out.push(rel);
    }
  };
  for (const d of SOURCE_DIRS) walk(d);
  return out;
}

/** The newest source newer than the stamp, or null when `at`/dist/ is complete and current. */
export function staleSource(at = root) {
  // An installed package ships dist/ and no sources (no tsconfig.json): there is nothing it could be older than.
  if (!existsSync(join(at, 'tsconfig.json'))) return null;
  const stamp = join(at, 'dist', STAMP);
  if (!existsSync(stamp)) return 'dist/ (no complete build)';
  let newest = null;
  let newestMs = statSync(stamp).mtimeMs;
  for (const rel of sources(at)) {
    const ms = statSync(join(at, rel)).mtimeMs;
    if (ms > newestMs) {
      newest = rel;
      newestMs = ms;
    }
  }
  return newest;
}

/** Builds dist/ from scratch (a removed source leaves no module behind); returns tsc's exit code. */
export async function build() {
  const { parse } = await import('yaml');
  rmSync(dist, { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root], {
    cwd: root,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) return tsc.status ?? 1;
  for (const rel of sources()) {
    if (rel.endsWith('.ts') || rel === 'tsconfig.json' || rel.startsWith('bin/')) continue;
    // Copied, not linked: a package tarball leaves symbolic links out, and dist/ must run on its own once installed.
    const copy = join(dist, rel);
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(join(root, rel), copy);
    // The YAML as JSON too (spec/yaml-data.ts reads it when it is not older than the YAML): no YAML parser at start.
    if (/\.ya?ml$/.test(rel)) {
      const data = parse(readFileSync(join(root, rel), 'utf8'));
      writeFileSync(copy.replace(/\.ya?ml$/, '.json'), JSON.stringify(data));
    }
  }
  writeFileSync(join(dist, STAMP), `${new Date().toISOString()}\n`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  const stale = mode === undefined ? 'a build was asked for' : staleSource();
  if (mode === '--check') {
    if (stale) console.error(`dist/ is older than ${stale}: run npm run build`);
    process.exitCode = stale ? 1 : 0;
  } else if (mode === undefined || mode === '--if-stale') {
    if (stale && mode) console.error(`building dist/ (${stale} changed since the last build)`);
    process.exitCode = stale ? await build() : 0;
  } else {
    console.error(`usage: node bin/build.js [--if-stale | --check]`);
    process.exitCode = 2;
  }
}
