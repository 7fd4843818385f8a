/**
 * The run's progress on stderr, fitted to where it runs (issue 22). On a terminal: one live status line (suites under
 * way, the time since the command started and, when the plan gives one, an estimate of the rest, requests sent and the
 * budget, defects so far, what the run waits for and how long), drawn from the first second, redrawn in place and
 * cleared at the end; lines the CLI prints meanwhile go above it. In CI or a pipe: a plain line at once, at each
 * suite's start and end and every `everySeconds`, never a carriage return. `--quiet`: nothing. Nothing of it goes to
 * stdout. The snapshots come from the suites' worker (suites/progress-feed.ts); the findings they carry are grouped
 * into defects here, by the report's own rules (reports/defects.ts), so the count is of defects, not signatures.
 */
import type { Finding } from '../checks/check.js';
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
  /** The plan's requests of the functional suites, once planned: the estimate of the rest comes from them. */
  planned(requests: number | null): void;
}

/** What the status line shows besides the worker's snapshot. */
export interface StatusContext {
  /** Epoch ms the command started: the line shows the time since. */
  readonly startedAt?: number;
  /** Defects so far (the snapshot's findings grouped); null while the grouping is not ready. */
  readonly defects?: number | null;
  /** The estimate of the time left, in ms, when there is one. */
  readonly leftMs?: number | null;
}

/** 42 s, 3 min 05 s, 1 h 02 min. */
export function clockText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** "auth, listPets · 42 s, about 1 min 10 s left · 450 of 2000 requests · 3 defects so far · waiting 41 s for …" */
export function progressText(snap: ProgressSnapshot, now: number, color: boolean, ctx: StatusContext = {}): string {
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const parts = [snap.running.length > 0 ? snap.running.join(', ') : 'between suites'];
  if (ctx.startedAt !== undefined)
    parts.push(
      `${clockText(now - ctx.startedAt)}${ctx.leftMs != null && ctx.leftMs > 0 ? `, about ${clockText(ctx.leftMs)} left` : ''}`,
    );
  parts.push(snap.budget === null ? `${snap.sent} requests` : `${snap.sent} of ${snap.budget} requests`);
  const defects = ctx.defects ?? null;
  parts.push(
    snap.signatures === 0
      ? 'no defect so far'
      : defects === null
        ? paint('31', 'defects so far: counting')
        : paint('31', `${defects} defect${defects === 1 ? '' : 's'} so far`),
  );
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
  /** Epoch ms the command started (the elapsed time counts from it); the line shows no time without it. */
  readonly startedAt?: number;
  /** The suites about to run: shown from the first second, before the worker's first snapshot. */
  readonly starting?: readonly string[];
  /**
   * Requests the plan expects of the suites whose time the requests tell (the functional ones), for an estimate of the
   * rest while only they run; null: no estimate.
   */
  readonly expectedRequests?: number | null;
  /** Groups findings into defects (reports/defects.ts, loaded once the first finding comes). */
  readonly countDefects?: () => Promise<(findings: readonly Finding[]) => number>;
}

/** Suites whose time their requests do not tell (they wait out windows): no estimate while one runs. */
const WAITING_SUITES = new Set(['rate-limit', 'quota']);

export function createRunProgress(
  stream: ProgressStream,
  settings: ProgressSettings,
  { ci, now = Date.now, startedAt, starting = [], expectedRequests: expected = null, countDefects }: ProgressOptions,
): RunProgress {
  if (settings.quiet) return { update() {}, line: (t) => void stream.write(`${t}\n`), end() {}, planned() {} };
  const live = stream.isTTY === true && !ci;
  const color = settings.color ?? (live && (stream.hasColors?.() ?? false));
  // Until the worker's first snapshot: the suites about to run, nothing sent yet.
  let snap: ProgressSnapshot = {
    running: starting.length > 0 ? [`starting ${starting.join(', ')}`] : ['starting'],
    sent: 0,
    budget: null,
    signatures: 0,
    findings: [],
    waiting: null,
    event: null,
  };
  let expectedRequests = expected;
  const findings: Finding[] = [];
  let group: ((f: readonly Finding[]) => number) | null = null;
  let loading = false;
  let defects: number | null = null;
  let firstRequestAt: number | null = null;
  let shown = false;
  let ended = false;
  const leftMs = (): number | null => {
    if (expectedRequests === null || firstRequestAt === null || snap.sent < 20 || snap.sent >= expectedRequests)
      return null;
    if (snap.running.some((s) => WAITING_SUITES.has(s))) return null;
    return ((now() - firstRequestAt) * (expectedRequests - snap.sent)) / snap.sent;
  };
  const text = (withColor: boolean) =>
    progressText(snap, now(), withColor, {
      ...(startedAt !== undefined ? { startedAt } : {}),
      defects,
      leftMs: leftMs(),
    });
  const draw = () => {
    if (ended) return;
    // Cut to the terminal's width: a line that wraps could not be redrawn in place.
    const width = Math.max(20, (stream.columns || 80) - 1);
    const plainText = text(false);
    stream.write(CLEAR_LINE + (plainText.length > width ? `${plainText.slice(0, width - 1)}…` : text(color)));
    shown = true;
  };
  const plain = (prefix: string) => {
    if (!ended) stream.write(`progress: ${prefix}${text(color)}\n`);
  };
  const regroup = () => {
    if (findings.length === 0) return;
    if (group) {
      defects = group(findings);
      return;
    }
    if (loading || !countDefects) return;
    loading = true;
    countDefects().then(
      (g) => {
        group = g;
        defects = g(findings);
        if (live) draw();
      },
      () => {},
    );
  };
  // Live: redrawn every second (the clock and the wait count); plain: a line every everySeconds.
  const timer = setInterval(() => (live ? draw() : plain('')), live ? 1000 : settings.everySeconds * 1000);
  timer.unref();
  // From the first second: the line (or a first plain line) before anything has been sent.
  if (live) draw();
  else plain('');
  return {
    update(next) {
      snap = next;
      if (firstRequestAt === null && next.sent > 0) firstRequestAt = now();
      if (next.findings.length > 0) {
        findings.push(...next.findings);
        regroup();
      }
      if (live) draw();
      else if (next.event) plain(`${next.event.suite} ${next.event.kind === 'start' ? 'started' : 'ended'} · `);
    },
    line(text) {
      if (live && shown) stream.write(CLEAR_LINE);
      stream.write(`${text}\n`);
      if (live && shown) draw();
    },
    planned(requests) {
      expectedRequests = requests;
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
