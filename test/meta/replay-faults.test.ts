// Replay tells the truth (issue 29): for every fault of the catalogue, the replay file of the defect its suite reports,
// replayed against a fresh faulty reference, exits 1 (still there), and against a fresh faultless one, exits 0 (gone).
// Fresh servers: a replay must carry what it needs (the lead-up, the suite and seed), not lean on the state the run left.
// The faults run side by side, a few at a time (most of a rate-limit replay is waiting for its 2 s windows).
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { type Fault, faults } from '../../reference/faults.js';
import type { SuiteName } from '../../config/config.js';
import { generateKeys, planKeys, type ReferenceOptions, startReferenceServer } from '../../reference/server.js';
import { randomKey, type ReferenceKey } from '../../reference/keys.js';
import { runSuite } from '../../runner/run.js';
import { replayPlan, type ReplayFile, writeReplays } from '../../reports/replay-file.js';
import { readJson } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';
import { reportOf } from './fault-report.js';
import { runForReport, runMain, writeEnvFile } from '../cli/support.js';
import { slots } from '../support/slots.js';

const SEED = 42;
/** --runs of the runs that find the defects (the replays that rerun a suite run as many). */
const RUNS = 40;

/** Faults at once: each holds two or three reference servers and a suite busy in this worker. */
const AT_ONCE = 4;
const slot = slots(AT_ONCE);

/** How each kind of fault's servers are set up: keys, windows, and what the replay's env file says of them. */
function setupOf(fault: Fault): { options: ReferenceOptions; keys: ReferenceKey[]; env: Record<string, string> } {
  if (fault.suite === 'rate-limit' || fault.suite === 'quota') {
    // One Enterprise key with small custom limits (PETSTORE_ENTERPRISE_LIMITS tells the replay), short windows.
    const quota = fault.suite === 'quota';
    // The quota's: a minute limit with room for its last requests to go several at once (quota-parallel.ts).
    const limits = quota
      ? { requestsPerMinute: 20, requestsPerDay: 30 }
      : { requestsPerMinute: 10, requestsPerDay: 1000 };
    // Two keys: what one key cannot show (a counter shared across keys, other operations probed after a 429) shows.
    const keys = [1, 2].map(() => ({ key: randomKey('enterprise'), plan: 'enterprise' as const, limits }));
    const windowSeconds = fault.id === 'rl-retry-after-short' ? 6 : 2;
    return {
      options: { keys, windowSeconds, ...(quota && { dayWindowSeconds: 60 }) },
      keys,
      env: { PETSTORE_RATE_WINDOW_SECONDS: String(windowSeconds) },
    };
  }
  const keys = generateKeys();
  return { options: { keys, windowSeconds: 5 }, keys, env: {} };
}

/** The replay file of the defect the fault's run reports (the one that names the fault's check). */
async function defectFile(fault: Fault, dir: string, envFile: string, options: ReferenceOptions): Promise<string> {
  const server = await startReferenceServer({ ...options, faults: [fault.id] });
  try {
    const replays = join(dir, 'replays');
    if (fault.suite === 'preflight') {
      // Only the run's first request meets it: through the command, which writes the files itself.
      await runForReport(server.url, envFile, join(dir, 'r.json'), [
        '--suite',
        'auth',
        '--runs',
        '10',
        '--seed',
        String(SEED),
        '--replay-dir',
        replays,
      ]);
    } else {
      const keys = planKeys(server.keys);
      const key = [...keys].sort((a, b) => (b.limits?.requestsPerMinute ?? 0) - (a.limits?.requestsPerMinute ?? 0))[0]!;
      const r = await runSuite(fault.suite as SuiteName, {
        target: server.url,
        keys,
        key,
        seed: SEED,
        runs: RUNS,
        strict: false,
        windowSeconds: server.options.windowSeconds,
      });
      const report = reportOf([r], server.url, SEED, RUNS);
      writeReplays(replays, { ...report, replayFiles: replayPlan(replays, report) });
    }
    const files = readdirSync(replays).map((n) => join(replays, n));
    const mine = files.filter((p) => {
      const f = readJson<ReplayFile>(p);
      return f.checkId === fault.catches || (f.alsoSeenAs ?? []).includes(fault.catches);
    });
    expect(mine, `${fault.id}: the replay files ${files.join(', ')}`).toHaveLength(1);
    return mine[0]!;
  } finally {
    await server.close();
  }
}

/** `replay FILE` against a fresh reference with the given faults. */
async function replayAgainst(file: string, envFile: string, options: ReferenceOptions, withFaults: string[]) {
  const server = await startReferenceServer({ ...options, faults: withFaults });
  try {
    return await runMain(['replay', file, '--target', server.url, '--env-file', envFile, '--max-duration', '5m']);
  } finally {
    await server.close();
  }
}

describe.concurrent('every fault: its defect replayed exits 1 against the faulty reference, 0 against the faultless one', () => {
  for (const fault of faults) {
    test(
      `${fault.id} (${fault.suite}) → ${fault.catches}`,
      () =>
        slot(async () => {
          const dir = tempDir('psc-replay-fault-');
          const { options, keys, env } = setupOf(fault);
          const envFile = writeEnvFile(join(dir, '.env'), keys, env);
          const file = await defectFile(fault, dir, envFile, options);
          const how = readJson<ReplayFile>(file).judge?.by;
          // A create's echo is judged by its create, as the run judged it; a 429's shape by the burst of its suite.
          if (fault.catches === 'create-echo') expect(how).toBe('create');
          if (fault.suite === 'rate-limit') expect(how).toBe('suite');
          const faulty = await replayAgainst(file, envFile, options, [fault.id]);
          expect(faulty.code, `faulty (${how}):\n${faulty.out.text()}`).toBe(1);
          expect(faulty.stdout).toMatch(/^reproduced: /m);
          expect(faulty.stdout).toMatch(/^compared: /m);
          if (fault.id === 'create-int64-rounded')
            expect(faulty.stdout).toMatch(
              /^✗ create-echo \[4\.2-create-echo\] received categoryId (\d+) \(sent (?!\1)\d+\)/m,
            );
          const clean = await replayAgainst(file, envFile, options, []);
          expect(clean.code, `faultless (${how}):\n${clean.out.text()}`).toBe(0);
          expect(clean.stdout).toMatch(/^not reproduced: .* is gone/m);
          expect(clean.stdout).not.toMatch(/flaky/);
        }),
      900_000,
    );
  }
});

test('an unreachable target: exit 3, whichever way the file is judged (its request, its create, its suite)', async () => {
  const modes: string[] = [];
  for (const id of ['create-200', 'create-int64-rounded', 'get-not-retrievable']) {
    const fault = faults.find((f) => f.id === id)!;
    const dir = tempDir('psc-replay-unreachable-');
    const { options, keys } = setupOf(fault);
    const envFile = writeEnvFile(join(dir, '.env'), keys);
    const file = await defectFile(fault, dir, envFile, options);
    modes.push(readJson<ReplayFile>(file).judge!.by);
    const server = await startReferenceServer(options);
    const url = server.url;
    await server.close();
    const r = await runMain(['replay', file, '--target', url, '--env-file', envFile]);
    expect(r.code, r.out.text()).toBe(3);
  }
  expect(modes.sort()).toEqual(['create', 'response', 'suite']);
}, 300_000);

test('a file of version 1 of a defect no single answer shows: not judged (exit 3), never "gone"', async () => {
  const dir = tempDir('psc-replay-v1-');
  const file = join(dir, 'r.json');
  writeFileSync(
    file,
    JSON.stringify({
      replayVersion: 1,
      checkId: 'create-retrievable',
      seed: 7,
      operation: 'getPet',
      request: { method: 'GET', path: '/pets/1', headers: {}, bodyBase64: null },
    }),
  );
  const envFile = writeEnvFile(join(dir, '.env'), generateKeys());
  const r = await runMain(['replay', file, '--target', 'http://127.0.0.1:9/v1', '--env-file', envFile]);
  expect(r.code, r.out.text()).toBe(3);
  expect(r.stdout).toMatch(/^not judged: create-retrievable .* rerun the run with --seed 7$/m);
});
