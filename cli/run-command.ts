/**
 * `petstore-conformance run`: configure, start the embedded target when none is given, check the target is there,
 * run the conformance suites through vitest (JUnit through vitest's own reporter), then summarise, write reports and
 * return the exit code: 0 conformant, 1 violations, 2 usage, 3 unreachable or blocked.
 */
import { mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  functionalKey,
  keyVariable,
  loadConfig,
  readEnv,
  transportEnv,
  type Config,
  type Flags,
} from '../config/config.js';
import { connectionFacts } from './connection.js';
import { ExitCode, HarnessError } from '../config/errors.js';
import { buildReport, type ConformanceReport, type SuiteOutcome } from '../reports/conformance-report.js';
import { renderMarkdown, renderSummary } from '../reports/conformance-text.js';
import { writeReplays } from '../reports/replay-file.js';
import { mergeHarParts } from '../reports/har.js';
import { guardSecrets } from '../reports/secret-gate.js';
import type { Finding } from '../checks/check.js';
import '../suites/meta.js';
import { parseFlags } from './args.js';
import { EMBEDDED_WINDOW_SECONDS, embeddedEnv, startEmbedded, type EmbeddedServer } from './embedded.js';
import { preflight } from './preflight.js';
import { scrub } from '../http/redact.js';
import { NO_PROXY_SETTINGS } from '../http/transport.js';
import { toolVersion } from './version.js';
import type { Output } from './output.js';

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
    allowProduction: values['allow-production'],
    envFile: values['env-file'],
    ca: values.ca,
    insecure: values.insecure,
  };
  let config = loadConfig(flags);
  const startedAt = new Date();
  const t0 = performance.now();
  let server: EmbeddedServer | null = null;
  const workerEnv: Record<string, string> = {};
  try {
    if (config.target === null) {
      server = await startEmbedded({
        windowSeconds: config.rateWindowGiven ? config.rateWindowSeconds : EMBEDDED_WINDOW_SECONDS,
      });
      Object.assign(workerEnv, embeddedEnv(server));
      // Keys and target now come from the server; seed and runs stay as first resolved (random seed, embedded default).
      const first = config;
      config = Object.freeze({
        ...loadConfig({ ...flags, target: server.url }, { ...readEnv(flags.envFile), ...workerEnv }),
        seed: first.seed,
        runs: first.runs,
        // The embedded server is on loopback: a corporate proxy from the environment could not reach it.
        transport: Object.freeze({ ...first.transport, proxy: NO_PROXY_SETTINGS }),
      });
      out.progress(`embedded reference server at ${server.url}`);
    }
    const notes: string[] = [];
    if (config.productionUrl === config.target && !config.allowProduction) {
      // The rate-limit and quota suites exhaust keys on purpose: never on production by accident.
      const loading: string[] = config.suites.filter((s) => s === 'rate-limit' || s === 'quota');
      if (loading.length > 0 && values.suite !== undefined) {
        throw new HarnessError(
          'PSC_PRODUCTION_REFUSED',
          `--suite ${loading.join(',')} exhausts keys on purpose: refusing ${config.target}, which is PETSTORE_PRODUCTION_URL (pass --allow-production to override)`,
        );
      }
      if (loading.length > 0) {
        config = Object.freeze({ ...config, suites: config.suites.filter((s) => !loading.includes(s)) });
        notes.push(
          `the target is PETSTORE_PRODUCTION_URL: the rate-limit suite was left out (pass --allow-production to include it)`,
        );
      }
    }
    const key = functionalKey(config)!;
    const functional = config.suites.filter((s) => FUNCTIONAL.includes(s));
    const pre = await preflight(config, key, functional);
    notes.push(...pre.notes);
    for (const n of notes) out.progress(`note: ${n}`);
    // The workers read the same configuration from their environment: keys may have come from --env-file.
    for (const k of config.keys) workerEnv[keyVariable(k.plan)] = k.key.reveal();
    const enterprise = config.keys.find((k) => k.plan === 'enterprise')?.limits;
    if (enterprise)
      workerEnv.PETSTORE_ENTERPRISE_LIMITS = `${enterprise.requestsPerMinute}/${enterprise.requestsPerDay}`;
    if (config.productionUrl) workerEnv.PETSTORE_PRODUCTION_URL = config.productionUrl;
    workerEnv.PETSTORE_RATE_WINDOW_SECONDS = String(config.rateWindowSeconds);
    Object.assign(workerEnv, {
      PETSTORE_TARGET: config.target!,
      PETSTORE_SEED: String(config.seed),
      PETSTORE_RUNS: String(pre.runs),
      PETSTORE_STRICT: config.strict ? '1' : '0',
      ...(config.harFile ? { PETSTORE_HAR_FILE: resolve(config.harFile) } : {}),
    });
    Object.assign(workerEnv, transportEnv(config.transport));
    if (server) workerEnv.PETSTORE_RATE_WINDOW_SECONDS = String(server.options.windowSeconds);
    const connection = connectionFacts(config);
    for (const line of connection.lines) out.progress(line);
    out.progress(
      `running ${config.suites.join(', ')} against ${config.target} (seed ${config.seed}, runs ${pre.runs})`,
    );
    const { outcomes, errors } = await runSuites(config, workerEnv);
    const report = buildReport({
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
    writeOutputs(report, config, out);
    return exitCodeFor(report);
  } finally {
    await server?.close();
  }
}

export function exitCodeFor(report: ConformanceReport): number {
  if (report.verdict === 'blocked') return ExitCode.blocked;
  return report.verdict === 'violations' ? ExitCode.violations : ExitCode.conformant;
}

function writeOutputs(report: ConformanceReport, config: Config, out: Output): void {
  // The last gate: nothing leaves the process with a key in it.
  const summary = guardSecrets(renderSummary(report), 'terminal summary');
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
    const n = mergeHarParts(
      config.harFile,
      config.suites.map((s) => `${config.harFile}.${s}.part`),
      report.tool.version,
    );
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

async function runSuites(
  config: Config,
  env: Record<string, string>,
): Promise<{ outcomes: SuiteOutcome[]; errors: string[] }> {
  // The workers inherit this process's environment; put it back afterwards so that nothing outlives the run.
  const previous = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await startAndCollect(config);
  } finally {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

async function startAndCollect(config: Config): Promise<{ outcomes: SuiteOutcome[]; errors: string[] }> {
  const { startVitest } = await import('vitest/node');
  const files = config.suites.map((s) => `suites/${s}.suite.ts`);
  const reporters: unknown[] = [{ onInit() {} }];
  if (config.junitReport)
    reporters.push(['junit', { outputFile: resolve(config.junitReport), suiteName: 'petstore-conformance' }]);
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const vitest = await startVitest(
    'test',
    files,
    {
      config: resolve(root, 'suites/vitest.config.ts'),
      root,
      watch: false,
      reporters: reporters as never,
      passWithNoTests: false,
    },
    {},
    { stdout: sink, stderr: sink },
  );
  process.exitCode = 0;
  const outcomes: SuiteOutcome[] = [];
  const errors: string[] = [];
  if (!vitest) return { outcomes, errors: ['vitest could not start'] };
  try {
    for (const mod of vitest.state.getTestModules()) {
      let meta: SuiteOutcome['meta'] | undefined;
      const findings: Finding[] = [];
      let failedTests = 0;
      for (const test of mod.children.allTests()) {
        const m = test.meta();
        if (m.suite) meta = m.suite;
        if (m.findings) findings.push(...m.findings);
        const r = test.result();
        if (r.state === 'failed') {
          failedTests++;
          if (!m.findings && !m.suite) errors.push(`${test.fullName}: ${r.errors?.[0]?.message ?? 'failed'}`);
        }
      }
      if (meta) outcomes.push({ meta, findings, failedTests });
      else {
        const err =
          mod.errors()[0]?.message ??
          [...mod.children.allTests()].map((t) => t.result().errors?.[0]?.message).find(Boolean);
        errors.push(`${mod.moduleId.replace(`${root}/`, '')}: the suite did not run${err ? `: ${err}` : ''}`);
      }
    }
    for (const e of vitest.state.getUnhandledErrors()) errors.push(`unhandled: ${(e as Error)?.message ?? String(e)}`);
  } finally {
    await vitest.close();
  }
  return { outcomes, errors };
}
