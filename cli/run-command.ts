/**
 * `petstore-conformance run`: configure, start the embedded target when none is given, check the target is there,
 * run the conformance suites through vitest (results come back through a reporter), then summarise, write reports and
 * return the exit code: 0 conformant, 1 violations, 2 usage, 3 unreachable or blocked.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Vitest } from 'vitest/node';
import {
  type Config,
  defaultConcurrency,
  type Flags,
  functionalKey,
  loadConfig,
  type PlanKey,
  isFunctionalSuite,
} from '../config/config.js';
import { ExitCode, exitCodeFor as exitCodeOfCode, HarnessError } from '../config/errors.js';
import { allowedOnTarget } from '../config/production.js';
import { ApiKey, registerSecret, scrub } from '../http/redact.js';
import { NO_PROXY_SETTINGS } from '../http/transport.js';
import type { ConformanceReport, SuiteOutcome } from '../reports/conformance-report.js';
import { HarWriter } from '../reports/har.js';
import type { RunLimitsReport } from '../reports/run-limits.js';
import type { StopCode } from '../runner/guard.js';
import { toWorkerConfig, type WorkerConfig } from '../suites/worker-config.js';
import { parseFlags } from './args.js';
import { connectionFacts } from './connection.js';
import { EMBEDDED_WINDOW_SECONDS, type EmbeddedServer, startEmbedded } from '../reference/launcher.js';
import type { Output } from './output.js';
import { Interrupt, type Interruption, withoutForeignSignalListeners } from './interrupt.js';
import { preflight } from './preflight.js';
import { createRunProgress, type RunProgress } from './progress.js';
import type { ProgressSnapshot } from '../suites/progress-feed.js';
import { stopChannelName, stopSender } from '../suites/stop-channel.js';
import type { SuiteReporter } from './suite-reporter.js';
import { toolVersion } from '../http/user-agent.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Built (dist/), the suite files are JavaScript beside this module; run from the sources (tests), TypeScript. */
const compiled = import.meta.url.endsWith('.js');
const suiteFile = (suite: string): string => `suites/${suite}.suite.${compiled ? 'js' : 'ts'}`;

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
  'max-duration': { type: 'string' },
  budget: { type: 'string' },
  'max-creates': { type: 'string' },
  'name-prefix': { type: 'string' },
  concurrency: { type: 'string' },
  quiet: { type: 'boolean' },
} as const;

/** Requests the CLI itself sends before the suites (the preflight's GET /pets): they count against the budget. */
const PREFLIGHT_REQUESTS = 1;

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
    maxDuration: values['max-duration'],
    budget: values.budget,
    maxCreates: values['max-creates'],
    namePrefix: values['name-prefix'],
    concurrency: values.concurrency,
    quiet: values.quiet,
  };
  let config = loadConfig(flags);
  await checkBaselineFlags(config);
  const startedAt = new Date();
  const t0 = performance.now();
  const deadline = startedAt.getTime() + config.maxDurationMs;
  let server: EmbeddedServer | null = null;
  let har: HarWriter | null = null;
  // HOOK (issue 22): SIGINT and SIGTERM stop the run through the guard (one more stop reason, as the deadline), and the
  // reports are written with what it has; a second signal ends the process at once, the partial HAR removed.
  // Lines of the CLI's own go above the live status line while it is drawn (cli/progress.ts).
  let progress: RunProgress | null = null;
  const interrupt = new Interrupt({
    startedAt: t0,
    announce: (line) => (progress ? progress.line(`petstore-conformance: ${line}`) : out.error(line)),
  }).install();
  const stopChannel = stopChannelName();
  const stopper = stopSender(stopChannel);
  let resendStop: NodeJS.Timeout | null = null;
  interrupt.onInterrupt(({ code, message }) => {
    stopper.send({ code, message });
    // Sent again until the run ends: a worker that has not subscribed yet (still starting) hears it then.
    resendStop = setInterval(() => stopper.send({ code, message }), 200);
    resendStop.unref();
  });
  if (config.harFile) {
    mkdirSync(dirname(resolve(config.harFile)), { recursive: true });
    const writer = new HarWriter(config.harFile, toolVersion());
    har = writer;
    interrupt.onAbandon(() => writer.abort());
  }
  // Start-up (issue 12): vitest starts while the embedded server starts and the preflight asks the target; neither
  // waits for the other. The suites' settings reach vitest later, by `provide`, before any suite file runs.
  // The report writers (ajv's report schema, the check registry) load once the first suite file is collected: the
  // main thread is then idle while the worker runs the suites, where earlier they would delay vitest's start.
  let reporting: Promise<Reporting> | null = null;
  const startReporting = (): Promise<Reporting> => {
    reporting ??= loadReporting();
    reporting.catch(() => {});
    return reporting;
  };
  const suites = prepareSuites(har, () => void startReporting());
  suites.catch(() => {});
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
    const functional = config.suites.filter(isFunctionalSuite);
    const pre = await preflight(config, key, functional);
    notes.push(...pre.notes);
    const budget = requestBudget(config, key, pre.remaining, server !== null);
    // Every case class of every functional suite first; the random phases share what the budget leaves.
    // runner/budget.ts loads every scenario (and with them the checks and ajv): after the preflight, not before it.
    const { planBudget } = await import('../runner/budget.js');
    const plan = planBudget(
      functional,
      pre.runs,
      budget.limit === null ? null : budget.limit - PREFLIGHT_REQUESTS,
      `the request budget (${budget.limit})`,
    );
    notes.push(...plan.notes);
    const runs = plan.runs;
    for (const n of notes) out.progress(`note: ${n}`);
    out.progress(
      `limits: time budget ${Math.round(config.maxDurationMs / 1000)} s (--max-duration); ` +
        (budget.limit === null
          ? 'no request budget'
          : `request budget ${budget.limit} (${budget.source === 'flag' ? '--budget' : "a quarter of the key's daily quota"})`) +
        (config.maxCreates === null ? '' : `; at most ${config.maxCreates} pets created (--max-creates)`),
    );
    // Suites side by side share one pacer (it counts requests in flight), so no count of lanes can outrun a window.
    const concurrency = config.concurrency ?? defaultConcurrency(key.limits, pre.limit);
    const worker = toWorkerConfig({
      target: config.target!,
      keys: config.keys,
      functionalKey: key,
      seed: config.seed,
      runs,
      strict: config.strict,
      windowSeconds: config.rateWindowSeconds,
      recordExchanges: config.harFile !== null,
      limits: {
        deadline,
        maxRequests: budget.limit === null ? null : Math.max(0, budget.limit - PREFLIGHT_REQUESTS),
        maxCreates: config.maxCreates,
        // A tight budget is shared out per suite (runner/budget.ts); suites with shares run one at a time.
        ...(plan.shares && { suiteEstimates: plan.shares }),
      },
      namePrefix: config.namePrefix,
      transport: config.transport,
      suites: config.suites,
      concurrency,
      stopChannel,
    });
    const connection = connectionFacts(config);
    for (const line of connection.lines) out.progress(line);
    out.progress(
      `running ${config.suites.join(', ')} against ${config.target} (seed ${config.seed}, runs ${runs}, concurrency ${concurrency}${config.concurrency === null ? ` from the ${key.plan} key's limits` : ''})`,
    );
    // HOOK (issue 22): the run's progress, from the worker's snapshots, on stderr while the suites run.
    const ready = await suites;
    if (out.status) {
      const p = createRunProgress(out.status, config.progress, { ci: config.isCi });
      progress = p;
      ready.onProgress((snap) => p.update(snap));
    }
    // A signal during the start-up: no suite starts (the reports say each did not run); later, the guard stops them.
    const { outcomes, errors } = interrupt.interruption
      ? { outcomes: [], errors: [] }
      : await ready.run(config.suites.map(suiteFile), worker);
    // A signal after the suites ended stopped nothing: the reports are then those of a whole run.
    const interruption = interrupt.interruption;
    progress?.end();
    progress = null;
    const r = await startReporting();
    const limits = runLimits(config, budget, outcomes, key.plan, interruption);
    const built = r.buildConformanceReport({
      tool: { name: 'petstore-conformance', version: toolVersion() },
      target: { url: config.target!, embedded: server !== null },
      seed: config.seed,
      runs,
      strict: config.strict,
      startedAt,
      durationMs: performance.now() - t0,
      outcomes,
      errors,
      notes,
      connection: connection.facts,
    });
    const withBaseline = config.baseline ? r.applyBaseline(built, config.baseline, config.updateBaseline) : built;
    // A deadline reached or a target slowing down blocks the run (exit 3): what ran is reported, not judged complete.
    const blocked = limits.stop !== null && r.blocksRun(limits.stop.code as StopCode);
    const report: RunReport = { ...withBaseline, ...(blocked ? { verdict: 'blocked' as const } : {}), run: limits };
    writeOutputs(report, config, har, out, r);
    // Interrupted: the signal's exit code (130, 143), once every report is on disk.
    return exitCodeFor(report);
  } finally {
    progress?.end();
    if (resendStop) clearInterval(resendStop);
    stopper.close();
    interrupt.uninstall();
    // Closed by writeOutputs when the run got that far; otherwise no partial HAR is left behind.
    har?.abort();
    await Promise.all([
      server?.close(),
      suites.then(
        (s) => s.close(),
        () => {},
      ),
    ]);
  }
}

/** What only building and writing the reports needs (ajv's report schema, the check registry, the writers). */
async function loadReporting() {
  const [report, text, junit, replay, baseline, runLimits, guard, gate] = await Promise.all([
    import('../reports/conformance-report.js'),
    import('../reports/conformance-text.js'),
    import('../reports/junit.js'),
    import('../reports/replay-file.js'),
    import('../reports/baseline.js'),
    import('../reports/run-limits.js'),
    import('../runner/guard.js'),
    import('../reports/secret-gate.js'),
  ]);
  return {
    buildConformanceReport: report.buildConformanceReport,
    renderMarkdown: text.renderMarkdown,
    renderTerminalSummary: text.renderTerminalSummary,
    renderJunit: junit.renderJunit,
    writeReplays: replay.writeReplays,
    applyBaseline: baseline.applyBaseline,
    renderRunLimits: runLimits.renderRunLimits,
    renderRunLimitsMarkdown: runLimits.renderRunLimitsMarkdown,
    runLimitsLine: runLimits.runLimitsLine,
    blocksRun: guard.blocksRun,
    guardSecrets: gate.guardSecrets,
  };
}
type Reporting = Awaited<ReturnType<typeof loadReporting>>;

/** A baseline to compare with must be readable before the run spends its requests. */
async function checkBaselineFlags(config: Config): Promise<void> {
  if (config.updateBaseline && !config.baseline)
    throw new HarnessError('PSC_USAGE', '--update-baseline needs --baseline FILE (the file to write)');
  if (!config.baseline || config.updateBaseline) return;
  if (!existsSync(config.baseline))
    throw new HarnessError('PSC_USAGE', `baseline ${config.baseline} does not exist (write it with --update-baseline)`);
  const { readBaseline } = await import('../reports/baseline.js');
  try {
    readBaseline(config.baseline);
  } catch (e) {
    throw new HarnessError('PSC_USAGE', (e as Error).message);
  }
}

export function exitCodeFor(report: RunReport): number {
  // A signal's stop exits with its own code (130, 143); any other stop that blocks the run, 3.
  const stop = report.run.stop?.code;
  if (stop === 'PSC_SIGINT' || stop === 'PSC_SIGTERM') return exitCodeOfCode(stop);
  if (report.verdict === 'blocked') return ExitCode.blocked;
  return report.verdict === 'violations' ? ExitCode.violations : ExitCode.conformant;
}

/** The conformance report with what the run's limits did. */
export type RunReport = ConformanceReport & { readonly run: RunLimitsReport };

interface Budget {
  readonly limit: number | null;
  readonly source: RunLimitsReport['budget']['source'];
}

/**
 * --budget if given; else, against a real target, a quarter of what the functional key has for the day (its plan's
 * daily quota, or less when the headers say less remains), so that the gate can run again the same day.
 */
export function requestBudget(config: Config, key: PlanKey, remaining: number | null, embedded: boolean): Budget {
  if (config.budget !== null) return { limit: config.budget, source: 'flag' };
  // Asking for the quota suite is asking to spend the smallest key's whole day: no default cap then.
  if (embedded || !key.limits || config.suites.includes('quota')) return { limit: null, source: 'none' };
  const { requestsPerMinute, requestsPerDay } = key.limits;
  // A Remaining at or below the minute limit speaks for the minute window, not the day.
  const dayLeft =
    remaining !== null && remaining > requestsPerMinute ? Math.min(remaining, requestsPerDay) : requestsPerDay;
  return { limit: Math.max(PREFLIGHT_REQUESTS + 1, Math.floor(dayLeft / 4)), source: 'quota' };
}

/** Ids ascending: integers by value (the target's ids may pass 2^53), anything else after them as text. */
function inIdOrder(ids: readonly string[]): string[] {
  const value = (id: string) => (/^-?\d{1,400}$/.test(id) ? BigInt(id) : null);
  return [...ids].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0;
    if (x !== null || y !== null) return x !== null ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}

function runLimits(
  config: Config,
  budget: Budget,
  outcomes: readonly SuiteOutcome[],
  functionalPlan: string,
  interruption: Interruption | null = null,
): RunLimitsReport {
  // The guard is shared by the suites in turn: the latest snapshot is the run's.
  const snaps = outcomes.flatMap((o) => (o.meta.guard ? [o.meta.guard] : []));
  const last = snaps.reduce<(typeof snaps)[number] | null>((a, b) => (a === null || b.sent >= a.sent ? b : a), null);
  const keys = Object.entries(last?.byKey ?? {}).map(([plan, k]) => ({
    plan,
    ...k,
    // The preflight's request went with the functional key.
    sent: k.sent + (plan === functionalPlan ? PREFLIGHT_REQUESTS : 0),
  }));
  if (!keys.some((k) => k.plan === functionalPlan))
    keys.push({
      plan: functionalPlan,
      sent: PREFLIGHT_REQUESTS,
      headerLimit: null,
      headerRemaining: null,
      headerReset: null,
    });
  const leftOut: string[] = [];
  const ran = new Set(outcomes.map((o) => o.meta.suite));
  for (const o of outcomes)
    if (o.meta.stopped)
      leftOut.push(`${o.meta.suite}: stopped after ${o.meta.exchanges} requests (${o.meta.stopped.message})`);
  for (const s of config.suites) if (!ran.has(s)) leftOut.push(`${s}: did not run`);
  // Inside the suites that ran: random phases the budget cut short.
  leftOut.push(...(last?.leftOut ?? []));
  return {
    maxDurationSeconds: Math.round(config.maxDurationMs / 1000),
    budget: { limit: budget.limit, source: budget.source, sent: (last?.sent ?? 0) + PREFLIGHT_REQUESTS, leftOut },
    maxCreates: config.maxCreates,
    // In id order, not arrival order: suites side by side (--concurrency) interleave their creations.
    created: { count: last?.createdIds.length ?? 0, ids: inIdOrder(last?.createdIds ?? []) },
    keys: keys.sort((a, b) => a.plan.localeCompare(b.plan)),
    // A signal is the stop the reports name, whatever limit the guard met before it (cli/interrupt.ts).
    stop: interruption ? { code: interruption.code, message: interruption.message } : (last?.stop ?? null),
  };
}

function writeOutputs(report: RunReport, config: Config, har: HarWriter | null, out: Output, r: Reporting): void {
  const { guardSecrets, renderJunit, renderMarkdown, renderRunLimits, renderRunLimitsMarkdown, renderTerminalSummary } =
    r;
  // The last gate: nothing leaves the process with a key in it.
  const summary = guardSecrets(renderTerminalSummary(report) + renderRunLimits(report.run), 'terminal summary');
  out.result(summary);
  const files: [string, string][] = [];
  if (config.jsonReport) files.push([config.jsonReport, `${JSON.stringify(report, null, 2)}\n`]);
  // One test case per distinct defect; messages quote the target, so the text is scrubbed like the curl lines.
  if (config.junitReport) files.push([config.junitReport, scrub(renderJunit(report))]);
  if (config.stepSummaryFile)
    appendFileSync(
      config.stepSummaryFile,
      guardSecrets(renderMarkdown(report) + renderRunLimitsMarkdown(report.run), 'step summary'),
    );
  for (const [path, text] of files) {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, guardSecrets(text, path));
  }
  if (har) {
    const n = har.close(r.runLimitsLine(report.run));
    out.progress(`HAR: ${n} exchanges in ${har.path}`);
  }
  const violations = report.findings.filter((f) => f.level !== 'observation');
  if (config.replayDir && violations.length) {
    const written = r.writeReplays(config.replayDir, report, violations);
    out.progress(`replay files: ${written.length} in ${config.replayDir}`);
  }
}

interface Collected {
  readonly outcomes: SuiteOutcome[];
  readonly errors: string[];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface SuiteRun {
  run(files: readonly string[], worker: WorkerConfig): Promise<Collected>;
  /** `fn` hears the run's progress as the worker reports it. */
  onProgress(fn: (snap: ProgressSnapshot) => void): void;
  close(): Promise<void>;
}

/**
 * Creates vitest for the suite files (its node API, no config file) before the run's settings are known: loading
 * vitest and starting its server is most of the start-up, and it overlaps the embedded server's start and the
 * preflight. Configuration goes in by `provide`, results come back by reporter (exchanges to `har`); `onCollected`
 * says the worker has loaded a suite file (and with it the harness).
 */
async function prepareSuites(har: HarWriter | null, onCollected: () => void): Promise<SuiteRun> {
  const [{ createVitest }, { suiteVitestOptions }, reporter] = await Promise.all([
    import('vitest/node'),
    import('../suites/vitest-options.js'),
    // It imports vitest itself (through suites/meta.ts): loaded with vitest, not before the preflight.
    import('./suite-reporter.js'),
  ]);
  const collector: SuiteReporter = new reporter.SuiteReporter(root, har);
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const exitCode = process.exitCode;
  // HOOK (issue 22): vitest would end the process on a signal; the run's own graceful stop replaces it.
  const vitest: Vitest = await withoutForeignSignalListeners(() =>
    createVitest(
      'test',
      {
        ...suiteVitestOptions,
        config: false,
        root,
        include: [`suites/*.suite.${compiled ? 'js' : 'ts'}`],
        // Built, the harness is plain ESM that Node loads itself in the worker, faster than vite transforming each module.
        ...(compiled && { server: { deps: { external: [new RegExp(`^${escapeRegExp(root)}/`)] } } }),
        watch: false,
        reporters: [collector, { onTestModuleCollected: onCollected }],
        passWithNoTests: false,
      },
      {},
      { stdout: sink, stderr: sink },
    ),
  );
  process.exitCode = exitCode;
  let closed: Promise<void> | null = null;
  return {
    onProgress(fn) {
      collector.onProgress = fn;
    },
    async run(files, worker) {
      vitest.provide('petstore', worker);
      const errors: string[] = [];
      try {
        await vitest.start([...files]);
      } catch (e) {
        errors.push(`vitest: ${(e as Error)?.message ?? String(e)}`);
      } finally {
        // vitest sets the process's exit code from the tests' results; the verdict is ours to give.
        process.exitCode = exitCode;
      }
      errors.push(...collector.errors);
      if (!collector.finished) errors.push('vitest did not finish the run');
      return { outcomes: collector.outcomes, errors };
    },
    close() {
      closed ??= vitest.close();
      return closed;
    },
  };
}
