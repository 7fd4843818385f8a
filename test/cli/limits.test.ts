// Runs that always end, within a request budget: a target that keeps slowing down stops the run (exit 3) with the
// trend as a warning and every report written, one slow for a few seconds does not; --budget and --max-creates are
// hard caps the target itself can count.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestBudget } from '../../cli/run-command.js';
import { loadConfig, parseDuration } from '../../config/config.js';
import { isEdgeName, prefixedName } from '../../generators/names.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { readHar } from '../support/artifacts.js';
import {
  countingProxy,
  distinctiveKeys,
  slowingDown,
  runAgainst,
  runForReport,
  tempEnvFile,
  writeEnvFile,
} from './support.js';
import { tempDir } from '../support/temp-dir.js';

describe('run limits against a real target', () => {
  const keys = distinctiveKeys('limits');
  let server: ReferenceServer;
  let envFile: string;
  let dir: string;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
    dir = tempDir('psc-limits-');
    envFile = writeEnvFile(join(dir, '.env'), keys);
  });
  afterAll(async () => server?.close());

  const run = (target: string, name: string, extra: string[]) =>
    runForReport(target, envFile, join(dir, `${name}.json`), ['--seed', '5', ...extra]);

  // Real time on purpose: the slow-down must hold 20 s of wall time and still be there after a rest (about 30 s).
  it('a target that keeps slowing down (twice as slow every 5 s): exit 3, the trend as a warning, every report written', async () => {
    const proxy = await countingProxy(server.url, slowingDown());
    try {
      const har = join(dir, 'slow.har');
      const md = join(dir, 'slow-junit.xml');
      const { code, out, report } = await run(proxy.url, 'slow', [
        '--suite',
        'listPets,createPet',
        // Enough cases that the run outlasts the 20 s the trend needs however fast the host: the stop ends it.
        '--runs',
        '1000',
        '--max-duration',
        '10m',
        '--har',
        har,
        '--junit',
        md,
      ]);
      expect(code, out.text()).toBe(3);
      // It stopped on the trend, not on its time budget.
      expect(report.run.stop?.code).toBe('PSC_TARGET_SLOWING');
      expect(report.verdict).toBe('blocked');
      const trend = report.findings.filter((f) => f.checkId === 'latency-trend');
      expect(trend).toHaveLength(1);
      expect(trend[0]!.level).toBe('warning');
      // Its figures: the class that slowed, its first and last medians, how long it rose, what the look after a rest saw.
      expect(trend[0]!.message).toMatch(
        /^(GET|POST) \/pets(\/\{petId\})? \d{3} slowed from [\d.]+ ms to [\d.]+ ms progressively \(medians over its first answers and its last \d+ of \d+, rising over \d+ windows for [\d.]+ s\); after a 2 s rest, 3 .* answered in [\d.]+ ms \(median\), still slow(: the target is slowing down|; this host is the likelier cause: the run's own event loop lagged up to \d+ ms meanwhile)\n/,
      );
      expect(out.text()).toMatch(/Stopped early: .*slowed from .*still slow/);
      expect(out.text()).toMatch(/time budget 600 s/);
      const harLog = readHar(har).log;
      const entries = harLog.entries;
      expect(harLog.comment).toMatch(/Stopped early: .*PSC_TARGET_SLOWING/);
      // The preflight's exchange too: every request the run sent.
      expect(entries.length).toBe(report.run.budget.sent);
      expect(readFileSync(md, 'utf8')).toMatch(/<testsuites/);
      // The target saw exactly what the run says it sent.
      expect(proxy.counts.requests).toBe(report.run.budget.sent);
    } finally {
      await proxy.close();
    }
  }, 180_000);

  it('a target slow for 5 s that recovers: no stop, no trend', async () => {
    // Quick for a second, then 200 ms slower with every second for 5 s (up to a second an answer), then quick again:
    // four lanes see it rise answer after answer, which stopped the run before issue 28.
    const proxy = await countingProxy(server.url, (_n, since) =>
      since >= 1_000 && since < 6_000 ? (since - 1_000) / 5 : 0,
    );
    try {
      const { code, out, report } = await run(proxy.url, 'recovers', [
        '--suite',
        'listPets,createPet',
        '--runs',
        '60',
        '--concurrency',
        '4',
      ]);
      expect(code, out.text()).toBe(0);
      expect(report.run.stop?.code).not.toBe('PSC_TARGET_SLOWING');
      expect(report.findings.filter((f) => f.checkId === 'latency-trend')).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, 180_000);

  it('--max-duration: no request past the deadline, exit 3, and the reports say why', async () => {
    const proxy = await countingProxy(server.url);
    try {
      const { code, out, report } = await run(proxy.url, 'deadline', ['--max-duration', '2s', '--runs', '100']);
      expect(code, out.text()).toBe(3);
      expect(report.verdict).toBe('blocked');
      expect(report.run.stop?.code).toBe('PSC_MAX_DURATION');
      expect(report.run.maxDurationSeconds).toBe(2);
      expect(report.run.budget.leftOut.length).toBeGreaterThan(0);
      expect(proxy.counts.requests).toBe(report.run.budget.sent);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('--budget is never exceeded, is recorded, and says what it left out', async () => {
    const proxy = await countingProxy(server.url);
    try {
      const { code, out, report } = await run(proxy.url, 'budget', ['--budget', '60', '--runs', '20']);
      expect(code, out.text()).toBe(0);
      expect(proxy.counts.requests).toBeLessThanOrEqual(60);
      expect(report.run.budget).toMatchObject({ limit: 60, source: 'flag' });
      expect(report.run.budget.sent).toBe(proxy.counts.requests);
      expect(report.run.budget.leftOut.length).toBeGreaterThan(0);
      expect(report.run.stop?.code).toBe('PSC_BUDGET');
      expect(out.text()).toMatch(/Requests: \d+ of a budget of 60 \(--budget\)/);
      // The plan names what each suite's coverage costs, the robustness catalogue's included.
      expect(out.text()).toMatch(
        /coverage first, within the request budget \(60\): auth \d+, .*robustness catalogue \d+ = \d+/,
      );
      expect(out.text()).toMatch(/Left out: /);
      // Per key: what it spent, and what the target's headers say is left.
      const sent = report.run.keys.reduce((n, k) => n + k.sent, 0);
      expect(sent).toBe(report.run.budget.sent);
      expect(report.run.keys.some((k) => k.headerRemaining !== null)).toBe(true);
      expect(out.text()).toMatch(/key: \d+ requests; headers say \d+ of \d+ left/);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('--max-creates caps creations; the JSON report lists every id created', async () => {
    const proxy = await countingProxy(server.url);
    try {
      const { out, report } = await run(proxy.url, 'creates', [
        '--suite',
        'createPet',
        '--runs',
        '10',
        '--max-creates',
        '4',
      ]);
      expect(proxy.counts.created, out.text()).toBe(4);
      expect(report.run.maxCreates).toBe(4);
      expect(report.run.created.count).toBe(4);
      expect(report.run.created.ids).toHaveLength(4);
      for (const id of report.run.created.ids) expect(id).toMatch(/^-?\d+$/);
      expect(report.run.stop?.code).toBe('PSC_MAX_CREATES');
    } finally {
      await proxy.close();
    }
  }, 120_000);
});

describe('a stopped run keeps what it found', () => {
  it('a fault seen before the budget ran out fails the run (exit 1), within the budget', async () => {
    const keys = distinctiveKeys('stopfault');
    const server = await startReferenceServer({ keys, faults: ['pet-missing-categoryId'] });
    const proxy = await countingProxy(server.url);
    try {
      const dir = tempDir('psc-stopfault-');
      const envFile = writeEnvFile(join(dir, '.env'), keys);
      const { code, out, report } = await runForReport(proxy.url, envFile, join(dir, 'r.json'), [
        '--suite',
        'listPets',
        '--budget',
        '12',
      ]);
      expect(code, out.text()).toBe(1);
      expect(report.run.stop?.code).toBe('PSC_BUDGET');
      expect(report.findings.some((f) => f.checkId === 'body-schema' && f.level === 'violation')).toBe(true);
      expect(proxy.counts.requests).toBeLessThanOrEqual(12);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);
});

describe('pets the run creates are recognisable', () => {
  const keys = distinctiveKeys('prefix');
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer({ keys });
  });
  afterAll(async () => server?.close());

  it('--name-prefix marks every created pet whose case allows it; edge names stay the case', async () => {
    const proxy = await countingProxy(server.url);
    try {
      const envFile = tempEnvFile('psc-prefix-', keys);
      const { code, out } = await runAgainst(proxy.url, envFile, [
        '--suite',
        'createPet,stateful',
        '--runs',
        '20',
        '--seed',
        '8',
        '--name-prefix',
        'gate-x-',
      ]);
      expect(code, out.text()).toBe(0);
      const names = proxy.createdNames;
      expect(names.length).toBeGreaterThan(10);
      const marked = names.filter((n) => n.startsWith('gate-x-'));
      expect(marked.length).toBeGreaterThan(names.length / 2);
      for (const n of names) if (!n.startsWith('gate-x-')) expect(isEdgeName(n), n).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('prefixed plain names stay plain; edge names and an empty prefix leave names alone', () => {
    expect(prefixedName('psc-gate-', 'Rex Max')).toBe('psc-gate-Rex Max');
    expect(prefixedName('gate', 'Rex')).toBe('gate Rex');
    expect(isEdgeName(prefixedName('psc-gate-', 'A'.repeat(50)))).toBe(false);
    expect(prefixedName('psc-gate-', '  padded ')).toBe('  padded ');
    expect(prefixedName('', 'Rex')).toBe('Rex');
    expect(loadConfig({}, {}).namePrefix).toBe('psc-gate-');
    expect(() => loadConfig({ namePrefix: 'bad\nprefix' }, {})).toThrow(/--name-prefix/);
  });
});

describe('defaults', () => {
  const config = loadConfig({ target: 'https://staging.example/v1' }, { PETSTORE_API_KEY_FREE: 'k-budget-default' });
  const free = config.keys[0]!;

  it('the default request budget is a quarter of what the key has for the day', () => {
    expect(requestBudget(config, free, null, false)).toEqual({ limit: 250, source: 'quota' });
    // Remaining at or below the minute limit speaks for the minute window: the day's quota stands.
    expect(requestBudget(config, free, 42, false)).toEqual({ limit: 250, source: 'quota' });
    expect(requestBudget(config, free, 400, false)).toEqual({ limit: 100, source: 'quota' });
    expect(requestBudget(config, free, null, true)).toEqual({ limit: null, source: 'none' });
    const flagged = loadConfig(
      { target: 'https://staging.example/v1', budget: '900' },
      { PETSTORE_API_KEY_FREE: 'k-budget-default' },
    );
    expect(requestBudget(flagged, free, 400, false)).toEqual({ limit: 900, source: 'flag' });
    // The rate-limit suite's minimum for the other keys comes from their own quotas: added; the functional key's not.
    const needs = [
      { label: 'free', requests: 68 },
      { label: 'pro', requests: 308 },
    ];
    expect(requestBudget(config, free, null, false, needs)).toEqual({ limit: 558, source: 'quota' });
    expect(requestBudget(flagged, free, null, false, needs)).toEqual({ limit: 900, source: 'flag' });
  });

  it('every run has a time budget; durations parse with their units', () => {
    expect(config.maxDurationMs).toBe(30 * 60 * 1000);
    expect(parseDuration('90', '--max-duration')).toBe(90_000);
    expect(parseDuration('15m', '--max-duration')).toBe(900_000);
    expect(parseDuration('1h', '--max-duration')).toBe(3_600_000);
    expect(() => parseDuration('soon', '--max-duration')).toThrow(/not a duration/);
    expect(() => parseDuration('0s', '--max-duration')).toThrow(/out of range/);
  });
});
