/**
 * Errors of the harness itself (not findings about the target), in one catalogue with stable codes. Callers match on
 * the code (or the subclass that carries it), never on a message; exit codes are mapped here and nowhere else.
 */
export const ExitCode = {
  conformant: 0,
  violations: 1,
  usage: 2,
  blocked: 3,
  /** A run stopped by a signal exits as signals do: 128 + the signal's number, once its reports are written. */
  sigint: 130,
  sigterm: 143,
} as const;

const catalogue = {
  PSC_USAGE: { exit: ExitCode.usage, title: 'bad command line' },
  PSC_CONFIG: { exit: ExitCode.usage, title: 'bad configuration' },
  PSC_PRODUCTION_REFUSED: { exit: ExitCode.usage, title: 'refused to load production' },
  PSC_UNREACHABLE: { exit: ExitCode.blocked, title: 'target unreachable' },
  PSC_TLS: { exit: ExitCode.blocked, title: 'TLS failure reaching the target' },
  PSC_PROXY: { exit: ExitCode.blocked, title: 'proxy failure reaching the target' },
  PSC_KEY_BANNED: { exit: ExitCode.blocked, title: 'API key banned or blocked' },
  // A target that stops answering mid-suite is itself the finding (its transport-ok violations), not a blocked run.
  PSC_TARGET_STALLED: { exit: ExitCode.violations, title: 'target stopped answering' },
  PSC_SECRET_LEAK: { exit: ExitCode.blocked, title: 'a secret would have been written' },
  // Limits the user set stop a run without judging it: what ran keeps its verdict, the reports say what was left out.
  PSC_BUDGET: { exit: ExitCode.conformant, title: 'request budget spent' },
  PSC_MAX_CREATES: { exit: ExitCode.conformant, title: 'creation cap reached' },
  // A run that could not finish in time is not a verdict on the target: blocked, with every finding so far reported.
  PSC_MAX_DURATION: { exit: ExitCode.blocked, title: 'time budget reached' },
  PSC_TARGET_SLOWING: { exit: ExitCode.blocked, title: 'target keeps slowing down' },
  // A run stopped by a signal is not judged complete either (verdict blocked), and exits with the signal's code.
  PSC_SIGINT: { exit: ExitCode.sigint, title: 'interrupted by SIGINT' },
  PSC_SIGTERM: { exit: ExitCode.sigterm, title: 'interrupted by SIGTERM' },
} as const;

export type HarnessErrorCode = keyof typeof catalogue;

export class HarnessError<C extends HarnessErrorCode = HarnessErrorCode> extends Error {
  readonly exitCode: number;
  constructor(
    readonly code: C,
    message: string,
  ) {
    super(message);
    this.name = 'HarnessError';
    this.exitCode = exitCodeFor(code);
  }
}

/** The exit code of a code; codes also travel as data (a suite's abort reaches the report through task.meta). */
export function exitCodeFor(code: HarnessErrorCode): number {
  return catalogue[code].exit;
}

/** The signals that stop a run gracefully (cli/interrupt.ts), and the code of each. */
export const SIGNAL_CODES = { SIGINT: 'PSC_SIGINT', SIGTERM: 'PSC_SIGTERM' } as const;
export type StopSignal = keyof typeof SIGNAL_CODES;

export function exitCodeOf(e: unknown): number {
  return e instanceof HarnessError ? e.exitCode : ExitCode.blocked;
}

/** A key the target refuses, bans, or that the run cannot wait for: the suites stop using it. */
export class KeyBlockedError extends HarnessError {
  constructor(message: string) {
    super('PSC_KEY_BANNED', message);
    this.name = 'KeyBlockedError';
  }
}

/** Requests kept timing out: the suite stops rather than wait out every case. */
export class TargetStalledError extends HarnessError {
  constructor(message: string) {
    super('PSC_TARGET_STALLED', message);
    this.name = 'TargetStalledError';
  }
}
