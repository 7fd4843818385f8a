/** Where the CLI writes: the result to stdout, progress to stderr (one line per event when not a TTY). */
import { scrub } from '../http/redact.js';
import type { ProgressStream } from './progress.js';

export interface Output {
  result(text: string): void;
  progress(line: string): void;
  error(line: string): void;
  /** Where a run's live progress is drawn (cli/progress.ts): the process's stderr; none in process (tests). */
  readonly status?: ProgressStream;
}

export function processOutput(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): Output {
  return {
    result: (text) => void stdout.write(scrub(text)),
    progress: (line) => void stderr.write(`${scrub(line)}\n`),
    error: (line) => void stderr.write(`petstore-conformance: ${scrub(line)}\n`),
    status: stderr,
  };
}
