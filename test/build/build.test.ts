// The build that `petstore-conformance` runs (bin/build.js → dist/): never stale, and faithful to its sources.
import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, test } from 'vitest';
import { readYamlData } from '../../spec/yaml-data.js';
import { schedule } from '../../runner/run.js';
import { tempDir } from '../support/temp-dir.js';

const repo = resolve(import.meta.dirname, '../..');

/** A checkout with only what bin/build.js --check looks at: the script, tsconfig.json, a source, a stamp. */
function fixture(): { dir: string; check: () => { status: number | null; stderr: string } } {
  const dir = tempDir('psc-build-');
  mkdirSync(join(dir, 'bin'));
  cpSync(join(repo, 'bin/build.js'), join(dir, 'bin/build.js'));
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(dir, 'tsconfig.json'), '{}\n');
  mkdirSync(join(dir, 'spec'));
  writeFileSync(join(dir, 'spec/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'spec/a.yaml'), 'a: 1\n');
  mkdirSync(join(dir, 'dist'));
  const check = () => {
    const r = spawnSync(process.execPath, [join(dir, 'bin/build.js'), '--check'], { encoding: 'utf8' });
    return { status: r.status, stderr: r.stderr };
  };
  return { dir, check };
}

const at = (dir: string, rel: string, seconds: number) => utimesSync(join(dir, rel), seconds, seconds);

describe('bin/build.js --check', () => {
  test('a build with no stamp (never completed) is stale', () => {
    const { check } = fixture();
    expect(check()).toMatchObject({ status: 1, stderr: expect.stringMatching(/no complete build/) });
  });

  test('the stamp newer than every source is current; any source newer than it (TypeScript or YAML) is named', () => {
    const { dir, check } = fixture();
    writeFileSync(join(dir, 'dist/.build-stamp'), 'x\n');
    for (const f of ['package.json', 'tsconfig.json', 'bin/build.js', 'spec/a.ts', 'spec/a.yaml']) at(dir, f, 1_000);
    at(dir, 'dist/.build-stamp', 2_000);
    expect(check().status).toBe(0);
    at(dir, 'spec/a.ts', 3_000);
    expect(check()).toMatchObject({ status: 1, stderr: expect.stringMatching(/older than spec\/a\.ts/) });
    at(dir, 'spec/a.ts', 1_000);
    at(dir, 'spec/a.yaml', 3_000);
    expect(check()).toMatchObject({ status: 1, stderr: expect.stringMatching(/older than spec\/a\.yaml/) });
  });
});

describe('bin/petstore-conformance.js runs the build', () => {
  /** The fixture with the command and a stand-in build whose main() says it ran. */
  function command() {
    const f = fixture();
    cpSync(join(repo, 'bin/petstore-conformance.js'), join(f.dir, 'bin/petstore-conformance.js'));
    const run = () =>
      spawnSync(process.execPath, [join(f.dir, 'bin/petstore-conformance.js'), 'x'], { encoding: 'utf8' });
    const writeBuild = () => {
      mkdirSync(join(f.dir, 'dist/cli'), { recursive: true });
      writeFileSync(
        join(f.dir, 'dist/cli/main.js'),
        'export async function main(a) { console.log("ran " + a); return 0; }\n',
      );
      writeFileSync(join(f.dir, 'dist/.build-stamp'), 'x\n');
    };
    return { ...f, run, writeBuild };
  }

  test('with no build, it says how to make one and exits 2', () => {
    const r = command().run();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/the build is missing \(dist\/\): run `npm run build`/);
  });

  test('with a dependency missing, it names it, says to run npm ci and exits 2', () => {
    const { dir, run, writeBuild } = command();
    writeBuild();
    writeFileSync(
      join(dir, 'dist/cli/main.js'),
      'import "no-such-dependency";\nexport async function main() { return 0; }\n',
    );
    const r = run();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Cannot find package 'no-such-dependency'.*: run `npm ci`/);
    expect(r.stderr).not.toMatch(/build is missing/);
  });

  test('it runs the build; a build older than a source runs with a note naming that source', () => {
    const { dir, run, writeBuild } = command();
    writeBuild();
    for (const f of ['package.json', 'tsconfig.json', 'bin/build.js', 'spec/a.ts', 'spec/a.yaml']) at(dir, f, 1_000);
    at(dir, 'dist/.build-stamp', 2_000);
    const fresh = run();
    expect([fresh.status, fresh.stdout, fresh.stderr]).toEqual([0, 'ran x\n', '']);
    at(dir, 'spec/a.ts', 3_000);
    const stale = run();
    expect(stale.stdout).toBe('ran x\n');
    expect(stale.stderr).toMatch(/note: dist\/ is older than spec\/a\.ts: run `npm run build`/);
  });

  test('installed from a package (dist/ and no sources to build from), it runs with no note', () => {
    const { dir, run, writeBuild } = command();
    writeBuild();
    rmSync(join(dir, 'tsconfig.json'));
    rmSync(join(dir, 'spec'), { recursive: true });
    at(dir, 'package.json', 3_000);
    at(dir, 'dist/.build-stamp', 1_000);
    const r = run();
    expect([r.status, r.stderr]).toEqual([0, '']);
  });
});

test('the package carries dist/ as plain files, without the build of the tests and the bench', () => {
  // --ignore-scripts: list what the current build would ship, without building again under the other tests.
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  for (const needed of [
    'bin/petstore-conformance.js',
    'bin/build.js',
    'dist/cli/main.js',
    'dist/package.json',
    'dist/spec/petstore.openapi.yaml',
    'dist/spec/petstore.openapi.json',
    'dist/reports/report.schema.json',
  ])
    expect(files).toContain(needed);
  expect(files.filter((f) => /^dist\/(test|bench)\//.test(f) || /\.ts$/.test(f))).toEqual([]);
  expect(lstatSync(join(repo, 'dist/spec/petstore.openapi.yaml')).isSymbolicLink()).toBe(false);
});

describe('the spec YAML as data', () => {
  test('the JSON beside a YAML is read only when it is not older than the YAML', () => {
    const dir = tempDir('psc-yaml-');
    writeFileSync(join(dir, 'd.yaml'), 'from: yaml\n');
    writeFileSync(join(dir, 'd.json'), '{"from":"json"}');
    const url = new URL(`file://${join(dir, 'd.yaml')}`);
    at(dir, 'd.yaml', 1_000);
    at(dir, 'd.json', 2_000);
    expect(readYamlData(url)).toEqual({ from: 'json' });
    at(dir, 'd.yaml', 3_000);
    expect(readYamlData(url)).toEqual({ from: 'yaml' });
  });

  test('the build writes each spec YAML as JSON with the same data', () => {
    for (const name of ['petstore.openapi', 'clauses']) {
      const yaml = parse(readFileSync(join(repo, `spec/${name}.yaml`), 'utf8'));
      expect(JSON.parse(readFileSync(join(repo, `dist/spec/${name}.json`), 'utf8')), name).toEqual(yaml);
    }
  });
});

test('the suites run in the fixed order, whatever the order they were asked for', () => {
  const { sideBySide, alone } = schedule([
    'rate-limit',
    'robustness',
    'stateful',
    'auth',
    'getPet',
    'listPets',
    'createPet',
  ]);
  expect([...sideBySide, ...alone]).toEqual([
    'auth',
    'listPets',
    'createPet',
    'getPet',
    'stateful',
    'robustness',
    'rate-limit',
  ]);
});
