/**
 * SIGINT and SIGTERM as a graceful stop (issue 22). The first signal becomes an interruption: the command is told at
 * once (`onInterrupt`) and stops the run through its usual stop mechanism (the run's limits for `run`, runner/limits.ts; the scenario
 * loop for `load`), writes every report with what the run has, and exits with the signal's code (130, 143) once they
 * are on disk. A second signal ends the process at once, after the temporary files registered with `onAbandon` are
 * removed (a partial HAR, say). A CI runner sends SIGTERM and, a few seconds later, SIGKILL: the stop must fit in them.
 */
import { exitCodeFor, SIGNAL_CODES, type StopSignal } from '../errors/catalogue.js';
import { TOOL } from './args.js';

export interface Interruption {
  readonly signal: StopSignal;
  /** The stop's code in the error catalogue: PSC_SIGINT, PSC_SIGTERM. */
  readonly code: (typeof SIGNAL_CODES)[StopSignal];
  /** Milliseconds from the start of the command to the signal. */
  readonly afterMs: number;
  /** As the reports say it: "the run was interrupted by SIGINT after 4.2 s". */
  readonly message: string;
  /** The process's exit code: 130 for SIGINT, 143 for SIGTERM. */
  readonly exitCode: number;
}

export interface InterruptOptions {
  /** performance.now() at the start of the command (the interruption says how long after it came). */
  readonly startedAt?: number;
  /** Where the stop is announced (stderr); nothing of it goes to stdout. */
  readonly announce?: (line: string) => void;
  /** Ends the process (a second signal); process.exit by default. */
  readonly exit?: (code: number) => void;
  /** What the command does on the first signal, for the line that announces it. */
  readonly stopping?: string;
}

const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

export class Interrupt {
  private first: Interruption | null = null;
  private readonly listeners = new Set<(i: Interruption) => void>();
  private readonly abandon = new Set<() => void>();
  private readonly handler = (signal: NodeJS.Signals) => this.receive(signal as StopSignal);
  private readonly startedAt: number;
  private readonly announce: (line: string) => void;
  private readonly exit: (code: number) => void;
  private readonly stopping: string;

  constructor(options: InterruptOptions = {}) {
    this.startedAt = options.startedAt ?? performance.now();
    this.announce = options.announce ?? ((line) => void process.stderr.write(`${TOOL}: ${line}\n`));
    this.exit = options.exit ?? ((code) => process.exit(code));
    this.stopping = options.stopping ?? 'writing the reports with what the run has';
  }

  /** Takes SIGINT and SIGTERM over from Node's default (which ends the process with nothing written). */
  install(): this {
    for (const s of SIGNALS) process.on(s, this.handler);
    return this;
  }

  uninstall(): void {
    for (const s of SIGNALS) process.off(s, this.handler);
  }

  /** The first signal, once it came. */
  get interruption(): Interruption | null {
    return this.first;
  }

  /** `fn` on the first signal (at once when it has come already); returns the way to stop listening. */
  onInterrupt(fn: (i: Interruption) => void): () => void {
    if (this.first) fn(this.first);
    else this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** `fn` removes a temporary file when a second signal ends the process; returns the way to forget it. */
  onAbandon(fn: () => void): () => void {
    this.abandon.add(fn);
    return () => this.abandon.delete(fn);
  }

  /** A signal (public for tests: the process's own signals go through `install`). */
  receive(signal: StopSignal): void {
    if (this.first) {
      for (const fn of this.abandon) {
        try {
          fn();
        } catch {
          // Ending now matters more than one file.
        }
      }
      this.announce(`${signal} again: stopped at once, without the reports`);
      this.exit(exitCodeFor(SIGNAL_CODES[signal]));
      return;
    }
    const afterMs = performance.now() - this.startedAt;
    this.first = {
      signal,
      code: SIGNAL_CODES[signal],
      afterMs,
      message: `the run was interrupted by ${signal} after ${(afterMs / 1000).toFixed(1)} s`,
      exitCode: exitCodeFor(SIGNAL_CODES[signal]),
    };
    this.announce(`${signal}: stopping, ${this.stopping} (a second signal ends at once)`);
    for (const fn of [...this.listeners]) fn(this.first);
    this.listeners.clear();
  }
}

/**
 * Runs `start` (vitest's createVitest) and removes the SIGINT and SIGTERM listeners it added: vitest's logger ends the
 * process on either signal a millisecond later, which would leave no report written. The command's own stop is the
 * only one.
 */
export async function withoutForeignSignalListeners<T>(start: () => Promise<T>): Promise<T> {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  try {
    return await start();
  } finally {
    for (const s of SIGNALS)
      for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l as (...a: unknown[]) => void);
  }
}
