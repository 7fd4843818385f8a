// The stop a signal asks for (cli/interrupt.ts): the first is an interruption the command is told of, with its
// signal, code, exit code and how long after the start it came; a second ends the process at once, its temporary
// files removed first. And `report merge` finishes its report on a first signal, then exits with its code.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Interrupt, type Interruption } from '../../cli/interrupt.js';
import { reportCommand } from '../../cli/report-command.js';
import { buildReport } from '../../reports/build-report.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import { DEFAULT_THRESHOLDS } from '../../reports/thresholds.js';
import { writeReportFiles } from '../../reports/write-report.js';
import { readJson } from '../support/artifacts.js';
import { mixScenario, planScenario, syntheticRun } from '../reports/fixtures.js';
import { tempDir } from '../support/temp-dir.js';

describe('Interrupt', () => {
  it('the first signal: every listener told once, with what the reports say; a late listener at once', () => {
    const lines: string[] = [];
    const exits: number[] = [];
    const i = new Interrupt({
      startedAt: performance.now() - 4200,
      announce: (l) => lines.push(l),
      exit: (c) => exits.push(c),
    });
    const heard: Interruption[] = [];
    i.onInterrupt((x) => heard.push(x));
    i.receive('SIGTERM');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ signal: 'SIGTERM', code: 'PSC_SIGTERM', exitCode: 143 });
    expect(heard[0]!.message).toMatch(/^the run was interrupted by SIGTERM after 4\.\d s$/);
    const late: Interruption[] = [];
    i.onInterrupt((x) => late.push(x));
    expect(late).toEqual(heard);
    expect(lines).toEqual([expect.stringMatching(/^SIGTERM: stopping, .* \(a second signal ends at once\)$/)]);
    expect(exits).toEqual([]);
  });

  it('a second signal removes the temporary files, then ends the process with its exit code', () => {
    const exits: number[] = [];
    const removed: string[] = [];
    const i = new Interrupt({ announce: () => {}, exit: (c) => exits.push(c) });
    i.onAbandon(() => removed.push('h.har.partial'));
    const forget = i.onAbandon(() => removed.push('written already'));
    forget();
    i.onAbandon(() => {
      throw new Error('a file that cannot be removed does not keep the process alive');
    });
    i.receive('SIGTERM');
    expect(exits).toEqual([]);
    i.receive('SIGINT');
    expect(removed).toEqual(['h.har.partial']);
    expect(exits).toEqual([130]);
  });

  it('install takes SIGINT and SIGTERM over; uninstall gives them back', () => {
    const before = process.listenerCount('SIGTERM');
    const i = new Interrupt({ announce: () => {}, exit: () => {} }).install();
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBeGreaterThan(0);
    i.uninstall();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});

describe('report merge and a signal', () => {
  it('a first signal lets the merge finish: its report written and valid, then exit 130', async () => {
    const root = tempDir('psc-merge-signal-');
    for (const [name, ms] of [
      ['a', 1],
      ['b', 200],
    ] as const) {
      const run = syntheticRun([mixScenario('mix-connections-10', [[ms, 100]]), planScenario(2, 60, 180, 3)]);
      await writeReportFiles(buildReport(run, DEFAULT_THRESHOLDS, []), join(root, name));
    }
    const out = join(root, 'merged');
    const text: string[] = [];
    const io = { stdout: { write: (t: string) => text.push(t) }, stderr: { write: (t: string) => text.push(t) } };
    const merging = reportCommand(['merge', join(root, 'a'), join(root, 'b'), '--out', out], io);
    // The command has taken the signals over before its first await.
    process.emit('SIGINT', 'SIGINT');
    expect(await merging, text.join('')).toBe(130);
    expect(text.join('')).toMatch(/SIGINT: stopping, finishing the merge/);
    // Written as `report merge --out DIR` writes a merged night: DIR/<UTC timestamp>-merged/.
    const merged = /Merged report: (.+)\/report\.html/.exec(text.join(''))?.[1];
    expect(merged).toMatch(/-merged$/);
    expect(existsSync(join(merged!, 'report.html'))).toBe(true);
    expect(reportSchemaErrors(readJson<unknown>(join(merged!, 'report.json')))).toEqual([]);
  });
});
