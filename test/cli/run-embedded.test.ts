// The README's main command, as a user runs it: the binary, no configuration, against the embedded reference server.
import { allChecks, canFail, checkById, isCheckId } from '../../checks/registry.js';
import { contract } from '../../spec/contract.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { runOptions } from '../../cli/run-command.js';
import { readJson } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';

/** The environment of a developer's machine: no PETSTORE_ variable, and no CI (which asks for --embedded). */
const developerEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PETSTORE_') && k !== 'CI'));

test('`petstore-conformance run` with no configuration passes against the embedded server, with reports', () => {
  const dir = tempDir('psc-run-');
  const env = developerEnv();
  const r = spawnSync(
    process.execPath,
    [
      'bin/petstore-conformance.js',
      'run',
      '--runs',
      '25',
      '--seed',
      '9',
      '--json',
      join(dir, 'r.json'),
      '--junit',
      join(dir, 'j.xml'),
    ],
    {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  expect(r.status, r.stderr + r.stdout).toBe(0);
  expect(r.stdout).toMatch(/Result: CONFORMANT/);
  expect(r.stdout).toMatch(/Rate limits, per plan key/);
  const report = readJson<ConformanceReport>(join(dir, 'r.json'));
  expect(report.verdict).toBe('conformant');
  expect(report.target.embedded).toBe(true);
  expect(report.suites.map((s) => s.name).sort()).toEqual([
    'auth',
    'createPet',
    'getPet',
    'listPets',
    // The preflight's answer, judged like every other (cli/preflight-judged.ts).
    'preflight',
    'rate-limit',
    'robustness',
    'stateful',
  ]);
  expect(report.notMeasured).toEqual([]);
  for (const op of ['listPets', 'createPet', 'getPet']) expect(report.operations[op]?.cases ?? 0).toBeGreaterThan(0);
  const junit = readFileSync(join(dir, 'j.xml'), 'utf8');
  expect(junit).toMatch(/<testsuites [^>]*failures="0"/);
  // A conformant run: one test case per check that can fail (passing where it applied and passed, skipped saying why
  // otherwise), none per defect, and one per limit never measured by design (the embedded Enterprise key's).
  const failable = allChecks.filter(canFail).length;
  expect(report.notMeasuredByDesign).toEqual([expect.stringMatching(/^rate-limit: the enterprise key's limits/)]);
  expect((junit.match(/<testcase /g) ?? []).length).toBe(failable + report.defects.length + 1);
  // The rate-limit suite's bursts met their 429s: what is said of 429 answers passed on them.
  expect(junit).toMatch(/<testcase classname="petstore-conformance.checks" name="retry-after-valid \[[^\]]+\]"\/>/);
  expect(report.evidence.cells.find((c) => c.clause === '7-429-retry-after' && c.operation === 'listPets')?.state).toBe(
    'proven',
  );
  // No cell a check could never judge: none for the Pets schema where no operation documents Pets, none for the
  // deprecation headers of an operation not deprecated (both read from the contract), none for a robustness case on an
  // operation the catalogue never sends it to.
  const cell = (clause: string, op: string) =>
    report.evidence.cells.find((c) => c.clause === clause && c.operation === op);
  const documents = (op: string, schema: string) =>
    [...contract.operations.get(op as 'listPets')!.responses.values()].some(
      (r) => JSON.stringify(r.schema) === JSON.stringify(contract.schemas[schema]),
    );
  const never: [string, string][] = [];
  for (const op of contract.operations.keys()) {
    if (!documents(op, 'Pets')) never.push(['2-pets-array', op]);
    if (!documents(op, 'Pet')) never.push(['2-pet-schema', op]);
    if (!contract.operations.get(op)!.deprecated) never.push(['gap-9-deprecation-headers', op]);
  }
  expect(never.length).toBeGreaterThan(0);
  for (const [clause, op] of never) expect(cell(clause, op), `${clause} on ${op}`).toBeUndefined();
  const robustness: [string, string][] = [
    ['gap-4-parameter-shapes', 'createPet'],
    ['gap-5-auth-order', 'listPets'],
    ['4.2-create-echo', 'getPet'],
  ];
  for (const [clause, op] of robustness) expect(cell(clause, op), `${clause} on ${op}`).toBeUndefined();
  // What was not exercised says what its checks judge, in words, and names only checks able to judge it there.
  for (const c of report.evidence.cells.filter((x) => x.state === 'not-exercised')) {
    expect(c.why, `${c.clause} on ${c.operation}`).not.toMatch(/every piece of evidence/);
    for (const id of (c.why ?? '').match(/[a-z0-9-]+(?= \()/g) ?? [])
      if (isCheckId(id))
        expect(checkById(id).operationsFor(c.clause), `${id} on ${c.operation}`).toContain(c.operation);
  }
}, 130_000);

test('in CI the embedded server runs only when asked for: no target exits 2 naming --target and --embedded', () => {
  const dir = tempDir('psc-run-ci-');
  const env = { ...developerEnv(), CI: 'true' };
  const json = join(dir, 'r.json');
  const refused = spawnSync(process.execPath, ['bin/petstore-conformance.js', 'run', '--json', json], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(refused.status, refused.stderr).toBe(2);
  expect(refused.stderr).toMatch(
    /no target: in CI .*--target URL \(or PETSTORE_TARGET\), or pass --embedded .*\[PSC_CONFIG\]/,
  );
  // Nothing ran, and the report says why.
  expect(refused.stdout).not.toMatch(/embedded reference server at/);
  expect(readJson<ConformanceReport>(json)).toMatchObject({ verdict: 'error', failure: { code: 'PSC_CONFIG' } });
  const asked = spawnSync(
    process.execPath,
    ['bin/petstore-conformance.js', 'run', '--embedded', '--suite', 'auth', '--runs', '3', '--json', json],
    { env, encoding: 'utf8', timeout: 120_000 },
  );
  expect(asked.status, asked.stderr).toBe(0);
  expect(readJson<ConformanceReport>(json)).toMatchObject({ verdict: 'conformant', target: { embedded: true } });
}, 130_000);

test('a bad flag exits 2 naming it; --help lists the commands', () => {
  const bad = spawnSync(process.execPath, ['bin/petstore-conformance.js', 'run', '--no-such-flag'], {
    encoding: 'utf8',
  });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/--no-such-flag/);
  const help = spawnSync(process.execPath, ['bin/petstore-conformance.js', '--help'], { encoding: 'utf8' });
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/petstore-conformance run/);
  // Every flag `run` takes is in its usage (read from the options table, so a new flag cannot be forgotten there),
  // in run's own lines: other commands share some flags.
  const runUsage = help.stdout.slice(
    help.stdout.indexOf('petstore-conformance run'),
    help.stdout.indexOf('petstore-conformance serve'),
  );
  for (const flag of Object.keys(runOptions)) expect(runUsage, `--${flag}`).toMatch(new RegExp(`\\[--${flag}[ \\]]`));
});
