/**
 * Errors of the harness itself (not findings about the target), in one catalogue with stable codes. Callers match on
 * `code`; exit codes are mapped here and nowhere else.
 */
export const ExitCode = {
  conformant: 0,
  violations: 1,
  usage: 2,
  blocked: 3,
} as const;

const catalogue = {
  PSC_USAGE: { exit: ExitCode.usage, title: 'bad command line' },
  PSC_CONFIG: { exit: ExitCode.usage, title: 'bad configuration' },
  PSC_PRODUCTION_REFUSED: { exit: ExitCode.usage, title: 'refused to load production' },
  PSC_SPEC: { exit: ExitCode.usage, title: 'unusable specification' },
  PSC_UNREACHABLE: { exit: ExitCode.blocked, title: 'target unreachable' },
  PSC_TLS: { exit: ExitCode.blocked, title: 'TLS failure reaching the target' },
  PSC_PROXY: { exit: ExitCode.blocked, title: 'proxy failure reaching the target' },
  PSC_KEY_BANNED: { exit: ExitCode.blocked, title: 'API key banned or blocked' },
  PSC_QUOTA: { exit: ExitCode.blocked, title: 'quota cannot cover the run' },
  PSC_SECRET_LEAK: { exit: ExitCode.blocked, title: 'a secret would have been written' },
} as const;

export type HarnessErrorCode = keyof typeof catalogue;

export class HarnessError extends Error {
  readonly exitCode: number;
  constructor(
    readonly code: HarnessErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HarnessError';
    this.exitCode = catalogue[code].exit;
  }
}

export function exitCodeOf(e: unknown): number {
  return e instanceof HarnessError ? e.exitCode : ExitCode.blocked;
}

export const errorCatalogue = catalogue;
