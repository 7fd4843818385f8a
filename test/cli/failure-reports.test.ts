/**
 * Every exit writes every requested report (issue 29, item 3): a run that cannot start or go on (exit 2 or 3) still
 * leaves its JSON (verdict error or blocked, the code and the remedy), its JUnit (an error case saying why), its job
 * summary and its HTML page, as a signal's stop does. Each cause is provoked through its real path, in process.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../cli/run-command.js';
import { startReferenceServer } from '../../reference/server.js';
import { readJson } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';
import { xmlProblem } from '../support/validate.js';
import { closedPort, countingProxy, distinctiveKeys, runMain, writeEnvFile } from './support.js';

const keys = distinctiveKeys('failrep');

interface Written {
  readonly code: number;
  readonly stderr: string;
  readonly report: RunReport | null;
  readonly junit: string | null;
  readonly summary: string;
  readonly html: string | null;
}

/** `run ...argv` with every report asked for (and the job summary through the env file), and what it wrote. */
async function runWritingReports(argv: string[], env: Record<string, string> = {}, withKeys = true): Promise<Written> {
  const dir = tempDir('psc-failrep-');
  const summary = join(dir, 'summary.md');
  writeFileSync(summary, '');
  const envFile = writeEnvFile(join(dir, '.env'), withKeys ? keys : [], { GITHUB_STEP_SUMMARY: summary, ...env });
  const json = join(dir, 'out', 'r.json');
  const junit = join(dir, 'out', 'junit.xml');
  const r = await runMain([
    'run',
    ...argv,
    '--env-file',
    envFile,
    '--json',
    json,
    '--junit',
    junit,
    '--suite',
    'listPets',
    '--runs',
    '5',
  ]);
  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : null);
  return {
    code: r.code,
    stderr: r.stderr,
    report: existsSync(json) ? readJson<RunReport>(json) : null,
    junit: read(junit),
    summary: readFileSync(summary, 'utf8'),
    html: read(join(dir, 'out', 'r.html')),
  };
}

/** The JSON and JUnit of a run that could not start: valid, both naming the code, the JSON with its remedy. */
function expectFailureReports(w: Written, exit: number, code: string, why: RegExp): void {
  expect(w.code, w.stderr).toBe(exit);
  expect(w.stderr).toContain(`[${code}]`);
  const report = w.report!;
  expect(report, 'no JSON report').not.toBeNull();
  expect(report.verdict).toBe(exit === 2 ? 'error' : 'blocked');
  expect(report.exitCode).toBe(exit);
  expect(report.failure?.code).toBe(code);
  expect(report.failure?.exitCode).toBe(exit);
  expect(report.failure?.message).toMatch(why);
  expect(report.failure?.remedy.length).toBeGreaterThan(10);
  expect(w.junit, 'no JUnit').not.toBeNull();
  expect(xmlProblem(w.junit!)).toBeNull();
  expect(w.junit).toMatch(/<testsuites name="petstore-conformance" tests="1" failures="0" errors="1"/);
  expect(w.junit).toMatch(new RegExp(`<error message="[^"]*\\[${code}\\]"/>`));
  expect(w.junit).toContain(`<property name="verdict" value="${report.verdict}"/>`);
  // The job summary says the verdict in words, the error and what to do.
  expect(w.summary).toMatch(exit === 2 ? /Not run: configuration error/ : /Blocked/);
  expect(w.summary).toContain(`\`${code}\``);
  expect(w.summary).toMatch(/\*\*What to do:\*\* \S/);
  expect(w.html).toContain('id="failure"');
  // No key ever reaches a report.
  for (const text of [JSON.stringify(report), w.junit!, w.summary, w.html!]) expect(text).not.toContain('psk_SECRET_');
}

/** A target that answers every request with this status and Error body. */
async function answering<T>(status: number, body: object, fn: (url: string) => Promise<T>): Promise<T> {
  const srv = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status, ...body }));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    return await fn(`http://127.0.0.1:${(srv.address() as { port: number }).port}/v1`);
  } finally {
    await new Promise<void>((r) => srv.close(() => r()));
  }
}

describe('exit 2: the run does not start, and its reports say why (verdict error)', () => {
  it('a usage error (--max-duration not a duration)', async () => {
    const w = await runWritingReports(['--embedded', '--max-duration', 'soon']);
    expectFailureReports(w, 2, 'PSC_CONFIG', /--max-duration: "soon" is not a duration/);
  });

  it('an empty --target', async () => {
    const w = await runWritingReports(['--target', '']);
    expectFailureReports(w, 2, 'PSC_CONFIG', /--target is set but empty/);
  });

  it('no target in CI', async () => {
    const w = await runWritingReports([], { CI: 'true' });
    expectFailureReports(w, 2, 'PSC_CONFIG', /no target: in CI .*--embedded/);
  });

  it('a key the target refuses as invalid (401)', async () => {
    const w = await answering(401, { code: 'unauthorized', message: 'invalid API key' }, (url) =>
      runWritingReports(['--target', url]),
    );
    expectFailureReports(w, 2, 'PSC_CONFIG', /PETSTORE_API_KEY_\w+: .*refused/);
  });
});

describe('exit 3: the run cannot start or go on, and its reports say why (verdict blocked)', () => {
  it('an unreachable target', async () => {
    const w = await runWritingReports(['--target', `http://127.0.0.1:${await closedPort()}/v1`]);
    expectFailureReports(w, 3, 'PSC_UNREACHABLE', /target unreachable: .*ECONNREFUSED/);
  });

  it('TLS: https spoken to a plain-http port', async () => {
    const server = await startReferenceServer({ keys });
    try {
      const w = await runWritingReports(['--target', server.url.replace('http:', 'https:')]);
      expectFailureReports(w, 3, 'PSC_TLS', /TLS|certificate|handshake/i);
    } finally {
      await server.close();
    }
  });

  it('a banned key', async () => {
    const w = await answering(403, { code: 'banned', message: 'API key temporarily banned' }, (url) =>
      runWritingReports(['--target', url]),
    );
    expectFailureReports(w, 3, 'PSC_KEY_BANNED', /banned/);
  });

  it('a harness failure: the JSON cannot be written, the JUnit still says why', async () => {
    const dir = tempDir('psc-failrep-harness-');
    writeFileSync(join(dir, 'file'), '');
    const junit = join(dir, 'junit.xml');
    const r = await runMain([
      'run',
      '--embedded',
      '--suite',
      'auth',
      '--runs',
      '1',
      '--json',
      join(dir, 'file', 'r.json'),
      '--junit',
      junit,
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/internal error \[PSC_HARNESS\]: .*(ENOTDIR|EEXIST)/);
    const xml = readFileSync(junit, 'utf8');
    expect(xmlProblem(xml)).toBeNull();
    expect(xml).toMatch(/<error message="[^"]*(ENOTDIR|EEXIST)[^"]*\[PSC_HARNESS\]"\/>/);
    expect(xml).toContain('<property name="verdict" value="blocked"/>');
  }, 120_000);
});

describe('exit 3 once the suites run: the reports already say why (a stop of the run)', () => {
  const stopped = (w: Written, code: string) => {
    expect(w.code, w.stderr).toBe(3);
    expect(w.report?.verdict).toBe('blocked');
    expect(w.report?.run.stop?.code).toBe(code);
    expect(xmlProblem(w.junit!)).toBeNull();
    expect(w.junit).toMatch(new RegExp(`<error message="Stopped early: [^"]*\\[${code}\\]"/>`));
  };

  it('the time budget', async () => {
    const server = await startReferenceServer({ keys });
    try {
      stopped(
        await runWritingReports(['--target', server.url, '--max-duration', '1s', '--runs', '5000']),
        'PSC_MAX_DURATION',
      );
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a target that keeps slowing down', async () => {
    const server = await startReferenceServer({ keys });
    const proxy = await countingProxy(server.url, 8);
    try {
      stopped(
        await runWritingReports(['--target', proxy.url, '--suite', 'listPets,createPet', '--runs', '30']),
        'PSC_TARGET_SLOWING',
      );
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 120_000);
});
