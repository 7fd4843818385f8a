/**
 * `petstore-conformance run`: configure, start the embedded target when none is given, check the target is there,
 * run the conformance suites through vitest (JUnit through vitest's own reporter), then summarise, write reports and
 * return the exit code: 0 conformant, 1 violations, 2 usage, 3 unreachable or blocked.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Config, type Flags, functionalKey, loadConfig } from '../config/config.js';
import { ExitCode, HarnessError } from '../config/errors.js';
import { allowedOnTarget } from '../config/production.js';
import { ApiKey, registerSecret, scrub } from '../http/redact.js';
import { NO_PROXY_SETTINGS } from '../http/transport.js';
import { buildConformanceReport, type ConformanceReport, type SuiteOutcome } from '../reports/conformance-report.js';
import { renderMarkdown, renderTerminalSummary } from '../reports/conformance-text.js';
import { writeHar } from '../reports/har.js';
import { writeReplays } from '../reports/replay-file.js';
import { applyBaseline, readBaseline } from '../reports/baseline.js';
import { guardSecrets } from '../reports/secret-gate.js';
import type { ExchangeData } from '../suites/meta.js';
import { toWorkerConfig, type WorkerConfig } from '../suites/worker-config.js';
import { parseFlags } from './args.js';
import { connectionFacts } from './connection.js';
import { EMBEDDED_WINDOW_SECONDS, type EmbeddedServer, startEmbedded } from '../reference/launcher.js';
import type { Output } from './output.js';
import { preflight } from './preflight.js';
import { SuiteReporter } from './suite-reporter.js';
import { toolVersion } from './version.js';

const FUNCTIONAL = ['auth', 'listPets', 'createPet', 'getPet', 'stateful'];
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const runOptions = {
  target: { type: 'string' },
  suite: { type: 'string', multiple: true },
  seed: { type: 'string' },
  runs: { type: 'string' },
  strict: { type: 'boolean' },
  json: { type: 'string' },
  junit: { type: 'string' },
  har: { type: 'string' },
  'replay-dir': { type: 'string' },
  baseline: { type: 'string' },
  'update-baseline': { type: 'boolean' },
  'allow-production': { type: 'boolean' },
  'env-file': { type: 'string' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
} as const;

export async function runCommand(argv: string[], out: Output): Promise<number> {
  const { values } = parseFlags(argv, runOptions);
  const flags: Flags = {
    target: values.target,
    suite: values.suite,
    seed: values.seed,
    runs: values.runs,
    strict: values.strict,
    json: values.json,
    junit: values.junit,
    har: values.har,
    replayDir: values['replay-dir'],
    baseline: values.baseline,
    updateBaseline: values['update-baseline'],
    allowProduction: values['allow-production'],
    envFile: values['env-file'],
    ca: values.ca,
    insecure: values.insecure,
  };
  let config = loadConfig(flags);
  checkBaselineFlags(config);
  const startedAt = new Date();
  const t0 = performance.now();
  let server: EmbeddedServer | null = null;
  try {
    if (config.target === null) {
      server = await startEmbedded({
        windowSeconds: config.rateWindowGiven ? config.rateWindowSeconds : EMBEDDED_WINDOW_SECONDS,
      });
      // Target, keys and window now come from the server; everything else stays as resolved.
      config = Object.freeze({
        ...config,
        target: server.url,
        keys: server.keys.map((k) => ({
          plan: k.plan,
          key: registerSecret(new ApiKey(k.key, k.plan)),
          limits: k.limits,
        })),
        rateWindowSeconds: server.options.windowSeconds,
        // The embedded server is on loopback: a corporate proxy from the environment could not reach it.
        transport: Object.freeze({ ...config.transport, proxy: NO_PROXY_SETTINGS }),
      });
      out.progress(`embedded reference server at ${server.url}`);
    }
    const notes: string[] = [];
    // The rate-limit and quota suites exhaust keys on purpose: never on production by accident.
    const exhausting: string[] = config.suites.filter((s) => s === 'rate-limit' || s === 'quota');
    if (
      exhausting.length > 0 &&
      !allowedOnTarget(config, `--suite ${exhausting.join(',')}`, values.suite !== undefined)
    ) {
      config = Object.freeze({ ...config, suites: config.suites.filter((s) => !exhausting.includes(s)) });
      notes.push(
        `the target is PETSTORE_PRODUCTION_URL: the rate-limit suite was left out (pass --allow-production to include it)`,
      );
    }
    const key = functionalKey(config)!;
    const functional = config.suites.filter((s) => FUNCTIONAL.includes(s));
    const pre = await preflight(config, key, functional);
    notes.push(...pre.notes);
    for (const n of notes) out.progress(`note: ${n}`);
    const worker = toWorkerConfig({
      target: config.target!,
      keys: config.keys,
      functionalKey: key,
      seed: config.seed,
      runs: pre.runs,
      strict: config.strict,
      windowSeconds: config.rateWindowSeconds,
      recordExchanges: config.harFile !== null,
      transport: config.transport,
    });
    const connection = connectionFacts(config);
    for (const line of connection.lines) out.progress(line);
    out.progress(
      `running ${config.suites.join(', ')} against ${config.target} (seed ${config.seed}, runs ${pre.runs})`,
    );
    const { outcomes, errors, exchanges } = await runSuites(config, worker);
    const built = buildConformanceReport({
      tool: { name: 'petstore-conformance', version: toolVersion() },
      target: { url: config.target!, embedded: server !== null },
      seed: config.seed,
      runs: pre.runs,
      strict: config.strict,
      startedAt,
      durationMs: performance.now() - t0,
      outcomes,
      errors,
      notes,
      connection: connection.facts,
    });
    const report = config.baseline ? applyBaseline(built, config.baseline, config.updateBaseline) : built;
    writeOutputs(report, config, exchanges, out);
    return exitCodeFor(report);
  } finally {
    await server?.close();
  }
}

/** A baseline to compare with must be readable before the run spends its requests. */
function checkBaselineFlags(config: Config): void {
  if (config.updateBaseline && !config.baseline)
    throw new HarnessError('PSC_USAGE', '--update-baseline needs --baseline FILE (the file to write)');
  if (!config.baseline || config.updateBaseline) return;
  if (!existsSync(config.baseline))
    throw new HarnessError('PSC_USAGE', `baseline ${config.baseline} does not exist (write it with --update-baseline)`);
  try {
    readBaseline(config.baseline);
  } catch (e) {
    throw new HarnessError('PSC_USAGE', (e as Error).message);
  }
}

export function exitCodeFor(report: ConformanceReport): number {
  if (report.verdict === 'blocked') return ExitCode.blocked;
  return report.verdict === 'violations' ? ExitCode.violations : ExitCode.conformant;
}

function writeOutputs(
  report: ConformanceReport,
  config: Config,
  exchanges: readonly ExchangeData[],
  out: Output,
): void {
  // The last gate: nothing leaves the process with a key in it.
  const summary = guardSecrets(renderTerminalSummary(report), 'terminal summary');
  out.result(summary);
  const files: [string, string][] = [];
  if (config.jsonReport) files.push([config.jsonReport, `${JSON.stringify(report, null, 2)}\n`]);
  if (config.stepSummaryFile)
    appendFileSync(config.stepSummaryFile, guardSecrets(renderMarkdown(report), 'step summary'));
  for (const [path, text] of files) {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, guardSecrets(text, path));
  }
  if (config.harFile) {
    mkdirSync(dirname(resolve(config.harFile)), { recursive: true });
    const n = writeHar(config.harFile, exchanges, report.tool.version);
    out.progress(`HAR: ${n} exchanges in ${config.harFile}`);
  }
  if (config.junitReport) {
    // vitest wrote it, from messages that quote the target: scrub it, then scan it like anything else we write.
    const text = scrub(readFileSync(config.junitReport, 'utf8'));
    writeFileSync(config.junitReport, guardSecrets(text, config.junitReport));
  }
  const violations = report.findings.filter((f) => f.level !== 'observation');
  if (config.replayDir && violations.length) {
    const written = writeReplays(config.replayDir, report, violations);
    out.progress(`replay files: ${written.length} in ${config.replayDir}`);
  }
}

interface Collected {
  readonly outcomes: SuiteOutcome[];
  readonly errors: string[];
  readonly exchanges: ExchangeData[];
}

/** Runs the suite files through vitest's node API: configuration goes in by `provide`, results come back by reporter. */
async function runSuites(config: Config, worker: WorkerConfig): Promise<Collected> {
  const { startVitest } = await import('vitest/node');
  const files = config.suites.map((s) => `suites/${s}.suite.ts`);
  const collector = new SuiteReporter(root);
  const reporters: unknown[] = [collector];
  if (config.junitReport)
    reporters.push(['junit', { outputFile: resolve(config.junitReport), suiteName: 'petstore-conformance' }]);
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const exitCode = process.exitCode;
  const vitest = await startVitest(
    'test',
    files,
    {
      config: resolve(root, 'suites/vitest.config.ts'),
      root,
      watch: false,
      reporters: reporters as never,
      passWithNoTests: false,
      provide: { petstore: worker },
    },
    {},
    { stdout: sink, stderr: sink },
  );
  // vitest sets the process's exit code from the tests' results; the verdict is ours to give.
  process.exitCode = exitCode;
  if (!vitest) return { outcomes: [], errors: ['vitest could not start'], exchanges: [] };
  await vitest.close();
  const errors = [...collector.errors];
  if (!collector.finished) errors.push('vitest did not finish the run');
  return { outcomes: collector.outcomes, errors, exchanges: collector.exchanges };
}
