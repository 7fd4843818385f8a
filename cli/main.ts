/**
 * The petstore-conformance command: dispatches to a subcommand and turns every harness error into its exit code
 * (0 conformant, 1 violations, 2 usage or configuration, 3 unreachable or blocked). Every error is printed the same
 * way (cli/args.ts `errorReport`), the usage only after a usage error.
 */
import { ENVIRONMENT } from '../config/environment.js';
import { ExitCode } from '../errors/catalogue.js';
import { toolVersion } from '../http/user-agent.js';
import { errorReport, suggestion, TOOL, UsageError, usageText } from './args.js';
import { COMMANDS, suiteList } from './commands.js';
import { processOutput, type Output } from './output.js';

/** The variables of config/environment.ts, by name, in lines under the heading. */
function environmentNames(): string {
  const lines: string[] = [];
  let line = ' ';
  for (const name of ENVIRONMENT.flatMap((v) => v.names)) {
    if (line.length + name.length + 2 > 118) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${name},`;
  }
  return [...lines, line.replace(/,$/, '')].join('\n');
}

/** The top-level help: every command's usage, generated from its options table, then what they share. */
function topLevelHelp(): string {
  return `${TOOL} — does an HTTP service conform to the Pet Store Service Interface Specification?

Usage:
${COMMANDS.map((c) => usageText(c, '  ')).join('\n')}
  ${TOOL} COMMAND --help          that command's options, each with its meaning
  ${TOOL} --version

With no --target (and no PETSTORE_TARGET) run starts an embedded reference Pet Store and runs against it; in CI
(CI=true) only when asked for with --embedded, so that a forgotten target cannot pass.
Suites: ${suiteList}.
Environment (a .env file is read too; each variable's meaning: docs/reference.md):
${environmentNames()}
Exit codes: 0 conformant, 1 violations, 2 usage or configuration error, 3 target unreachable (TLS, proxy) or run
            blocked (including a reached --max-duration, a target that keeps slowing down, and a run that left
            suites out under --require-complete), 130 or 143 stopped by SIGINT or SIGTERM (every report written; a
            second signal ends it at once).
`;
}

/** The commands `main` dispatches to, in the order the help lists them (report merge and report html are one). */
const commandNames = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))];

const commandList = `${TOOL} ${commandNames.join('|')} ... (${TOOL} --help)`;

export async function main(argv: string[], given?: Output): Promise<number> {
  const out = given ?? processOutput();
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await (await import('./run-command.js')).runCommand(rest, out);
      case 'serve':
        return await (await import('./serve-command.js')).serveCommand(rest, out);
      case 'load':
        // A caller's Output (tests, embedding) receives load's text too; the terminal keeps load's own TTY progress.
        return await (await import('./load-command.js')).loadCommand(rest, given ? loadIo(given) : {});
      case 'report':
        return await (await import('./report-command.js')).reportCommand(rest, given ? loadIo(given) : {});
      case 'replay':
        return await (await import('./replay-command.js')).replayCommand(rest, out);
      case '--version':
      case '-V':
      case 'version':
        out.result(`${toolVersion()}\n`);
        return ExitCode.conformant;
      case '--help':
      case '-h':
      case 'help':
        out.result(topLevelHelp());
        return ExitCode.conformant;
      case undefined:
        throw new UsageError('no command given', `usage: ${commandList}`);
      default: {
        const hint = command.startsWith('-')
          ? suggestion(command, ['--help', '--version'])
          : suggestion(command, [...commandNames, 'help', 'version']);
        throw new UsageError(
          `unknown command "${command}"${hint} (commands: ${commandNames.join(', ')})`,
          `usage: ${commandList}`,
        );
      }
    }
  } catch (e) {
    const r = errorReport(e);
    out.error(r.line);
    if (r.usage !== null) out.progress(r.usage);
    return r.exitCode;
  } finally {
    // A status line rewritten in place (a countdown, a load run's rate) is not left on the shell's next line.
    out.end?.();
  }
}

function loadIo(out: Output) {
  return {
    stderr: { isTTY: false, write: (t: string) => out.progress(t.replace(/\n$/, '')) },
    stdout: { write: (t: string) => out.result(t) },
  };
}
