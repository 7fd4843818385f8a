/**
 * Where the CLI writes: the result to stdout, progress to stderr (one line per event when not a TTY). On a terminal a
 * live status line (a countdown, a load run's rate) is rewritten in place without a newline; whatever is written next,
 * and the end of the command, first clears that line, so no half-written status is left in front of the result or on
 * the shell's next line.
 */
import { scrub } from '../http/redact.js';
import { TOOL } from './args.js';
import type { ProgressStream } from './progress.js';

export interface Output {
  result(text: string): void;
  progress(line: string): void;
  error(line: string): void;
  /** Where a run's live progress is drawn (cli/progress.ts): the process's stderr; none in process (tests). */
  readonly status?: ProgressStream;
  /** The command has ended: leave the terminal on a clean line. */
  end?(): void;
}

/** Erases the current terminal line and returns to its start. */
export const CLEAR_LINE = '\r\x1b[2K';

export function processOutput(
  stdout: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> = process.stdout,
  stderr: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> = process.stderr,
): Output {
  const clear = stderr.isTTY === true ? CLEAR_LINE : '';
  return {
    result: (text) => {
      if (clear && stdout.isTTY === true) stderr.write(clear);
      stdout.write(scrub(text));
    },
    progress: (line) => void stderr.write(`${clear}${scrub(line)}\n`),
    error: (line) => void stderr.write(`${clear}${TOOL}: ${scrub(line)}\n`),
    status: stderr,
    end: () => void (clear && stderr.write(clear)),
  };
}
