/**
 * The petstore-conformance command: dispatches to a subcommand and turns every harness error into its exit code
 * (0 conformant, 1 violations, 2 usage or configuration, 3 unreachable or blocked).
 */
import { ExitCode, HarnessError } from '../config/errors.js';
import { processOutput, type Output } from './output.js';
import { toolVersion } from '../http/user-agent.js';

const HELP = `petstore-conformance — does an HTTP service conform to the Pet Store Service Interface Specification?

Usage:
  petstore-conformance run [--target URL] [--suite NAME]... [--seed N] [--runs N] [--strict]
                           [--json FILE] [--junit FILE] [--har FILE] [--replay-dir DIR] [--env-file FILE]
                           [--ca FILE] [--insecure]
                           [--max-duration 30m] [--budget N] [--max-creates N] [--name-prefix psc-gate-]
                           [--concurrency N] [--baseline FILE [--update-baseline]] [--allow-production] [--quiet]
  petstore-conformance serve [--port N] [--window SECONDS] [--algorithm fixed-window|sliding-window|token-bucket]
                             [--fault ID[,ID]...]...
  petstore-conformance serve --list-faults [--json]
  petstore-conformance load [--profile smoke|nightly] [--target URL] [--out DIR] [--thresholds FILE] [--allow-production] [--quiet]
  petstore-conformance report merge DIR... [--out DIR]
  petstore-conformance replay FILE [--target URL] [--ca FILE] [--insecure]

With no --target (and no PETSTORE_TARGET) it starts an embedded reference Pet Store and runs against it.
Suites: auth, listPets, createPet, getPet, stateful, robustness, rate-limit (default: all of these), quota (opt-in).
Environment: PETSTORE_TARGET, PETSTORE_API_KEY_FREE|PRO|BUSINESS|ENTERPRISE, PETSTORE_ENTERPRISE_LIMITS=rpm/rpd,
             PETSTORE_PRODUCTION_URL, PETSTORE_SEED, PETSTORE_RUNS, PETSTORE_MAX_DURATION, PETSTORE_BUDGET,
             PETSTORE_CONCURRENCY (a .env file is read too); HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS,
             PETSTORE_ACCEPT_ENCODING (default gzip).
Exit codes: 0 conformant, 1 violations, 2 usage or configuration error, 3 target unreachable (TLS, proxy) or run
            blocked (including a reached --max-duration and a target that keeps slowing down).
`;

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
        return await (await import('./report-command.js')).reportCommand(rest);
      case 'replay':
        return await (await import('./replay-command.js')).replayCommand(rest, out);
      case '--version':
      case 'version':
        out.result(`${toolVersion()}\n`);
        return ExitCode.conformant;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        out.result(HELP);
        return command === undefined ? ExitCode.usage : ExitCode.conformant;
      default:
        throw new HarnessError('PSC_USAGE', `unknown command "${command}" (run, serve, load, report, replay)`);
    }
  } catch (e) {
    if (e instanceof HarnessError) {
      out.error(`${e.message} [${e.code}]`);
      return e.exitCode;
    }
    out.error(`internal error: ${(e as Error)?.stack ?? String(e)}`);
    return ExitCode.blocked;
  }
}

function loadIo(out: Output) {
  return {
    stderr: { isTTY: false, write: (t: string) => out.progress(t.replace(/\n$/, '')) },
    stdout: { write: (t: string) => out.result(t) },
  };
}
