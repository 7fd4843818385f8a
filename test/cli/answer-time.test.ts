// Time judged at the answer (issue 28): a fixed window aligned to the clock, whose first Reset comes a moment after the
// run's first request, behind a service that sends no Date header, in a run longer than that window: no exchange, the
// preflight's included, is judged by a later clock than the one it was answered by.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESET_SKEW_S } from '../../checks/response.js';
import { startReferenceServer } from '../../reference/server.js';
import { readHar } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';
import { countingProxy, distinctiveKeys, runForReport, writeEnvFile } from './support.js';

const WINDOW_S = 2;

describe('a clock-aligned fixed window with an epoch Reset, no Date header', () => {
  it('a run longer than one window: no rate-limit-reset-epoch on any exchange, the preflight included', async () => {
    const keys = distinctiveKeys('answertime');
    const server = await startReferenceServer({ keys, algorithm: 'fixed-window-aligned', windowSeconds: WINDOW_S });
    // Every answer 40 ms late, one lane: the run lasts well beyond a window and the skew allowed.
    const proxy = await countingProxy(server.url, () => 40, { dropDate: true });
    try {
      const dir = tempDir('psc-answer-time-');
      const har = join(dir, 'run.har');
      const { code, out, report } = await runForReport(
        proxy.url,
        writeEnvFile(join(dir, '.env'), keys),
        join(dir, 'r.json'),
        ['--suite', 'listPets,getPet', '--runs', '40', '--concurrency', '1', '--seed', '3', '--har', har],
      );
      const entries = readHar(har).log.entries;
      // What the test stands on: answers without Date, with a Reset, over more than a window and the skew.
      const header = (e: (typeof entries)[number], name: string) =>
        e.response.headers.find((h) => h.name.toLowerCase() === name)?.value;
      expect(
        entries.every((e) => header(e, 'date') === undefined && header(e, 'x-ratelimit-reset') !== undefined),
      ).toBe(true);
      const times = entries.map((e) => Date.parse(e.startedDateTime));
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan((WINDOW_S + RESET_SKEW_S + 1) * 1000);
      // The verdict: nothing about Reset, on any exchange; the preflight's first answer judged like every other.
      expect(report.findings.filter((f) => f.checkId === 'rate-limit-reset-epoch')).toEqual([]);
      expect(report.suites.find((s) => s.name === 'preflight')).toMatchObject({ exchanges: 1 });
      expect(code, out.text()).toBe(0);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 180_000);
});
