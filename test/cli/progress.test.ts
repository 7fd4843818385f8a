// The run's progress drawn for where it runs (cli/progress.ts): a status line redrawn in place on a terminal and
// cleared at the end, plain lines (suite events, then periodically) elsewhere, nothing with --quiet; colour as
// NO_COLOR and FORCE_COLOR say. The built command in a pseudo-terminal and a pipe: test/cli/signals.test.ts.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createRunProgress, type ProgressStream, progressText } from '../../cli/progress.js';
import { loadConfig, type ProgressSettings } from '../../config/config.js';
import { HarnessError } from '../../errors/catalogue.js';
import type { ProgressSnapshot } from '../../suites/progress-feed.js';
import type { Finding } from '../../checks/check.js';
import { checkById } from '../../checks/registry.js';
import { caseRef } from '../../generators/case.js';

const CLEAR = '\r\x1b[2K';
const NOW = 1_000_000;

const snap = (over: Partial<ProgressSnapshot> = {}): ProgressSnapshot => ({
  running: ['auth', 'listPets'],
  sent: 450,
  budget: 2000,
  signatures: 3,
  findings: [],
  waiting: null,
  event: null,
  ...over,
});

function fakeStream(isTTY: boolean): ProgressStream & { text: () => string } {
  const chunks: string[] = [];
  return { isTTY, columns: 200, write: (t: string) => chunks.push(t), text: () => chunks.join('') };
}

const settings = (over: Partial<ProgressSettings> = {}): ProgressSettings => ({
  quiet: false,
  everySeconds: 15,
  color: null,
  ...over,
});

describe('the status text', () => {
  it('names the suites, the time, the requests of the budget, the defects and the wait', () => {
    const waiting = { reason: "for the free key's window", untilMs: NOW + 40_500 };
    expect(progressText(snap({ waiting }), NOW, false, { startedAt: NOW - 65_000, defects: 2, leftMs: 30_000 })).toBe(
      "auth, listPets · 1 min 05 s, about 30 s left · 450 of 2000 requests · 2 defects so far · waiting 41 s for the free key's window",
    );
    expect(progressText(snap({ running: [], budget: null, signatures: 0 }), NOW, false)).toBe(
      'between suites · 450 requests · no defect so far',
    );
    // Signatures seen but not grouped yet: no number that would count them as defects.
    expect(progressText(snap(), NOW, false)).toBe('auth, listPets · 450 of 2000 requests · defects so far: counting');
    expect(progressText(snap(), NOW, false, { defects: 1 })).toMatch(/ · 1 defect so far$/);
    // A wait that is over is not shown; a reason that is a sentence of its own follows a colon.
    expect(progressText(snap({ waiting: { reason: 'x', untilMs: NOW - 1 } }), NOW, false)).not.toMatch(/waiting/);
    expect(progressText(snap({ waiting: { reason: '429 on GET /pets', untilMs: NOW + 2000 } }), NOW, false)).toMatch(
      /waiting 2 s: 429 on GET \/pets$/,
    );
  });

  it('colours the defects only when asked', () => {
    expect(progressText(snap(), NOW, true, { defects: 3 })).toContain('\x1b[31m3 defects so far\x1b[0m');
    expect(progressText(snap(), NOW, false)).not.toContain('\x1b[');
  });
});

describe('drawing it', () => {
  it('on a terminal: redrawn in place, lines of the CLI above it, cleared at the end', () => {
    const tty = fakeStream(true);
    const p = createRunProgress(tty, settings({ color: false }), { ci: false, now: () => NOW });
    p.update(snap({ sent: 1, signatures: 0 }));
    p.update(snap({ sent: 2, signatures: 0 }));
    p.line('petstore-conformance: SIGINT: stopping');
    p.end();
    p.update(snap({ sent: 3 }));
    expect(tty.text()).toBe(
      `${CLEAR}starting · 0 requests · no defect so far` +
        `${CLEAR}auth, listPets · 1 of 2000 requests · no defect so far` +
        `${CLEAR}auth, listPets · 2 of 2000 requests · no defect so far` +
        `${CLEAR}petstore-conformance: SIGINT: stopping\n` +
        `${CLEAR}auth, listPets · 2 of 2000 requests · no defect so far` +
        CLEAR,
    );
  });

  it('in CI, even on a terminal: plain lines at suite events and every period, never a carriage return', async () => {
    // The period on a fake clock: what is asserted is the lines, never how a busy machine schedules timers.
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const tty = fakeStream(true);
    const p = createRunProgress(tty, settings({ everySeconds: 0.05 }), { ci: true, now: () => NOW });
    p.update(snap({ event: { kind: 'start', suite: 'auth' }, signatures: 0 }));
    p.update(snap({ sent: 7, signatures: 0 }));
    vi.advanceTimersByTime(200);
    p.end();
    const lines = tty.text().split('\n').filter(Boolean);
    // A first line at once, before the worker's first snapshot.
    expect(lines[0]).toBe('progress: starting · 0 requests · no defect so far');
    expect(lines[1]).toBe('progress: auth started · auth, listPets · 450 of 2000 requests · no defect so far');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.slice(2).every((l) => l.startsWith('progress: auth, listPets · 7 of 2000'))).toBe(true);
    expect(tty.text()).not.toContain('\r');
    // Ended: no more lines.
    const n = tty.text().length;
    vi.advanceTimersByTime(120);
    expect(tty.text().length).toBe(n);
  });

  it('from the first second: the suites about to run and the time, then an estimate of the rest from the plan', () => {
    let now = NOW;
    const tty = fakeStream(true);
    const p = createRunProgress(tty, settings({ color: false }), {
      ci: false,
      now: () => now,
      startedAt: NOW,
      starting: ['auth', 'listPets'],
    });
    expect(tty.text()).toBe(`${CLEAR}starting auth, listPets · 0 s · 0 requests · no defect so far`);
    p.planned(400);
    now += 2_000;
    p.update(snap({ sent: 1, budget: null, signatures: 0 }));
    now += 10_000;
    p.update(snap({ sent: 101, budget: null, signatures: 0 }));
    // 100 requests in the 10 s since the first: 299 more planned, about 30 s.
    expect(tty.text().split(CLEAR).at(-1)).toBe(
      'auth, listPets · 12 s, about 30 s left · 101 requests · no defect so far',
    );
    // While a suite that waits out windows runs, its requests tell nothing of the time: no estimate.
    p.update(snap({ running: ['rate-limit'], sent: 150, budget: null, signatures: 0 }));
    expect(tty.text().split(CLEAR).at(-1)).toBe('rate-limit · 12 s · 150 requests · no defect so far');
    p.end();
  });

  it('counts defects, not signatures: three variants of one family are one defect', async () => {
    const finding = (variant: string): Finding => ({
      checkId: 'auth-rejected',
      clause: checkById('auth-rejected').clause,
      level: 'violation',
      operation: 'listPets',
      suite: 'auth',
      keyPlan: 'enterprise',
      caseClass: `auth: ${variant}`,
      case: caseRef(`auth: ${variant}`, 'auth-other-scheme', variant),
      causes: [{ kind: 'status', status: 200, expected: [401] }],
      message: 'received 200\nthe spec documents 401',
      exchanges: [],
    });
    const tty = fakeStream(true);
    const p = createRunProgress(tty, settings({ color: false }), {
      ci: false,
      now: () => NOW,
      countDefects: async () => {
        const { groupDefects } = await import('../../reports/defects.js');
        return (findings) => groupDefects({ findings }).length;
      },
    });
    p.update(
      snap({
        signatures: 3,
        findings: ['Basic scheme', 'Token scheme', 'no scheme'].map(finding),
      }),
    );
    await vi.waitFor(() => expect(tty.text().split(CLEAR).at(-1)).toMatch(/ · 1 defect so far$/));
    expect(tty.text()).not.toMatch(/3 defects/);
    p.end();
  });

  it('--quiet: nothing but the CLI lines themselves', () => {
    const tty = fakeStream(true);
    const p = createRunProgress(tty, settings({ quiet: true }), { ci: false });
    p.update(snap({ event: { kind: 'start', suite: 'auth' } }));
    p.line('a note');
    p.end();
    expect(tty.text()).toBe('a note\n');
  });

  it('FORCE_COLOR colours a pipe; NO_COLOR never colours', () => {
    const pipe = fakeStream(false);
    const forced = createRunProgress(pipe, settings({ color: true }), { ci: false, now: () => NOW });
    forced.update(snap({ event: { kind: 'end', suite: 'auth' } }));
    forced.end();
    expect(pipe.text()).toContain('\x1b[31m');
    const tty = { ...fakeStream(true), hasColors: () => true };
    const never = createRunProgress(tty, settings({ color: false }), { ci: false, now: () => NOW });
    never.update(snap());
    never.end();
    expect(tty.text()).not.toContain('\x1b[31m');
  });
});

describe('the settings, from flags and the environment', () => {
  const base = { PETSTORE_API_KEY_FREE: 'psk_free_progress_0123456789abcdef' };
  const progressOf = (env: Record<string, string>, quiet?: boolean) =>
    loadConfig({ target: 'http://127.0.0.1:9/v1', quiet }, { ...base, ...env }).progress;

  it('defaults: every 15 s, colour left to the terminal', () => {
    expect(progressOf({})).toEqual({ quiet: false, everySeconds: 15, color: null });
  });

  it('--quiet, PETSTORE_PROGRESS_SECONDS, NO_COLOR, FORCE_COLOR', () => {
    expect(progressOf({}, true).quiet).toBe(true);
    expect(progressOf({ PETSTORE_PROGRESS_SECONDS: '0.5' }).everySeconds).toBe(0.5);
    expect(progressOf({ NO_COLOR: '1' }).color).toBe(false);
    expect(progressOf({ NO_COLOR: '1', FORCE_COLOR: '1' }).color).toBe(false);
    expect(progressOf({ FORCE_COLOR: '1' }).color).toBe(true);
    expect(progressOf({ FORCE_COLOR: '0' }).color).toBe(false);
  });

  it('a PETSTORE_PROGRESS_SECONDS that is not a number of seconds is a configuration error naming it', () => {
    expect(() => progressOf({ PETSTORE_PROGRESS_SECONDS: 'soon' })).toThrow(HarnessError);
    expect(() => progressOf({ PETSTORE_PROGRESS_SECONDS: 'soon' })).toThrow(/PETSTORE_PROGRESS_SECONDS/);
  });
});
