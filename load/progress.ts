/**
 * Progress on stderr: on a terminal, one line rewritten in place (scenario, time left, current req/s); otherwise plain
 * lines (start, every `plainEverySeconds`, end) that read well in CI logs.
 */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Progress {
  scenarioStarted(title: string, durationSeconds: number): void;
  /** Called about once a second with the responses of the last second. */
  tick(reqPerSec: number): void;
  scenarioDone(line: string): void;
  note(line: string): void;
}

export function createProgress(
  stream: ProgressStream = process.stderr,
  clock: () => number = Date.now,
  plainEverySeconds = 10,
): Progress {
  const tty = stream.isTTY === true;
  let title = '';
  let endsAt = 0;
  let lastPlain = 0;
  const left = () => Math.max(0, Math.ceil((endsAt - clock()) / 1000));
  return {
    scenarioStarted(t, durationSeconds) {
      title = t;
      endsAt = clock() + durationSeconds * 1000;
      lastPlain = clock();
      if (!tty) stream.write(`load: ${t} (up to ${durationSeconds}s)\n`);
    },
    tick(reqPerSec) {
      const text = `${title} · ${left()}s left · ${Math.round(reqPerSec)} req/s`;
      if (tty) stream.write(`\r\x1b[2K${text}`);
      else if (clock() - lastPlain >= plainEverySeconds * 1000) {
        lastPlain = clock();
        stream.write(`load: ${text}\n`);
      }
    },
    scenarioDone(line) {
      stream.write(tty ? `\r\x1b[2K${line}\n` : `load: ${line}\n`);
    },
    note(line) {
      stream.write(tty ? `\r\x1b[2K${line}\n` : `load: ${line}\n`);
    },
  };
}

/** A progress sink that writes nothing (tests, benchmarks). */
export const silentProgress: Progress = { scenarioStarted() {}, tick() {}, scenarioDone() {}, note() {} };
