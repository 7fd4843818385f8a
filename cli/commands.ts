/**
 * Every command's options table: the one source of its flags. The parser (cli/args.ts) reads its flags from here, and
 * every usage text — a command's `--help`, the usage printed with a usage error, the top-level help — is generated
 * from here, so a flag cannot be added without showing up everywhere it should. `main` reads it for `--help` and
 * "did you mean" without loading any command.
 */
import { DEFAULT_SUITES, SUITES } from '../config/config.js';
import { LIMITER_ALGORITHMS } from '../reference/limiter.js';
import type { Flag } from './args.js';

/** The suites in words, from the configuration's list: the default ones, then the opt-in ones. */
export const suiteList = `${DEFAULT_SUITES.join(', ')} (default: all of these), ${SUITES.filter(
  (s) => !DEFAULT_SUITES.includes(s),
)
  .map((s) => `${s} (opt-in)`)
  .join(', ')}`;

export interface CommandSpec {
  /** As typed after the tool's name: `run`, `report merge`. */
  readonly name: string;
  readonly summary: string;
  /** Positional arguments in the usage (`FILE`, `DIR...`), if any. */
  readonly positionals?: string;
  readonly flags: Readonly<Record<string, Flag>>;
  /** Lines after the options in the command's --help. */
  readonly notes?: readonly string[];
}

/** Flags several commands share, written once. */
const ENV_FILE = { type: 'string', value: 'FILE', help: 'read variables from this file (default .env)' } as const;
const CA_FILE = { type: 'string', value: 'FILE', help: 'also trust the CA certificate(s) of this PEM file' } as const;

/** Defines a command, keeping each flag's literal type (parseArgs types the values from it). */
const command = <const F extends Readonly<Record<string, Flag>>>(spec: Omit<CommandSpec, 'flags'> & { flags: F }) =>
  spec;

export const runCommandSpec = command({
  name: 'run',
  summary: 'runs the conformance suites against a target (with none given, against an embedded reference Pet Store)',
  flags: {
    target: { type: 'string', value: 'URL', help: 'base URL ending in /v1 (or PETSTORE_TARGET)' },
    embedded: {
      type: 'boolean',
      help: 'run against the embedded reference Pet Store (the default without a target, except in CI, where it is asked for)',
    },
    suite: {
      type: 'string',
      multiple: true,
      value: 'NAME',
      help: `repeatable or comma-separated: ${suiteList}`,
    },
    seed: { type: 'string', value: 'N', help: 'replay a whole run exactly (printed in every summary)' },
    runs: { type: 'string', value: 'N', help: 'cases per property (default 420 embedded, 100 against a target)' },
    strict: { type: 'boolean', help: 'warnings fail the run too' },
    json: { type: 'string', value: 'FILE', help: 'JSON report (and its HTML page beside it: r.json → r.html)' },
    html: { type: 'string', value: 'FILE', help: 'self-contained HTML page of the run (spec map, defect cards)' },
    'no-html': { type: 'boolean', help: 'with --json: no HTML page beside it' },
    junit: { type: 'string', value: 'FILE', help: 'JUnit XML, one test case per distinct defect' },
    har: { type: 'string', value: 'FILE', help: 'every exchange as HAR 1.2 (keys as placeholders)' },
    'replay-dir': { type: 'string', value: 'DIR', help: 'replay files of the defects, for `replay FILE`' },
    'env-file': ENV_FILE,
    ca: CA_FILE,
    insecure: { type: 'boolean', help: "do not verify the target's TLS certificate (stated in every report)" },
    'max-duration': {
      type: 'string',
      value: 'D',
      help: 'overall time budget, e.g. 90s, 15m, 1h (default 30m); reached, the run exits 3 with every report written',
    },
    budget: {
      type: 'string',
      value: 'N',
      help: "hard cap on the requests sent (default against a target: a quarter of the key's daily quota)",
    },
    'max-creates': { type: 'string', value: 'N', help: 'at most N pets created' },
    'name-prefix': {
      type: 'string',
      value: 'P',
      help: 'marks the names of the pets the run creates (default psc-gate-)',
    },
    concurrency: { type: 'string', value: 'N', help: "requests in flight at most (default from the key's plan)" },
    baseline: {
      type: 'string',
      value: 'FILE',
      help: 'known defects: exit 0 while only they remain, fail naming any new one',
    },
    'update-baseline': { type: 'boolean', help: "(re)write the --baseline FILE with this run's defects" },
    'require-complete': {
      type: 'boolean',
      help: 'exit 3 when a suite was left out or stopped early (budget, time limit, a refused key)',
    },
    'allow-production': { type: 'boolean', help: 'allow the rate-limit and quota suites on PETSTORE_PRODUCTION_URL' },
    quiet: { type: 'boolean', help: 'no progress on stderr (the status line, or the plain lines in CI or a pipe)' },
  },
});

export const serveCommandSpec = command({
  name: 'serve',
  summary: 'starts the reference Pet Store alone and prints its URL and keys (until interrupted)',
  flags: {
    port: { type: 'string', value: 'N', help: 'port on 127.0.0.1 (default: any free port)' },
    window: { type: 'string', value: 'SECONDS', help: 'length of the minute window (default 60)' },
    algorithm: {
      type: 'string',
      value: LIMITER_ALGORITHMS.join('|'),
      help: "the rate limiter's algorithm",
    },
    fault: {
      type: 'string',
      multiple: true,
      value: 'ID[,ID...]',
      help: 'switch faults of the catalogue on (repeatable or comma-separated)',
    },
    'seed-pets': { type: 'string', value: 'N', help: "start holding N pets that are not the client's" },
    'id-start': { type: 'string', value: 'ID', help: 'first id the server assigns (any int64)' },
    'list-order': { type: 'string', value: 'oldest-first|newest-first', help: 'order of GET /pets' },
    'list-faults': { type: 'boolean', help: 'print the fault catalogue and exit' },
    json: { type: 'boolean', help: 'with --list-faults: the catalogue as JSON' },
  },
});

export const loadCommandSpec = command({
  name: 'load',
  summary: 'runs a load profile and writes <out>/<UTC timestamp>/{report.json,report.html,summary.md}',
  flags: {
    profile: {
      type: 'string',
      default: 'smoke',
      value: 'smoke|nightly|FILE.json',
      help: 'the profile: a built-in one, or a profile file (default smoke)',
    },
    target: { type: 'string', value: 'URL', help: 'base URL ending in /v1 (default: an embedded reference server)' },
    embedded: {
      type: 'boolean',
      help: 'run against an embedded reference server (the default without a target, except in CI, where it is asked for)',
    },
    out: {
      type: 'string',
      default: 'reports',
      value: 'DIR',
      help: 'where reports and history.json go (default reports)',
    },
    thresholds: { type: 'string', value: 'FILE', help: 'thresholds that fail the run (exit 1)' },
    shard: { type: 'string', value: 'I/N', help: "run shard I of N: its share of every scenario's rate (1-based)" },
    'start-at': {
      type: 'string',
      value: 'TIME',
      help: 'start at this instant (ISO 8601 with its zone, or epoch seconds), so shards begin together',
    },
    'limiter-shards': {
      type: 'string',
      default: 'first',
      value: 'first|all',
      help: 'the per-plan limiter scenarios on shard 1 only (first) or on every shard with its own keys (all)',
    },
    samples: { type: 'string', value: 'FILE', help: 'write every raw latency sample to this file' },
    'env-file': ENV_FILE,
    'allow-production': { type: 'boolean', help: 'allow a load run on PETSTORE_PRODUCTION_URL' },
    quiet: { type: 'boolean', help: 'no progress on stderr (the live rate, or the plain lines in CI or a pipe)' },
  },
});

export const reportMergeCommandSpec = command({
  name: 'report merge',
  summary: 'merges the reports of load shards into one (see docs/sharding.md)',
  positionals: 'DIR...',
  flags: {
    out: {
      type: 'string',
      value: 'DIR',
      help: 'where the merged night goes: DIR/<UTC timestamp>-merged/ and DIR/history.json (default reports)',
    },
    thresholds: { type: 'string', value: 'FILE', help: 'thresholds the merged report is judged against' },
  },
});

export const reportHtmlCommandSpec = command({
  name: 'report html',
  summary: 'rebuilds the HTML page of a conformance run from its JSON report alone',
  positionals: 'FILE',
  flags: {
    out: { type: 'string', value: 'FILE', help: 'where the page goes (default: FILE with .html for .json)' },
  },
});

export const replayCommandSpec = command({
  name: 'replay',
  summary: 'judges a saved defect again: resends its request, or reruns the suite that found it (exit 1: still there)',
  positionals: 'FILE',
  flags: {
    target: { type: 'string', value: 'URL', help: 'send it here instead of the target it was recorded against' },
    'max-duration': {
      type: 'string',
      value: 'D',
      help: 'the longest a replay that reruns the suite that found the defect may take, e.g. 90s, 5m (default 30m)',
    },
    'env-file': ENV_FILE,
    ca: CA_FILE,
    insecure: { type: 'boolean', help: "do not verify the target's TLS certificate" },
  },
});

/** Every command, in the order the top-level help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  runCommandSpec,
  serveCommandSpec,
  loadCommandSpec,
  reportMergeCommandSpec,
  reportHtmlCommandSpec,
  replayCommandSpec,
];
