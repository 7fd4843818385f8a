/**
 * A night without its target is not a regression: `load` against a port where nothing listens, or a target that
 * refuses every key, stops by itself within seconds with exit 3 and says so, writing a report with no performance
 * verdict; a target that goes away mid-night ends the night as "target unavailable" with what was measured.
 * No timing assertion: each test's own timeout is the bound (the command must stop by itself).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommand } from '../../cli/load-command.js';
import { keyEnv } from '../../config/config.js';
import { generateKeys } from '../../reference/server.js';
import { startEmbedded } from '../../reference/launcher.js';
import type { LoadReport } from '../../reports/model.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import { readJson } from '../support/artifacts.js';
import { runCli, userEnv } from '../tls/support.js';
import { tempDir } from '../support/temp-dir.js';
import { closedPort } from '../cli/support.js';

function onlyReport(out: string): LoadReport {
  const dirs = readdirSync(out).filter((d) => /^\d{4}-\d\d-\d\dT/.test(d));
  expect(dirs).toHaveLength(1);
  const report = readJson<LoadReport>(join(out, dirs[0]!, 'report.json'));
  expect(reportSchemaErrors(report)).toEqual([]);
  return report;
}

describe('load against a target that is not there', () => {
  // Each ends by itself: the test's timeout is the bound, never a wall-clock assertion.
  it('nothing listening: exit 3, "target unavailable", no performance verdict', async () => {
    const out = tempDir('psc-load-dead-');
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runCli(['load', '--profile', 'smoke', '--target', url, '--out', out], userEnv(generateKeys()));
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /^petstore-conformance: target unavailable: nothing answers at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED.* \[PSC_UNREACHABLE\]$/m,
    );
    expect(r.stdout).toMatch(/## Load smoke: TARGET UNAVAILABLE/);
    expect(r.stdout).not.toMatch(/PASS|FAIL/);
    const report = onlyReport(out);
    expect(report.verdict).toMatchObject({ pass: false, unavailable: true, checks: [] });
    expect(report.unavailable).toMatchObject({ scenario: null });
    expect(report.scenarios).toEqual([]);
    // Not a night to compare with: the history is left alone.
    expect(readdirSync(out)).not.toContain('history.json');
  }, 120_000);

  /** A target that answers every request with `status` and this Error body. */
  async function refusing<T>(status: number, body: string, fn: (url: string) => Promise<T>): Promise<T> {
    const server: Server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      return await fn(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  it('a key the target refuses as invalid (401): exit 2 naming its variable, as run does, nothing sent', async () => {
    await refusing(401, '{"code":"unauthorized","message":"invalid API key","status":401}', async (url) => {
      const out = tempDir('psc-load-invalid-');
      const r = await runCli(['load', '--target', url, '--out', out], userEnv(generateKeys()));
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^petstore-conformance: PETSTORE_API_KEY_\w+: .* refused the \w+ key with 401 \(section 7: a missing or invalid key\): check the value of PETSTORE_API_KEY_\w+ \[PSC_CONFIG\]$/m,
      );
      expect(r.stderr).not.toMatch(/banned/);
    });
  }, 120_000);

  it('a target that says every key is banned: exit 3 naming the refusals, a report with no performance verdict', async () => {
    await refusing(403, '{"code":"banned","message":"API key temporarily banned","status":403}', async (url) => {
      const out = tempDir('psc-load-refused-');
      const r = await runCli(['load', '--target', url, '--out', out], userEnv(generateKeys()));
      expect(r.status, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /^petstore-conformance: .* refused every key as banned or forbidden \(free \(\$PETSTORE_API_KEY_FREE: 403\).* \[PSC_KEY_BANNED\]$/m,
      );
      expect(onlyReport(out).verdict.unavailable).toBe(true);
    });
  }, 120_000);

  it('a target that goes away mid-night: the night ends as "target unavailable" with what was measured, exit 3', async () => {
    const server = await startEmbedded({ port: 0, windowSeconds: 2 });
    const dir = tempDir('psc-load-gone-');
    const profile = join(dir, 'gone.json');
    writeFileSync(
      profile,
      JSON.stringify({
        name: 'gone',
        scenarios: [
          { kind: 'mix-rate', fraction: 0.5, maxRate: 40, durationSeconds: 20 },
          { kind: 'mix-connections', connections: 1, durationSeconds: 2 },
        ],
      }),
    );
    let closing: Promise<void> | null = null;
    const err: string[] = [];
    const code = await loadCommand(['--profile', profile, '--target', server.url, '--out', join(dir, 'out')], {
      env: { ...keyEnv(server.keys), PETSTORE_RATE_WINDOW_SECONDS: '2' },
      stderr: {
        isTTY: false,
        write: (t: string) => {
          err.push(t);
          // The first progress line of the scenario: it has been running ~a second (the server stops meanwhile).
          if (closing === null && /load: mix at 40 req\/s/.test(t))
            closing = new Promise((r) => setTimeout(r, 1500)).then(() => server.close());
        },
      },
      stdout: { write: () => {} },
    });
    await closing;
    expect(code, err.join('')).toBe(3);
    const report = onlyReport(join(dir, 'out'));
    expect(report.verdict).toMatchObject({ pass: false, unavailable: true, checks: [] });
    expect(report.unavailable!.scenario).toBe('mix-rate-50pct');
    expect(report.unavailable!.reason).toMatch(
      /the target stopped answering: no answer for \d+ s while requests failed/,
    );
    // What was measured before is kept; the scenario after it was not run.
    expect(report.scenarios.map((s) => s.id)).toEqual(['mix-rate-50pct']);
    expect(report.scenarios[0]!.responses).toBeGreaterThan(0);
    expect(report.unavailable!.reason).toBe(`the target stopped answering: ${report.scenarios[0]!.targetUnavailable}`);
    expect(err.join('')).toMatch(/target unavailable during mix at 40 req\/s/);
  }, 40_000);
});
