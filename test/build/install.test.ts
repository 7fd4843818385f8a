/**
 * A pinned install holds the runtime only (issue 29). The release tarball (bin/pack.js: `npm pack` of the build, with
 * the lock file inside as npm-shrinkwrap.json), installed with --omit=dev into a fresh folder, runs: `--version`,
 * `--help` and a short real run against a reference server, with no development dependency beside it (no browser, no
 * linter, no schema bundles, no TypeScript) and within 100 MB. The action's install step, run as the runner runs it in
 * a checkout of a release tag (the build committed beside the sources), installs the same runtime and the command runs.
 * npm takes the packages from its cache, which `npm ci` filled (--prefer-offline: the registry only for what it lacks).
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { readAction } from '../ci/action-steps.js';
import { distinctiveKeys, tempEnvFile } from '../cli/support.js';
import { tempDir } from '../support/temp-dir.js';

const repo = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const run = promisify(execFile);
const MB = 2 ** 20;

/** The environment of a command the tests start: npm from its cache, no key or target of the test's own. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false' };
  for (const k of Object.keys(env)) if (k.startsWith('PETSTORE_') || k === 'CI') delete env[k];
  return env;
}

/** Bytes of every file under `dir` (symbolic links as links). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    total += e.isDirectory() ? bytesUnder(path) : lstatSync(path).size;
  }
  return total;
}

/**
 * Development dependencies that are also optional peers of runtime ones (vite's: TypeScript types, tsx, esbuild): the
 * lock file marks them devOptional, and `npm ci --omit=dev` keeps them. Nothing imports them at run time.
 */
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { devOptional?: boolean }>;
};
const devOptional = Object.keys(manifest.devDependencies).filter(
  (n) => lock.packages[`node_modules/${n}`]?.devOptional,
);

/** The development dependencies present in `modules` (but those `allowed`), and the runtime ones missing from it. */
function misplaced(modules: string, allowed: readonly string[] = []) {
  return {
    dev: Object.keys(manifest.devDependencies).filter((n) => !allowed.includes(n) && existsSync(join(modules, n))),
    missing: Object.keys(manifest.dependencies).filter((name) => !existsSync(join(modules, name, 'package.json'))),
  };
}

/** The installed command answers --version and --help, and runs the getPet suite against a reference server. */
async function commandRuns(bin: string, server: ReferenceServer, envFile: string) {
  const opts = { env: cleanEnv(), cwd: tempDir('psc-install-cwd-') };
  const version = await run(process.execPath, [bin, '--version'], opts);
  expect(version.stdout.trim()).toContain(manifest.version);
  const help = await run(process.execPath, [bin, 'run', '--help'], opts);
  expect(help.stdout).toMatch(/--target URL/);
  const args = [
    'run',
    '--target',
    server.url,
    '--env-file',
    envFile,
    '--suite',
    'getPet',
    '--runs',
    '5',
    '--seed',
    '3',
  ];
  const r = await run(process.execPath, [bin, ...args], opts).catch(
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(r.stdout, r.stdout).toMatch(/CONFORMANT/);
  expect('code' in r ? r.code : 0).toBe(0);
  // A build the release made from these very sources: no note that it is older than one of them.
  expect(r.stderr).not.toMatch(/older than/);
}

describe('a runtime-only install', () => {
  const keys = distinctiveKeys('install');
  let server: ReferenceServer;
  let envFile: string;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
    envFile = tempEnvFile('psc-install-env-', keys);
  });
  afterAll(async () => server?.close());

  it('the release tarball, installed with --omit=dev into a fresh folder: the command runs, runtime only, ≤ 100 MB', async () => {
    // As the release workflow makes it.
    const packed = await run(process.execPath, [join(repo, 'bin/pack.js'), tempDir('psc-install-pack-')], {
      cwd: repo,
    });
    const tarball = packed.stdout.trim();
    const listing = (await run('tar', ['-tzf', tarball])).stdout.split('\n');
    expect(listing).toContain('package/npm-shrinkwrap.json');
    expect(listing).toContain('package/dist/cli/main.js');
    // The build only: no TypeScript source, no test or bench build.
    expect(listing.filter((f) => /\.ts$|^package\/dist\/(test|bench)\//.test(f))).toEqual([]);

    const prefix = tempDir('psc-install-app-');
    // The README's pinned install, the tarball from a folder instead of the release page.
    const flags = ['--omit=dev', '--ignore-scripts', '--no-save', '--no-audit', '--no-fund'];
    await run('npm', ['install', '--prefix', prefix, ...flags, tarball], {
      env: cleanEnv(),
      cwd: prefix,
    });
    const modules = join(prefix, 'node_modules');
    expect(misplaced(modules)).toEqual({ dev: [], missing: [] });
    // The package's `prepare` (npm runs it for some installs of a package, never needs it for this one): with no
    // sources beside the build it finds nothing stale, builds nothing and needs no TypeScript.
    const prepare = await run(process.execPath, [join(modules, 'petstore-conformance/bin/build.js'), '--if-stale']);
    expect(prepare.stderr).toBe('');
    expect(existsSync(join(modules, 'petstore-conformance/dist/cli/main.js'))).toBe(true);
    const size = bytesUnder(modules);
    expect(size, `${(size / MB).toFixed(1)} MB installed`).toBeLessThanOrEqual(100 * MB);
    await commandRuns(join(modules, '.bin', 'petstore-conformance'), server, envFile);
  }, 300_000);

  it("the action's install step in a release tag's checkout: the runtime dependencies only, and the command runs", async () => {
    // A release tag's tree, as examples/release.yml commits it: the sources and the build (without the tests' and the
    // bench's). Only what the install and the command read is copied; its files all get new times, as a checkout's do.
    const checkout = tempDir('psc-install-action-');
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'bin', 'dist'])
      cpSync(join(repo, f), join(checkout, f), {
        recursive: true,
        filter: (src) => !/[/\\]dist[/\\](test|bench)$/.test(src),
      });
    const step = readAction().runs.steps.find((s) => s.id === 'install')!;
    expect(step['working-directory']).toBe(`\${{ github.action_path }}`);
    // How the runner runs `shell: bash`.
    await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      env: cleanEnv(),
      cwd: checkout,
    });
    const modules = join(checkout, 'node_modules');
    expect(misplaced(modules, devOptional)).toEqual({ dev: [], missing: [] });
    // The browser, the linter and the schema bundles are never among those.
    expect(devOptional.filter((n) => /chromium|playwright|biome|kubernetes|typescript$/.test(n))).toEqual([]);
    expect(bytesUnder(modules)).toBeLessThanOrEqual(100 * MB);
    await commandRuns(join(checkout, 'bin', 'petstore-conformance.js'), server, envFile);
  }, 300_000);
});
