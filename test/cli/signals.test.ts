// A cancelled run keeps what it found (issue 22): the built command, started as a user's shell or a CI runner starts
// it, gets SIGINT or SIGTERM mid-run and still writes every report it was asked for, each saying it was interrupted,
// then exits 130 / 143 with no temporary file left. A second signal ends it at once. And its progress fits where it
// runs: a live status line on a terminal (cleared at the end), plain periodic lines in a pipe, nothing with --quiet.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../cli/run-command.js';
import type { LoadReport } from '../../reports/model.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import type { ReplayFile } from '../../reports/replay-file.js';
import { type ReferenceServer, startReferenceServer } from '../../reference/server.js';
import { readHar, readJson } from '../support/artifacts.js';
import { harProblems, xmlProblem } from '../support/validate.js';
import { type CountingProxy, countingProxy, distinctiveKeys, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

/** The environment of a user with nothing configured, progress lines every 0.2 s so that tests need not wait. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && !k.startsWith('PETSTORE_') && !['CI', 'NO_COLOR', 'FORCE_COLOR'].includes(k),
    ),
  ) as Record<string, string>;
  return { ...env, PETSTORE_PROGRESS_SECONDS: '0.2', ...extra };
}

interface Started {
  readonly child: ChildProcess;
  /** Resolves with the first stderr line matching `re`; rejects, with what the command said, if it exits first. */
  waitFor(re: RegExp): Promise<string>;
  readonly exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

function start(args: readonly string[], env: Record<string, string>, cwd: string): Started {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin/petstore-conformance.js'), ...args], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { re: RegExp; resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  child.stdout!.on('data', (c) => (out += c));
  createInterface({ input: child.stderr! }).on('line', (line) => {
    err += `${line}\n`;
    for (const w of [...waiters])
      if (w.re.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // A line that never comes: the test fails at once with the command's words, not at its timeout.
  child.once('close', (code) => {
    for (const w of waiters.splice(0))
      w.reject(new Error(`the command exited (${code}) before printing ${w.re}:\n${err}`));
  });
  return {
    child,
    waitFor: (re) => new Promise((resolve, reject) => waiters.push({ re, resolve, reject })),
    exited,
    stdout: () => out,
    stderr: () => err,
  };
}

/** Every report the run was asked for is there, valid, and says the run was interrupted by `signal`. */
function expectInterruptedReports(
  dir: string,
  signal: 'SIGINT' | 'SIGTERM',
  withDefects: boolean,
  stdout: string,
): void {
  const interrupted = new RegExp(`interrupted by ${signal} after \\d+(\\.\\d)? s`);
  const report = readJson<RunReport>(join(dir, 'r.json'));
  // One verdict, said alike by the JSON, the JUnit, the terminal and the summary; the exit code the signal's.
  expect(report.verdict).toBe('blocked');
  expect(report.exitCode).toBe(signal === 'SIGINT' ? 130 : 143);
  expect(stdout).toMatch(/\bBLOCKED\b/);
  expect(report.run.stop).toEqual({ code: `PSC_${signal}`, message: expect.stringMatching(interrupted) });
  // What it left out: the suites it cut short or never began.
  expect(report.run.budget.leftOut.length).toBeGreaterThan(0);
  expect(report.run.budget.leftOut.join('\n')).toMatch(interrupted);
  if (withDefects) expect(report.defects.length).toBeGreaterThan(0);

  const junit = readFileSync(join(dir, 'j.xml'), 'utf8');
  expect(xmlProblem(junit)).toBeNull();
  expect(junit).toMatch(interrupted);
  expect(junit).toContain('<property name="verdict" value="blocked"/>');
  expect(junit).toMatch(/<testcase classname="petstore-conformance.run" name="run completed">\s*<error /);

  const har = readHar(join(dir, 'h.har'));
  expect(harProblems(har)).toEqual([]);
  expect(har.log.comment).toMatch(interrupted);
  // Every request the run sent, the start-up check's included, is in the HAR: the exchanges so far, none lost.
  expect(har.log.entries.length).toBe(report.run.budget.sent);

  expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(interrupted);
  expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('⛔ Blocked');
  // The page beside the JSON too: the run stopped early says its pass means little, with the traffic so far.
  const page = readFileSync(join(dir, 'r.html'), 'utf8');
  expect(page).toMatch(new RegExp(`id="means-little"[\\s\\S]*${interrupted.source}`));
  expect(report.traffic?.keys.length).toBeGreaterThan(0);
  expect(page).toContain('data-chart="traffic-');
  if (withDefects) {
    const replays = readdirSync(join(dir, 'rep'));
    expect(replays.length).toBeGreaterThan(0);
    for (const f of replays.slice(0, 5))
      expect(readJson<ReplayFile>(join(dir, 'rep', f)).runStopped).toEqual({
        code: `PSC_${signal}`,
        message: expect.stringMatching(interrupted),
        leftOut: report.run.budget.leftOut,
      });
  }
  // No temporary file left anywhere (the HAR's partial file is renamed into place).
  expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
}

const REPORTS = ['--json', 'r.json', '--junit', 'j.xml', '--har', 'h.har', '--replay-dir', 'rep'];

describe('a signal mid-run: every report written, then the signal exit code', () => {
  it('SIGINT against the embedded server: exit 130, the reports say so', async () => {
    const dir = tempDir('psc-sigint-');
    const env = cleanEnv({ GITHUB_STEP_SUMMARY: join(dir, 'summary.md') });
    const run = start(['run', '--runs', '5000', ...REPORTS], env, dir);
    // Once the run has sent some requests (the faultless server gives no defect to wait for).
    await run.waitFor(/^progress: .*\b([1-9]\d{2,}) requests/);
    run.child.kill('SIGINT');
    expect(await run.exited, run.stderr()).toBe(130);
    expect(run.stderr()).toMatch(/SIGINT: stopping, writing the reports/);
    expect(run.stdout()).toMatch(/Stopped early: the run was interrupted by SIGINT/);
    expectInterruptedReports(dir, 'SIGINT', false, run.stdout());
  }, 120_000);

  describe('against a target with a fault (serve in another process)', () => {
    let serve: ChildProcess;
    let serveEnv: Record<string, string>;
    beforeAll(async () => {
      serve = spawn(
        process.execPath,
        ['bin/petstore-conformance.js', 'serve', '--window', '60', '--fault', 'success-text-html'],
        { env: cleanEnv(), stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const printed: Record<string, string> = {};
      for await (const line of createInterface({ input: serve.stdout! })) {
        const m = /^export (\w+)=(.*)$/.exec(line);
        if (m) printed[m[1]!] = m[2]!;
        if (m?.[1] === 'PETSTORE_ENTERPRISE_LIMITS') break;
      }
      serveEnv = printed;
    });
    afterAll(() => void serve?.kill('SIGTERM'));

    it.each(['SIGTERM', 'SIGINT'] as const)(
      '%s after the first defect: every report written and valid, the right exit code',
      async (signal) => {
        const dir = tempDir(`psc-${signal.toLowerCase()}-`);
        const env = cleanEnv({ ...serveEnv, GITHUB_STEP_SUMMARY: join(dir, 'summary.md') });
        const run = start(['run', '--runs', '5000', ...REPORTS], env, dir);
        await run.waitFor(/^progress: .* [1-9]\d* defects? so far/);
        run.child.kill(signal);
        expect(await run.exited, run.stderr()).toBe(signal === 'SIGINT' ? 130 : 143);
        expectInterruptedReports(dir, signal, true, run.stdout());
      },
      120_000,
    );

    it('a second signal during the stop ends the process at once, its partial HAR removed', async () => {
      const dir = tempDir('psc-twice-');
      const run = start(['run', '--runs', '5000', ...REPORTS], cleanEnv(serveEnv), dir);
      await run.waitFor(/^progress: .* [1-9]\d* defects? so far/);
      run.child.kill('SIGTERM');
      await run.waitFor(/SIGTERM: stopping/);
      run.child.kill('SIGTERM');
      // Bounded by the test's timeout: a process that ignored the second signal would finish its reports instead.
      expect(await run.exited).toBe(143);
      expect(run.stderr()).toMatch(/SIGTERM again: stopped at once/);
      expect(readdirSync(dir).filter((f) => f.includes('.partial'))).toEqual([]);
    }, 60_000);
  });
});

describe('a signal while a slow target keeps requests under way', () => {
  let server: ReferenceServer;
  let proxy: CountingProxy;
  beforeAll(async () => {
    server = await startReferenceServer({ keys: distinctiveKeys('signals') });
    // The n-th answer comes n × 400 ms late: the requests under way at the signal would hold the stop for seconds.
    proxy = await countingProxy(server.url, 400);
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('they are aborted a grace after the stop, kept in the HAR as such, and judged by no check', async () => {
    const dir = tempDir('psc-slow-');
    const envFile = writeEnvFile(join(dir, '.env'), distinctiveKeys('signals'));
    const args = ['run', '--target', proxy.url, '--env-file', envFile, '--suite', 'listPets', '--runs', '5000'];
    const run = start([...args, '--concurrency', '4', '--json', 'r.json', '--har', 'h.har'], cleanEnv(), dir);
    await run.waitFor(/^progress: .* ([6-9]|\d{2,}) of \d+ requests/);
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(143);
    const har = readHar(join(dir, 'h.har'));
    expect(harProblems(har)).toEqual([]);
    const aborted = har.log.entries.filter((e) => /PSC_RUN_STOPPED/.test(e._error ?? ''));
    expect(aborted.length, JSON.stringify(har.log.entries.map((e) => e._error ?? e.response.status))).toBeGreaterThan(
      0,
    );
    const report = readJson<RunReport>(join(dir, 'r.json'));
    expect(report.run.stop?.code).toBe('PSC_SIGTERM');
    // Aborted by the harness, not failed by the target: no transport finding.
    expect(report.findings.filter((f) => f.checkId === 'transport-ok')).toEqual([]);
    expect(har.log.entries.length).toBe(report.run.budget.sent);
  }, 120_000);
});

describe('a signal during load --profile smoke', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: the scenario under way reported as partial, HTML, JSON and Markdown written, no history appended',
    async (signal) => {
      const dir = tempDir(`psc-load-${signal.toLowerCase()}-`);
      const run = start(['load', '--profile', 'smoke', '--out', 'out'], cleanEnv(), dir);
      await run.waitFor(/^load: mix, /);
      run.child.kill(signal);
      expect(await run.exited, run.stderr()).toBe(signal === 'SIGINT' ? 130 : 143);
      const reports = readdirSync(join(dir, 'out'));
      // One report directory, and no history: an interrupted night is not one to compare with.
      expect(reports).toHaveLength(1);
      const reportDir = join(dir, 'out', reports[0]!);
      const report = readJson<LoadReport>(join(reportDir, 'report.json'));
      expect(reportSchemaErrors(report)).toEqual([]);
      const interrupted = new RegExp(`interrupted by ${signal} after \\d+(\\.\\d)? s`);
      expect(report.interrupted?.signal).toBe(signal);
      expect(report.interrupted?.message).toMatch(interrupted);
      expect(report.verdict.pass).toBe(false);
      // The scenario under way is there, marked partial; the entries not begun are named as left out.
      expect(report.scenarios.length).toBeGreaterThan(0);
      expect(report.scenarios.at(-1)!.partial ?? '').toMatch(/cut short after/);
      expect(report.interrupted?.leftOut.some((l) => /plan-rate: did not start/.test(l))).toBe(true);
      expect(readFileSync(join(reportDir, 'summary.md'), 'utf8')).toMatch(interrupted);
      // Headlined INTERRUPTED, never FAIL: a stopped night is no verdict on the target.
      expect(readFileSync(join(reportDir, 'summary.md'), 'utf8')).toMatch(/^## Load smoke: INTERRUPTED/m);
      expect(run.stdout()).not.toMatch(/FAIL/);
      expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toMatch(interrupted);
      expect(run.stdout()).toMatch(interrupted);
    },
    120_000,
  );
});

describe('progress on stderr', () => {
  it('piped: plain lines at each suite start and end and periodically, no carriage return, nothing on stdout', async () => {
    const dir = tempDir('psc-progress-');
    const run = start(['run', '--suite', 'listPets,getPet', '--runs', '400'], cleanEnv(), dir);
    await run.exited;
    const err = run.stderr();
    expect(err).not.toContain('\r');
    const lines = err.split('\n').filter((l) => l.startsWith('progress: '));
    expect(lines.some((l) => /^progress: listPets started · /.test(l))).toBe(true);
    expect(lines.some((l) => /^progress: getPet ended · /.test(l))).toBe(true);
    // Periodic lines (neither a start nor an end), each with the requests so far.
    const periodic = lines.filter((l) => !/ (started|ended) · /.test(l));
    expect(periodic.length, err).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/ · \d+ requests · /);
    expect(run.stdout()).not.toMatch(/progress:/);
  }, 120_000);

  it('--quiet: no progress at all', async () => {
    const dir = tempDir('psc-quiet-');
    const run = start(['run', '--suite', 'getPet', '--runs', '50', '--quiet'], cleanEnv(), dir);
    await run.exited;
    expect(run.stderr()).not.toMatch(/progress:/);
    expect(run.stdout()).toMatch(/Result: /);
  }, 120_000);

  it('on a terminal: one status line redrawn in place, cleared at the end (script(1) gives the pseudo-terminal)', async () => {
    const dir = tempDir('psc-tty-');
    const bin = join(process.cwd(), 'bin/petstore-conformance.js');
    // stderr to the pseudo-terminal, stdout (the result) away: what the terminal shows is the progress alone.
    const command = `'${process.execPath}' '${bin}' run --suite listPets,getPet --runs 400 2>&1 >/dev/null`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...cleanEnv(), TERM: 'xterm', COLUMNS: '200' },
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tty = '';
    child.stdout.on('data', (c) => (tty += c));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code, tty).toBe(0);
    const CLEAR = '\r\x1b[2K';
    const draws = tty.split(CLEAR).slice(1);
    // Drawn in place, more than once, with the suites, the requests and the defects so far.
    expect(draws.length, JSON.stringify(tty)).toBeGreaterThan(1);
    expect(draws.some((d) => /listPets.* · \d+ requests · .*defect/.test(d))).toBe(true);
    expect(tty).not.toMatch(/^progress: /m);
    // Cleared at the end: the terminal's last bytes erase the line.
    expect(tty.replace(/[\r\n]+$/, '').endsWith('\x1b[2K')).toBe(true);
  }, 120_000);
});
