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

/**
 * Each code's exit code, its title, and what to do about it: the remedy the reports of a run that could not start or
 * go on carry (reports/conformance-outputs.ts), so that a CI page says what to change, not only what went wrong.
 */
const catalogue = {
  PSC_USAGE: {
    exit: ExitCode.usage,
    title: 'bad command line',
    remedy: 'correct the command line as the message says (`petstore-conformance run --help` lists every flag)',
  },
  PSC_CONFIG: {
    exit: ExitCode.usage,
    title: 'bad configuration',
    remedy: 'correct the flag or variable the message names (in the GitHub Action: its input, or the secret behind it)',
  },
  PSC_PRODUCTION_REFUSED: {
    exit: ExitCode.usage,
    title: 'refused to load production',
    remedy: 'point the run at staging, or pass --allow-production when production is meant',
  },
  PSC_UNREACHABLE: {
    exit: ExitCode.blocked,
    title: 'target unreachable',
    remedy: 'check that the target is up and that its URL is reachable from where the run goes (host, port, proxy)',
  },
  PSC_TLS: {
    exit: ExitCode.blocked,
    title: 'TLS failure reaching the target',
    remedy: "trust the target's CA with --ca FILE (or NODE_EXTRA_CA_CERTS), or fix its certificate",
  },
  PSC_PROXY: {
    exit: ExitCode.blocked,
    title: 'proxy failure reaching the target',
    remedy: 'check HTTPS_PROXY, HTTP_PROXY and NO_PROXY (the proxy must be up and allow the target)',
  },
  PSC_KEY_BANNED: {
    exit: ExitCode.blocked,
    title: 'API key banned or blocked',
    remedy: 'wait until the ban is lifted, or give another key of the plan',
  },
  // A target that stops answering mid-suite is itself the finding (its transport-ok violations), not a blocked run.
  PSC_TARGET_STALLED: {
    exit: ExitCode.violations,
    title: 'target stopped answering',
    remedy: 'look at the target: it stopped answering during the run',
  },
  PSC_SECRET_LEAK: {
    exit: ExitCode.blocked,
    title: 'a secret would have been written',
    remedy: 'report this as a bug of petstore-conformance: a key reached a report and was held back',
  },
  // Limits the user set stop a run without judging it: what ran keeps its verdict, the reports say what was left out.
  PSC_BUDGET: {
    exit: ExitCode.conformant,
    title: 'request budget spent',
    remedy: 'raise --budget for a complete run',
  },
  PSC_MAX_CREATES: {
    exit: ExitCode.conformant,
    title: 'creation cap reached',
    remedy: 'raise --max-creates for a complete run',
  },
  // A run that could not finish in time is not a verdict on the target: blocked, with every finding so far reported.
  PSC_MAX_DURATION: {
    exit: ExitCode.blocked,
    title: 'time budget reached',
    remedy: 'raise --max-duration (and the job timeout above it), or run fewer suites or --runs',
  },
  PSC_TARGET_SLOWING: {
    exit: ExitCode.blocked,
    title: 'target keeps slowing down',
    remedy: 'look at the target under this load, or lower --concurrency',
  },
  // A run stopped by a signal is not judged complete either (verdict blocked), and exits with the signal's code.
  PSC_SIGINT: { exit: ExitCode.sigint, title: 'interrupted by SIGINT', remedy: 'run it again to completion' },
  PSC_SIGTERM: {
    exit: ExitCode.sigterm,
    title: 'interrupted by SIGTERM',
    remedy: "run it again; in CI keep the job's timeout above --max-duration",
  },
  // Anything the harness did not foresee: its own failure, not the target's.
  PSC_HARNESS: {
    exit: ExitCode.blocked,
    title: 'harness failure',
    remedy: 'run it again; if it persists, report it as a bug of petstore-conformance with the log',
  },
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

/** What to do about a code's error (the reports of a run that could not start or go on carry it). */
export function remedyFor(code: HarnessErrorCode): string {
  return catalogue[code].remedy;
}

/** The catalogue's code of any error: an error the harness did not foresee is its own failure, PSC_HARNESS. */
export function codeOf(e: unknown): HarnessErrorCode {
  return e instanceof HarnessError ? e.code : 'PSC_HARNESS';
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
