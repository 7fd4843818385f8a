/**
 * The run's progress, computed where the run happens (the suites' worker: one feed per Run, built with it in
 * suites/run.suite.ts, which the Run tells of each suite's start and end, each finding and each wait) and handed to the
 * CLI through vitest's reporter API: each snapshot is a console line of the worker, which vitest delivers to the
 * reporters' `onUserConsoleLog` (cli/suite-reporter.ts), marked so that nothing else is mistaken for it. The CLI draws it
 * (cli/progress.ts): a status line on a terminal, plain lines in CI. A snapshot goes when something changes, at most
 * about once a second, and at once when a suite starts or ends or a wait begins.
 */
import type { Finding } from '../checks/check.js';
import { signatureKey } from '../checks/registry.js';

export const PROGRESS_MARK = 'petstore-conformance:progress ';

export interface ProgressSnapshot {
  /** Suites under way. */
  readonly running: readonly string[];
  /** Requests the suites sent so far, and the run's budget for them (null: none). */
  readonly sent: number;
  readonly budget: number | null;
  /** Distinct signatures of the violations and warnings found so far. */
  readonly signatures: number;
  /**
   * Findings (violations and warnings) first seen since the last snapshot, a few per signature: the CLI groups what it
   * was sent into defects as the report does (reports/defects.ts), so that the status line counts defects.
   */
  readonly findings: readonly Finding[];
  /** What the run waits for, and until when (epoch ms). */
  readonly waiting: { readonly reason: string; readonly untilMs: number } | null;
  /** A suite that has just started or ended. */
  readonly event: { readonly kind: 'start' | 'end'; readonly suite: string } | null;
}

const EVERY_MS = 1000;
/** Findings sent per signature: enough for the grouping to fold consequences on their shared exchanges. */
const SAMPLES_PER_SIGNATURE = 3;

export class ProgressFeed {
  private readonly running = new Set<string>();
  private readonly signatures = new Map<string, number>();
  private fresh: Finding[] = [];
  private waiting: ProgressSnapshot['waiting'] = null;
  private last = '';
  private readonly timer: NodeJS.Timeout;

  /** `sent`: the requests the run has let through so far (RunLimits.requests). */
  constructor(
    private readonly sent: () => number,
    private readonly budget: number | null,
    private readonly send: (line: string) => void = (line) => console.info(line),
  ) {
    this.timer = setInterval(() => this.emit(null), EVERY_MS);
    this.timer.unref();
  }

  /** The run is over: no more snapshots. */
  close(): void {
    clearInterval(this.timer);
  }

  suiteStarted(suite: string): void {
    this.running.add(suite);
    this.emit({ kind: 'start', suite });
  }

  suiteEnded(suite: string): void {
    this.running.delete(suite);
    this.emit({ kind: 'end', suite });
  }

  /** Findings as they are recorded: violations and warnings counted once per signature. */
  readonly found = (findings: readonly Finding[]): void => {
    for (const f of findings) {
      if (f.level === 'observation') continue;
      const key = signatureKey(f);
      const seen = this.signatures.get(key) ?? 0;
      this.signatures.set(key, seen + 1);
      if (seen < SAMPLES_PER_SIGNATURE) this.fresh.push(f);
    }
  };

  /** A wait begins (pacing, Retry-After, a window): `reason` says for what. */
  readonly wait = (ms: number, reason: string): void => {
    if (ms < 1000) return;
    this.waiting = { reason, untilMs: Date.now() + ms };
    this.emit(null);
  };

  private emit(event: ProgressSnapshot['event']): void {
    if (this.waiting && this.waiting.untilMs <= Date.now()) this.waiting = null;
    const snap: ProgressSnapshot = {
      running: [...this.running],
      sent: this.sent(),
      budget: this.budget,
      signatures: this.signatures.size,
      findings: this.fresh,
      waiting: this.waiting,
      event,
    };
    const text = JSON.stringify(snap);
    if (event === null && text === this.last) return;
    this.last = text;
    this.fresh = [];
    this.send(`${PROGRESS_MARK}${text}`);
  }
}

/** The snapshot in a worker's console line, or null when the line is something else. */
export function progressOf(line: string): ProgressSnapshot | null {
  if (!line.startsWith(PROGRESS_MARK)) return null;
  try {
    return JSON.parse(line.slice(PROGRESS_MARK.length)) as ProgressSnapshot;
  } catch {
    return null;
  }
}
