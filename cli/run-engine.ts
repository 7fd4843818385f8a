/**
 * A conformance run as the command conducts it: the target settled (the embedded reference server when none is
 * given; the rate-limit suites left out on production unless allowed), the preflight, the request budget and its plan,
 * the concurrency, then the run itself: vitest (its node API, options from suites/vitest-options.ts) runs the one suite
 * file, which builds the run (runner/run.ts) in its worker from the configuration provided here, and the outcome comes
 * back through a reporter (cli/suite-reporter.ts). Start-up overlaps (issue 12): vitest starts while the embedded
 * server starts and the preflight asks the target; the report writers load once the suite file is collected.
 * SIGINT and SIGTERM stop the run gracefully (issue 22, cli/interrupt.ts): the stop goes to the worker on a channel
 * named for the run (suites/stop-channel.ts), where it halts the run's limits, and the outputs are written with what
 * the run has. The run's progress, from the worker's snapshots, is drawn on stderr meanwhile (cli/progress.ts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Vitest } from 'vitest/node';
import { type Config, defaultConcurrency, functionalKey, isFunctionalSuite, type PlanKey } from '../config/config.js';
import { HarnessError } from '../errors/catalogue.js';
import { allowedOnTarget } from '../config/production.js';
import { NO_PROXY_SETTINGS } from '../http/transport.js';
import { toolVersion } from '../http/user-agent.js';
import { planKeys } from '../reference/keys.js';
import { EMBEDDED_WINDOW_SECONDS, type EmbeddedServer, startEmbedded } from '../reference/launcher.js';
import type { ConductedRun } from '../reports/conformance-outputs.js';
import { HarWriter } from '../reports/har.js';
import type { RunBudget } from '../reports/run-limits.js';
import type { RunOutcome } from '../runner/outcome.js';
import type { ProgressSnapshot } from '../suites/progress-feed.js';
import { toWorkerConfig, type WorkerConfig } from '../suites/worker-config.js';
import { TOOL } from './args.js';
import { connectionFacts } from './connection.js';
import { stopChannelName, stopSender } from '../suites/stop-channel.js';
import { Interrupt, withoutForeignSignalListeners } from './interrupt.js';
import type { Output } from './output.js';
import { preflight } from './preflight.js';
import { createRunProgress, type RunProgress } from './progress.js';
import { runNotes } from './run-notes.js';
import type { SuiteReporter } from './suite-reporter.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Built (dist/), the suite file is JavaScript beside this module; run from the sources (tests), TypeScript. */
const compiled = import.meta.url.endsWith('.js');
const SUITE_FILE = `suites/run.suite.${compiled ? 'js' : 'ts'}`;

/** Requests the CLI itself sends before the suites (the preflight's GET /pets): they count against the budget. */
const PREFLIGHT_REQUESTS = 1;

/** What only writing the outputs needs (ajv's report schema, the check registry, the writers): loaded once. */
type Outputs = typeof import('../reports/conformance-outputs.js');

/**
 * Conducts the run and writes its outputs (reports/conformance-outputs.ts, with the HAR while it is open), returning
 * the run's exit code. `suiteAskedFor`: whether --suite was given (asking for the rate-limit suite on production is
 * then refused, not left out).
 */
export async function conductRun(loaded: Config, out: Output, suiteAskedFor: boolean): Promise<number> {
  const startedAt = new Date();
  const t0 = performance.now();
  const deadline = startedAt.getTime() + loaded.maxDurationMs;
  let server: EmbeddedServer | null = null;
  let har: HarWriter | null = null;
  // SIGINT and SIGTERM stop the run through its limits (one more stop reason, as the deadline), and the outputs are
  // written with what it has; a second signal ends the process at once, the partial HAR removed. Lines of the
  // command's own go above the live status line while it is drawn (cli/progress.ts).
  let progress: RunProgress | null = null;
  // From the first second (issue 29): the suites about to run and the time, before the server, the preflight and
  // vitest are ready; the worker's snapshots take over once they come.
  if (out.status)
    progress = createRunProgress(out.status, loaded.progress, {
      ci: loaded.isCi,
      startedAt: startedAt.getTime(),
      starting: loaded.suites,
      countDefects: async () => {
        const { groupDefects } = await import('../reports/defects.js');
        return (findings) => groupDefects({ findings }).length;
      },
    });
  const interrupt = new Interrupt({
    startedAt: t0,
    announce: (line) => (progress ? progress.line(`${TOOL}: ${line}`) : out.error(line)),
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
  if (loaded.harFile) {
    mkdirSync(dirname(resolve(loaded.harFile)), { recursive: true });
    const writer = new HarWriter(loaded.harFile, toolVersion());
    har = writer;
    interrupt.onAbandon(() => writer.abort());
  }
  let outputs: Promise<Outputs> | null = null;
  const loadOutputs = (): Promise<Outputs> => {
    outputs ??= import('../reports/conformance-outputs.js');
    outputs.catch(() => {});
    return outputs;
  };
  // The suites' estimates (they load every scenario, the checks and ajv) for the plan said before the first request:
  // loaded while the embedded server starts and vitest is created.
  const planning = Promise.all([import('../runner/budget.js'), import('../runner/suites.js')]);
  planning.catch(() => {});
  const suites = prepareSuites(
    har,
    () => void loadOutputs(),
    (snap) => progress?.update(snap),
  );
  suites.catch(() => {});
  try {
    if (loaded.target === null) {
      server = await startEmbedded({
        windowSeconds: loaded.rateWindowGiven ? loaded.rateWindowSeconds : EMBEDDED_WINDOW_SECONDS,
      });
      out.progress(`embedded reference server at ${server.url}`);
    }
    const notes: string[] = [];
    const settled = settle(loaded, server, suiteAskedFor, notes);
    let config = settled.config;
    // Suites a policy or the budget kept from running, with why: the verdict says INCOMPLETE (reports/completeness.ts).
    const leftOutUpFront = settled.leftOut;
    const key = functionalKey(config)!;
    const functional = config.suites.filter(isFunctionalSuite);
    // The plan is said before the first request (the preflight's): what it measures, leaves out and how long it takes.
    const [
      { estimateRequests, fitDefault, planRun, planTime, durationWords, rateLimitNeed },
      { RATE_LIMIT_MINIMUM, suiteDefinition },
    ] = await planning;
    const planFor = (remaining: number | null, runs: number) => {
      const need = config.suites.includes('rate-limit')
        ? rateLimitNeed(config.keys, RATE_LIMIT_MINIMUM)
        : { total: 0, perKey: [] };
      const budget = requestBudget(config, key, remaining, server !== null, need.perKey);
      const room = budget.limit === null ? null : budget.limit - PREFLIGHT_REQUESTS;
      // A default budget keeps whole suites with real random phases rather than scaling every one to nothing.
      const fit =
        budget.source === 'quota'
          ? fitDefault(
              functional.map(suiteDefinition),
              runs,
              room,
              need,
              `the default request budget (${budget.limit}, a quarter of the ${key.plan} key's daily quota)`,
            )
          : { functional, rateLimit: need.total > 0, leftOut: [] as string[] };
      const kept = functional.filter((s) => fit.functional.includes(s));
      // Every case class of every functional suite first, then each key's rate limits; the random phases share the rest.
      const plan = planRun(
        kept.map(suiteDefinition),
        runs,
        room,
        fit.rateLimit ? need : { total: 0, perKey: [] },
        budget.limit,
      );
      const leftOut = [...fit.leftOut, ...(plan.leftOut === null ? [] : [plan.leftOut])];
      const suites = config.suites.filter((s) => !leftOut.some((l) => l.startsWith(`${s}: `)));
      // Keys whose limits a bounded burst can measure (a larger limit is not measured by design: no requests).
      const measured = need.perKey.filter((k) => k.requests > 0).map((k) => k.label);
      const rateKeys = suites.includes('rate-limit') ? measured.length : 0;
      // The random phases share what the budget leaves (runner/budget.ts): the run never sends more than the budget,
      // and the plan never says it will (a --budget 250 at runs 1 said "about 479 requests of a budget of 250").
      const functionalRequests = Math.min(
        PREFLIGHT_REQUESTS + Object.values(plan.suiteEstimates).reduce((n, e) => n + e.coverage + e.explore, 0),
        budget.limit === null ? Number.POSITIVE_INFINITY : Math.max(0, budget.limit - (rateKeys > 0 ? need.total : 0)),
      );
      const time = planTime(
        functionalRequests,
        rateKeys > 0 ? need.total : 0,
        key.limits?.requestsPerMinute ?? null,
        config.rateWindowSeconds,
        rateKeys,
      );
      const measures = [
        ...(kept.length > 0 ? [`${kept.join(', ')} (runs ${plan.runs}, on the ${key.plan} key)`] : []),
        ...(rateKeys > 0 ? [`the rate limits of the ${measured.join(', ')} key${rateKeys === 1 ? '' : 's'}`] : []),
        ...suites.filter((s) => s === 'quota'),
      ];
      const line =
        `plan: measures ${measures.join('; ') || 'nothing'}; leaves out ${leftOut.length > 0 ? leftOut.map((l) => l.split(':')[0]).join(', ') : 'nothing'}; ` +
        `about ${functionalRequests + (rateKeys > 0 ? need.total : 0)} requests${budget.limit === null ? '' : ` of a budget of ${budget.limit}`}, ` +
        `about ${durationWords(time.seconds)}${time.waitingSeconds > 0 ? ` (${durationWords(time.waitingSeconds)} of it waiting for rate-limit windows of ${config.rateWindowSeconds} s)` : ''}`;
      return { budget, room, plan, leftOut, suites, line };
    };
    const announced = planFor(null, config.runs);
    out.progress(announced.line);
    const pre = await preflight(config, key, functional);
    notes.push(...pre.notes);
    // The run's first exchange: in the HAR, and judged with the others (runner/preflight-outcome.ts).
    har?.append([pre.exchange]);
    const planned = planFor(pre.remaining, pre.runs);
    // The preflight may have learnt that less of the day is left: the plan that stands is said again when it changed.
    if (planned.line !== announced.line)
      out.progress(`${planned.line.replace(/^plan:/, 'plan (after the preflight):')}`);
    const { budget, room, plan } = planned;
    if (planned.leftOut.length > 0) {
      config = Object.freeze({ ...config, suites: planned.suites });
      // In the report once, among what was not measured; said now too, before the run spends its budget.
      leftOutUpFront.push(...planned.leftOut);
      for (const l of planned.leftOut) out.progress(`note: ${l}`);
    }
    const { reserved } = plan;
    // The functional suites' planned requests (within the budget) tell the status line how much is left.
    progress?.planned(
      Math.min(
        estimateRequests(config.suites.filter(isFunctionalSuite).map(suiteDefinition), plan.runs),
        room ?? Infinity,
      ),
    );
    notes.push(...plan.notes);
    // Each note once: --runs scaled by the quota and then by the budget is one note (cli/run-notes.ts).
    notes.splice(0, notes.length, ...runNotes(notes));
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
      runs: plan.runs,
      strict: config.strict,
      windowSeconds: config.rateWindowSeconds,
      recordExchanges: config.harFile !== null,
      limits: {
        deadline,
        maxRequests: room === null ? null : Math.max(0, room),
        maxCreates: config.maxCreates,
        // A tight budget is shared out per suite (runner/budget.ts); suites with shares run one at a time.
        ...(plan.shares && { suiteEstimates: plan.shares }),
        ...(reserved > 0 && { reserved }),
      },
      namePrefix: config.namePrefix,
      transport: config.transport,
      suites: config.suites,
      concurrency,
      stopChannel,
      embedded: server !== null,
    });
    const connection = connectionFacts(config);
    for (const line of connection.lines) out.progress(line);
    out.progress(
      `running ${config.suites.join(', ')} against ${config.target} (seed ${config.seed}, runs ${plan.runs}, concurrency ${concurrency}${config.concurrency === null ? ` from the ${key.plan} key's limits` : ''})`,
    );
    const ready = await suites;
    // A signal during the start-up: no suite starts (the reports say each did not run); later, the limits stop them.
    const { outcome, errors } = interrupt.interruption ? { outcome: null, errors: [] } : await ready.run(worker);
    // A signal after the suites ended stopped nothing: the reports are then those of a whole run.
    const interruption = interrupt.interruption;
    progress?.end();
    progress = null;
    const run: ConductedRun = {
      config,
      outcome,
      errors,
      notes,
      runs: plan.runs,
      budget,
      functionalPlan: key.plan,
      preflightRequests: PREFLIGHT_REQUESTS,
      embedded: server !== null,
      connection: connection.facts,
      startedAt,
      durationMs: performance.now() - t0,
      toolVersion: toolVersion(),
      interrupted: interruption && { code: interruption.code, message: interruption.message },
      requested: loaded.suites,
      leftOutUpFront,
      preflight: { exchange: pre.exchange, key },
    };
    // Awaited here: the outputs are written before the server closes and the HAR is let go.
    return await (await loadOutputs()).writeRunOutputs(run, har, out);
  } finally {
    progress?.end();
    if (resendStop) clearInterval(resendStop);
    stopper.close();
    interrupt.uninstall();
    // Closed by the outputs when the run got that far; otherwise no partial HAR is left behind.
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

/**
 * The configuration the run goes by, frozen once: the embedded server's target, keys and window when it runs one;
 * and without the suites that exhaust keys on purpose (rate-limit, quota) on production unless allowed, each of them
 * in `leftOut` with why (the note that says so goes to `notes`).
 */
function settle(
  loaded: Config,
  server: EmbeddedServer | null,
  suiteAskedFor: boolean,
  notes: string[],
): { readonly config: Config; readonly leftOut: string[] } {
  const target = server
    ? {
        target: server.url,
        // Its keys' values are registered as secrets as it starts (reference/launcher.ts).
        keys: planKeys(server.keys),
        rateWindowSeconds: server.options.windowSeconds,
        // The embedded server is on loopback: a corporate proxy from the environment could not reach it.
        transport: Object.freeze({ ...loaded.transport, proxy: NO_PROXY_SETTINGS }),
      }
    : {};
  const exhausting: string[] = loaded.suites.filter((s) => s === 'rate-limit' || s === 'quota');
  const refused =
    exhausting.length > 0 &&
    !allowedOnTarget({ ...loaded, ...target }, `--suite ${exhausting.join(',')}`, suiteAskedFor);
  if (refused)
    notes.push(
      `the target is PETSTORE_PRODUCTION_URL: the rate-limit suite was left out (pass --allow-production to include it)`,
    );
  const leftOut: string[] = refused
    ? exhausting.map(
        (s) => `${s}: not run: the target is PETSTORE_PRODUCTION_URL (pass --allow-production to include it)`,
      )
    : [];
  if (!server && !refused) return { config: loaded, leftOut };
  return {
    config: Object.freeze({
      ...loaded,
      ...target,
      ...(refused && { suites: loaded.suites.filter((s) => !exhausting.includes(s)) }),
    }),
    leftOut,
  };
}

/**
 * --budget if given; else, against a real target, a quarter of what the functional key has for the day (its plan's
 * daily quota, or less when the headers say less remains), so that the gate can run again the same day.
 */
export function requestBudget(
  config: Config,
  key: PlanKey,
  remaining: number | null,
  embedded: boolean,
  rateLimitKeys: readonly { readonly label: string; readonly requests: number }[] = [],
): RunBudget {
  if (config.budget !== null) return { limit: config.budget, source: 'flag' };
  // Asking for the quota suite is asking to spend the smallest key's whole day: no default cap then.
  if (embedded || !key.limits || config.suites.includes('quota')) return { limit: null, source: 'none' };
  const { requestsPerMinute, requestsPerDay } = key.limits;
  // A Remaining at or below the minute limit speaks for the minute window, not the day.
  const dayLeft =
    remaining !== null && remaining > requestsPerMinute ? Math.min(remaining, requestsPerDay) : requestsPerDay;
  // The rate-limit suite's minimum for the other keys comes from their own quotas, not the functional key's.
  const others = rateLimitKeys.filter((k) => k.label !== key.plan).reduce((n, k) => n + k.requests, 0);
  return { limit: Math.max(PREFLIGHT_REQUESTS + 1, Math.floor(dayLeft / 4)) + others, source: 'quota' };
}

interface Collected {
  readonly outcome: RunOutcome | null;
  readonly errors: string[];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface SuiteRun {
  run(worker: WorkerConfig): Promise<Collected>;
  close(): Promise<void>;
}

/**
 * Creates vitest for the suite file (its node API, no config file) before the run's settings are known: loading
 * vitest and starting its server is most of the start-up, and it overlaps the embedded server's start and the
 * preflight. Configuration goes in by `provide`, the outcome comes back by reporter (exchanges to `har`, progress to
 * `onProgress`); `onCollected` says the worker has loaded the suite file (and with it the harness).
 */
async function prepareSuites(
  har: HarWriter | null,
  onCollected: () => void,
  onProgress: (snap: ProgressSnapshot) => void,
): Promise<SuiteRun> {
  const [{ createVitest }, { suiteVitestOptions }, reporter] = await Promise.all([
    import('vitest/node'),
    import('../suites/vitest-options.js'),
    // It imports vitest itself (through suites/meta.ts): loaded with vitest, not before the preflight.
    import('./suite-reporter.js'),
  ]);
  const collector: SuiteReporter = new reporter.SuiteReporter(root, har, onProgress);
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const exitCode = process.exitCode;
  // vitest would end the process on a signal, a millisecond later, with no report written: the run's own graceful stop
  // replaces it (cli/interrupt.ts).
  const vitest: Vitest = await withoutForeignSignalListeners(() =>
    createVitest(
      'test',
      {
        ...suiteVitestOptions,
        config: false,
        root,
        include: [SUITE_FILE],
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
    async run(worker) {
      vitest.provide('petstore', worker);
      const errors: string[] = [];
      try {
        await vitest.start([SUITE_FILE]);
      } catch (e) {
        errors.push(`vitest: ${(e as Error)?.message ?? String(e)}`);
      } finally {
        // vitest sets the process's exit code from the tests' results; the verdict is ours to give.
        process.exitCode = exitCode;
      }
      errors.push(...collector.errors);
      if (!collector.finished) errors.push('vitest did not finish the run');
      return { outcome: collector.outcome, errors };
    },
    close() {
      closed ??= vitest.close();
      return closed;
    },
  };
}

/** A baseline to compare with must be readable before the run spends its requests. */
export async function checkBaselineFlags(config: Config): Promise<void> {
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
