/**
 * The run's progress on stderr, fitted to where it runs (issue 22). On a terminal: one live status line (suites under
 * way, requests sent and the budget, distinct defects so far, what the run waits for and how long), redrawn in place
 * and cleared at the end; lines the CLI prints meanwhile go above it. In CI or a pipe: a plain line at each suite's
 * start and end and every `everySeconds`, never a carriage return. `--quiet`: nothing. Nothing of it goes to stdout.
 * The snapshots come from the suites' worker (suites/progress-feed.ts).
 */
import type { ProgressSettings } from '../config/config.js';
import type { ProgressSnapshot } from '../suites/progress-feed.js';
import { CLEAR_LINE } from './output.js';

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
  hasColors?(): boolean;
}

export interface RunProgress {
  /** A snapshot from the worker. */
  update(snap: ProgressSnapshot): void;
  /** A line of the CLI's own (a note): printed above the status line, which is then drawn again. */
  line(text: string): void;
  /** The run is over: the status line is cleared, the timer stopped. */
  end(): void;
}

/** "auth, listPets · 450 of 2000 requests · 3 defects · waiting 41 s for the free key's window" */
export function progressText(snap: ProgressSnapshot, now: number, color: boolean): string {
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const parts = [
    snap.running.length > 0 ? snap.running.join(', ') : 'between suites',
    snap.budget === null ? `${snap.sent} requests` : `${snap.sent} of ${snap.budget} requests`,
    snap.defects === 0
      ? 'no defect so far'
      : paint('31', `${snap.defects} distinct defect${snap.defects === 1 ? '' : 's'} so far`),
  ];
  if (snap.waiting) {
    const left = Math.max(0, Math.ceil((snap.waiting.untilMs - now) / 1000));
    // "waiting 41 s for the free key's window"; a reason that is a sentence of its own after a colon.
    const reason = snap.waiting.reason;
    if (left > 0) parts.push(paint('2', `waiting ${left} s${reason.startsWith('for ') ? ' ' : ': '}${reason}`));
  }
  return parts.join(' · ');
}

export interface ProgressOptions {
  /** Whether the run is in CI (CI=true): plain lines even on a terminal. */
  readonly ci: boolean;
  readonly now?: () => number;
}

export function createRunProgress(
  stream: ProgressStream,
  settings: ProgressSettings,
  { ci, now = Date.now }: ProgressOptions,
): RunProgress {
  if (settings.quiet) return { update() {}, line: (t) => void stream.write(`${t}\n`), end() {} };
  const live = stream.isTTY === true && !ci;
  const color = settings.color ?? (live && (stream.hasColors?.() ?? false));
  let snap: ProgressSnapshot | null = null;
  let shown = false;
  let ended = false;
  const draw = () => {
    if (!snap || ended) return;
    // Cut to the terminal's width: a line that wraps could not be redrawn in place.
    const width = Math.max(20, (stream.columns || 80) - 1);
    const text = progressText(snap, now(), false);
    stream.write(
      CLEAR_LINE + (text.length > width ? `${text.slice(0, width - 1)}…` : progressText(snap, now(), color)),
    );
    shown = true;
  };
  const plain = (prefix: string) => {
    if (snap && !ended) stream.write(`progress: ${prefix}${progressText(snap, now(), color)}\n`);
  };
  // Live: redrawn every second (the wait counts down); plain: a line every everySeconds.
  const timer = setInterval(() => (live ? draw() : plain('')), live ? 1000 : settings.everySeconds * 1000);
  timer.unref();
  return {
    update(next) {
      snap = next;
      if (live) draw();
      else if (next.event) plain(`${next.event.suite} ${next.event.kind === 'start' ? 'started' : 'ended'} · `);
    },
    line(text) {
      if (live && shown) stream.write(CLEAR_LINE);
      stream.write(`${text}\n`);
      if (live && shown) draw();
    },
    end() {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      if (live && shown) stream.write(CLEAR_LINE);
      shown = false;
    },
  };
}
