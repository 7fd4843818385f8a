/**
 * Configuration is read and validated once — flags, then the environment (and a .env file), then defaults — into a
 * frozen object. This is the only module that reads process.env. Every mistake is a HarnessError naming the flag or
 * variable, which the CLI turns into exit code 2.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { contract, type PlanLimits, type PlanName } from '../spec/contract.js';
import { isPlainPrefix, NAME_PREFIX_MAX } from '../generators/names.js';
import { ApiKey, registerSecret } from '../http/redact.js';
import {
  DEFAULT_ACCEPT_ENCODING,
  type ProxySettings,
  type ProxyVariable,
  type TransportSettings,
} from '../http/transport.js';
import { HarnessError } from '../errors/catalogue.js';
import { suggestion } from './suggest.js';

/** The functional suites: one operation's behaviour each (and their sequences); they may run side by side. */
export const FUNCTIONAL_SUITES = ['auth', 'listPets', 'createPet', 'getPet', 'stateful', 'robustness'] as const;
/** Every suite, in the order a run executes them: the rate-limit and quota suites, which exhaust keys, last. */
export const SUITES = [...FUNCTIONAL_SUITES, 'rate-limit', 'quota'] as const;
export type SuiteName = (typeof SUITES)[number];
/** Whether a suite is one of the functional suites. */
export const isFunctionalSuite = (s: string): boolean => (FUNCTIONAL_SUITES as readonly string[]).includes(s);
/** The suites that measure a key's limits (section 8): every suite that is not a functional one. */
export const isRateSuite = (s: string): boolean => (SUITES as readonly string[]).includes(s) && !isFunctionalSuite(s);
/** Suites a plain `run` executes; quota is opt-in (it spends a whole day's quota). */
export const DEFAULT_SUITES: readonly SuiteName[] = SUITES.filter((s) => s !== 'quota');

/** The CI job's summary page ($GITHUB_STEP_SUMMARY), where a command appends its Markdown summary; null outside CI. */
export function stepSummaryFileOf(env: Env): string | null {
  return env.GITHUB_STEP_SUMMARY || null;
}

export interface PlanKey {
  readonly plan: PlanName;
  readonly key: ApiKey;
  /** Per-minute and per-day limits of the key's plan (Enterprise: from PETSTORE_ENTERPRISE_LIMITS). */
  readonly limits: PlanLimits | null;
}

export interface Config {
  /** Base URL ending in /v1, or null to start the embedded reference server. */
  readonly target: string | null;
  readonly keys: readonly PlanKey[];
  readonly suites: readonly SuiteName[];
  readonly seed: number;
  readonly runs: number;
  readonly strict: boolean;
  readonly jsonReport: string | null;
  /** The HTML page of the run (--html; else beside --json: r.json → r.html). */
  readonly htmlReport: string | null;
  readonly junitReport: string | null;
  readonly harFile: string | null;
  readonly replayDir: string | null;
  /** Baseline of known defects (--baseline), and whether to rewrite it with this run's (--update-baseline). */
  readonly baseline: string | null;
  readonly updateBaseline: boolean;
  /** --require-complete: a run that left whole suites out (budget, time limit, keys) exits 3 whatever it found. */
  readonly requireComplete: boolean;
  readonly productionUrl: string | null;
  readonly allowProduction: boolean;
  /** Length of the reference server's minute window in seconds (tests shorten it). */
  readonly rateWindowSeconds: number;
  /** Whether PETSTORE_RATE_WINDOW_SECONDS was given (the embedded server then uses it instead of its short window). */
  readonly rateWindowGiven: boolean;
  readonly isCi: boolean;
  readonly stepSummaryFile: string | null;
  /** Overall time budget of a run (--max-duration); no request is sent past it. */
  readonly maxDurationMs: number;
  /** Hard cap on the requests a run sends (--budget), or null to derive it from the key's quota at start. */
  readonly budget: number | null;
  /** Most pets a run creates (--max-creates), or null for no cap. */
  readonly maxCreates: number | null;
  /** Marks the names of the pets a run creates (--name-prefix; empty: unmarked). */
  readonly namePrefix: string;
  /** Requests in flight at most (--concurrency), or null to choose from the key's plan and headers at start. */
  readonly concurrency: number | null;
  /** TLS trust (--ca, --insecure), proxies (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) and Accept-Encoding. */
  readonly transport: TransportSettings;
  /** The command as the user started it (`npx petstore-conformance`, …), for the command lines the reports print. */
  readonly invocation: string;
  /** How progress shows on stderr (cli/progress.ts). */
  readonly progress: ProgressSettings;
}

export interface ProgressSettings {
  /** --quiet: no progress at all. */
  readonly quiet: boolean;
  /** Seconds between plain progress lines in CI or a pipe (PETSTORE_PROGRESS_SECONDS, default 15). */
  readonly everySeconds: number;
  /** Colour: NO_COLOR says never, FORCE_COLOR (not 0) always; null leaves it to the terminal. */
  readonly color: boolean | null;
}

export interface Flags {
  target?: string | undefined;
  /** --embedded: run against the embedded reference server (under CI it runs only when asked for). */
  embedded?: boolean | undefined;
  suite?: string[] | string | undefined;
  seed?: string | undefined;
  runs?: string | undefined;
  strict?: boolean | undefined;
  json?: string | undefined;
  html?: string | undefined;
  noHtml?: boolean | undefined;
  junit?: string | undefined;
  har?: string | undefined;
  replayDir?: string | undefined;
  baseline?: string | undefined;
  updateBaseline?: boolean | undefined;
  requireComplete?: boolean | undefined;
  allowProduction?: boolean | undefined;
  envFile?: string | undefined;
  ca?: string | undefined;
  insecure?: boolean | undefined;
  maxDuration?: string | undefined;
  budget?: string | undefined;
  maxCreates?: string | undefined;
  namePrefix?: string | undefined;
  concurrency?: string | undefined;
  quiet?: boolean | undefined;
  /** The script the process runs (process.argv[1]), to print commands the way the user started the tool. */
  script?: string | undefined;
}

/** r.json → r.html (any other name gets .html appended): the page beside a JSON report. */
export const htmlPathBeside = (json: string): string => `${json.replace(/\.json$/i, '')}.html`;

/** The page of the run: --html FILE, else beside --json (r.json → r.html) unless --no-html. */
function htmlReportOf(flags: Flags): string | null {
  if (flags.noHtml && flags.html !== undefined) fail('--html and --no-html contradict each other: give one');
  if (flags.html !== undefined) return flags.html;
  return flags.json && !flags.noHtml ? htmlPathBeside(flags.json) : null;
}

/** What a run's pets are called unless --name-prefix says otherwise: one string an operator can search a store for. */
export const DEFAULT_NAME_PREFIX = 'psc-gate-';

/** A run that nobody bounds still ends: half an hour fits a CI job and covers the rate-limit suite on a real window. */
export const DEFAULT_MAX_DURATION_MS = 30 * 60 * 1000;

/** --max-duration: 90, 90s, 15m, 1h (a bare number is seconds). */
export function parseDuration(value: string, name: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!m) fail(`${name}: "${value}" is not a duration (e.g. 90s, 15m, 1h)`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = Math.round(Number(m[1]) * unit);
  if (ms < 1_000 || ms > 24 * 3_600_000) fail(`${name}: ${value} is out of range (1s..24h)`);
  return ms;
}

/**
 * Cases per property: the embedded target is local and generous (a default functional run checks some 3,100 exchanges
 * in about 3 s on two cores); a real target's key has a daily quota.
 */
export const DEFAULT_RUNS_EMBEDDED = 420;
export const DEFAULT_RUNS_TARGET = 100;

export type Env = Readonly<Record<string, string | undefined>>;

/** The environment as this process sees it, with a .env file (if any) filling what is not already set. */
export function readEnv(envFile = '.env', base: NodeJS.ProcessEnv = process.env): Env {
  const fromFile = existsSync(envFile) ? parseDotenv(readFileSync(envFile)) : {};
  return Object.freeze({ ...fromFile, ...base });
}

function fail(message: string): never {
  throw new HarnessError('PSC_CONFIG', message);
}

/** Validates a base URL: http(s), ending in the version segment /v1 (section 9). */
export function parseTarget(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(`${name}: "${value}" is not a URL (expected e.g. http://127.0.0.1:8080/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    fail(`${name}: only http and https URLs are supported, got ${url.protocol}`);
  if (url.search || url.hash) fail(`${name}: the base URL must not carry a query or fragment`);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/v1'))
    fail(`${name}: the base URL must end in the version segment /v1 (section 9), got ${url.pathname}`);
  if (url.username || url.password)
    fail(`${name}: credentials in the URL are not supported; use PETSTORE_API_KEY_<PLAN>`);
  return `${url.origin}${path}`;
}

function parseInteger(value: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim())) fail(`${name}: "${value}" is not a whole number`);
  const n = Number(value.trim());
  if (n < min || n > max) fail(`${name}: ${n} is out of range (${min}..${max})`);
  return n;
}

/** PETSTORE_ENTERPRISE_LIMITS=rpm/rpd, e.g. 120/5000. */
export function parseEnterpriseLimits(value: string, name = 'PETSTORE_ENTERPRISE_LIMITS'): PlanLimits {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  if (!m) fail(`${name}: "${value}" is not of the form rpm/rpd (e.g. 120/5000)`);
  const requestsPerMinute = Number(m[1]);
  const requestsPerDay = Number(m[2]);
  if (requestsPerMinute < 1 || requestsPerDay < 1) fail(`${name}: limits must be at least 1`);
  if (requestsPerDay < requestsPerMinute)
    fail(`${name}: the daily limit (${requestsPerDay}) is below the minute limit (${requestsPerMinute})`);
  return { requestsPerMinute, requestsPerDay };
}

export function keyVariable(plan: PlanName): string {
  return `PETSTORE_API_KEY_${plan.toUpperCase()}`;
}

/**
 * A value given as a flag, else in the environment, parsed under the name the user gave it (so an error names it);
 * null when neither is given or the text is empty.
 */
function flagOrEnv<T>(
  flag: string | undefined,
  flagName: string,
  envValue: string | undefined,
  envName: string,
  parse: (text: string, name: string) => T,
): T | null {
  const text = flag ?? envValue;
  return text === undefined || text === '' ? null : parse(text, flag !== undefined ? flagName : envName);
}

/**
 * The variables a user sets for these keys: the one inverse of the key reading below, for launching the CLI as a user
 * would (bench, tests). The CLI itself never turns its configuration back into variables.
 */
export function keyEnv(
  keys: readonly { readonly plan: PlanName; readonly key: string; readonly limits: PlanLimits | null }[],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of keys) {
    const name = keyVariable(k.plan);
    // A second key of a plan joins the first as a comma list (key1,key2), as loadConfig reads it.
    env[name] = env[name] === undefined ? k.key : `${env[name]},${k.key}`;
    if (k.plan === 'enterprise' && k.limits)
      env.PETSTORE_ENTERPRISE_LIMITS = `${k.limits.requestsPerMinute}/${k.limits.requestsPerDay}`;
  }
  return env;
}

/** Where a run's reports go: the files its flags ask for and the CI job's summary page. */
export interface ReportPaths {
  readonly jsonReport: string | null;
  readonly htmlReport: string | null;
  readonly junitReport: string | null;
  readonly stepSummaryFile: string | null;
}

/**
 * The reports the flags ask for, read without judging anything else: a run whose configuration is refused still
 * writes them (saying why, cli/run-command.ts). Lenient on purpose: a mistake here leaves that report out, nothing
 * more (the configuration's own reading names it).
 */
export function reportPathsOf(flags: Flags): ReportPaths {
  let env: Env = process.env;
  try {
    env = readEnv(flags.envFile);
  } catch {
    // An unreadable env file is the configuration's error to name; the summary page then comes from the process.
  }
  let htmlReport: string | null = flags.html ?? null;
  try {
    htmlReport = htmlReportOf(flags);
  } catch {
    // --html with --no-html: the page the user named, if any.
  }
  return {
    jsonReport: flags.json || null,
    htmlReport: htmlReport || null,
    junitReport: flags.junit || null,
    stepSummaryFile: stepSummaryFileOf(env),
  };
}

/** The target the flags or the environment name, as given (for the reports of a run refused before it is read). */
export function targetTextOf(flags: Flags): string {
  try {
    return flags.target ?? readEnv(flags.envFile).PETSTORE_TARGET ?? '';
  } catch {
    return flags.target ?? '';
  }
}

/** CI=true (GitHub Actions, GitLab, most runners) or CI=1. */
export const isCiEnv = (env: Env): boolean => env.CI === 'true' || env.CI === '1';

export function loadConfig(flags: Flags = {}, env: Env = readEnv(flags.envFile)): Config {
  const rawTarget = flags.target ?? env.PETSTORE_TARGET;
  const targetName = flags.target !== undefined ? '--target' : 'PETSTORE_TARGET';
  // Set but empty is an unset CI variable, not a request for the embedded server: a green run would test nothing real.
  if (rawTarget !== undefined && rawTarget.trim() === '')
    fail(
      `${targetName} is set but empty: give the base URL ending in /v1, or pass --embedded to run against the tool's own reference server`,
    );
  if (flags.embedded && rawTarget !== undefined)
    fail(`--embedded and ${targetName} contradict each other: give one (the embedded server, or the target's URL)`);
  const target = rawTarget === undefined ? null : parseTarget(rawTarget, targetName);

  const enterpriseText = env.PETSTORE_ENTERPRISE_LIMITS;
  const enterpriseLimits =
    enterpriseText === undefined || enterpriseText === '' ? null : parseEnterpriseLimits(enterpriseText);
  const keys: PlanKey[] = [];
  for (const plan of contract.planNames) {
    const name = keyVariable(plan);
    const value = env[name];
    if (value === undefined) continue;
    if (value.trim() === '') fail(`${name} is set but empty`);
    if (/\s/.test(value.trim()) || value !== value.trim()) fail(`${name} contains white space`);
    const limits = plan === 'enterprise' ? enterpriseLimits : (contract.plans[plan] ?? null);
    if (plan === 'enterprise' && !limits) fail(`${name} is set but PETSTORE_ENTERPRISE_LIMITS (rpm/rpd) is not`);
    // key1,key2: a second key of the plan lets the rate-limit suite isolate keys within one plan.
    const values = value.split(',');
    if (values.some((v) => v === '')) fail(`${name} has an empty key in its comma list`);
    if (new Set(values).size !== values.length) fail(`${name} lists the same key twice`);
    for (const v of values) keys.push({ plan, key: registerSecret(new ApiKey(v, plan)), limits });
  }
  if (target !== null && keys.length === 0) {
    fail(`no API key: set at least one of ${contract.planNames.map(keyVariable).join(', ')} for --target`);
  }

  const suiteText = flags.suite === undefined ? [] : Array.isArray(flags.suite) ? flags.suite : [flags.suite];
  const suites = suiteText
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of suites) {
    if (!(SUITES as readonly string[]).includes(s))
      fail(`--suite: unknown suite "${s}"${suggestion(s, SUITES)} (known: ${SUITES.join(', ')})`);
  }

  const seedText = flags.seed ?? env.PETSTORE_SEED;
  const seed =
    seedText === undefined
      ? Math.floor(Math.random() * 2 ** 31)
      : parseInteger(seedText, flags.seed !== undefined ? '--seed' : 'PETSTORE_SEED', 0, 2 ** 31 - 1);
  const runsText = flags.runs ?? env.PETSTORE_RUNS;
  const runs =
    runsText === undefined
      ? target === null
        ? DEFAULT_RUNS_EMBEDDED
        : DEFAULT_RUNS_TARGET
      : parseInteger(runsText, flags.runs !== undefined ? '--runs' : 'PETSTORE_RUNS', 1, 100_000);

  const strictText = env.PETSTORE_STRICT;
  const strict = flags.strict === true || strictText === '1' || strictText === 'true';

  const windowText = env.PETSTORE_RATE_WINDOW_SECONDS;
  const rateWindowSeconds =
    windowText === undefined || windowText === ''
      ? 60
      : parseInteger(windowText, 'PETSTORE_RATE_WINDOW_SECONDS', 1, 3600);

  const prodText = env.PETSTORE_PRODUCTION_URL;
  const productionUrl =
    prodText === undefined || prodText === '' ? null : parseTarget(prodText, 'PETSTORE_PRODUCTION_URL');

  const maxDurationMs =
    flagOrEnv(flags.maxDuration, '--max-duration', env.PETSTORE_MAX_DURATION, 'PETSTORE_MAX_DURATION', parseDuration) ??
    DEFAULT_MAX_DURATION_MS;
  const budget = flagOrEnv(flags.budget, '--budget', env.PETSTORE_BUDGET, 'PETSTORE_BUDGET', (text, name) =>
    parseInteger(text, name, 1, 10_000_000),
  );
  const maxCreates =
    flags.maxCreates === undefined ? null : parseInteger(flags.maxCreates, '--max-creates', 0, 10_000_000);

  const namePrefix = flags.namePrefix ?? env.PETSTORE_NAME_PREFIX ?? DEFAULT_NAME_PREFIX;
  if (!isPlainPrefix(namePrefix))
    fail(
      `--name-prefix: "${namePrefix}" must be at most ${NAME_PREFIX_MAX} letters and digits, words joined by one space, ' or - (a marked name must stay an ordinary name)`,
    );

  const concurrency = flagOrEnv(
    flags.concurrency,
    '--concurrency',
    env.PETSTORE_CONCURRENCY,
    'PETSTORE_CONCURRENCY',
    (text, name) => parseInteger(text, name, 1, MAX_CONCURRENCY),
  );

  const isCi = isCiEnv(env);
  const config: Config = Object.freeze({
    target,
    keys: Object.freeze(keys),
    suites: Object.freeze(suites.length > 0 ? (suites as SuiteName[]) : [...DEFAULT_SUITES]),
    seed,
    runs,
    strict,
    jsonReport: flags.json ?? null,
    htmlReport: htmlReportOf(flags),
    junitReport: flags.junit ?? null,
    harFile: flags.har ?? null,
    replayDir: flags.replayDir ?? null,
    baseline: flags.baseline ?? null,
    updateBaseline: flags.updateBaseline === true,
    requireComplete: flags.requireComplete === true,
    productionUrl,
    allowProduction: flags.allowProduction === true,
    rateWindowSeconds,
    rateWindowGiven: windowText !== undefined && windowText !== '',
    isCi,
    stepSummaryFile: stepSummaryFileOf(env),
    maxDurationMs,
    budget,
    maxCreates,
    namePrefix,
    concurrency,
    transport: loadTransport(flags, env),
    progress: loadProgress(flags, env),
    invocation: invocationOf(env, flags.script),
  });
  // In CI a missing target is a forgotten variable far more often than a wish to test the tool itself: a green gate
  // against the embedded server would test nothing real. Checked last, so that any other mistake is named first.
  if (isCi && target === null && !flags.embedded)
    fail(
      'no target: in CI (CI=true) the embedded server runs only when asked for: give --target URL (or PETSTORE_TARGET), or pass --embedded (in the GitHub Action, target: embedded)',
    );
  return config;
}

const TOOL_NAME = 'petstore-conformance';

/**
 * How the tool was started, so that the commands it prints run as printed: `npx petstore-conformance` under npm (npx
 * and `npm exec` set npm_command=exec and npm_lifecycle_event=npx; an npm script sets npm_lifecycle_event too, and
 * npx finds the same command), plain `petstore-conformance` when the script is that command on PATH (installed
 * globally or linked), else `node <the script>` (relative to the working directory when inside it). Without a script
 * of this tool (the tool embedded, tests), the README's `npx petstore-conformance`.
 */
export function invocationOf(env: Env, script: string | undefined, cwd: string = process.cwd()): string {
  const npx = `npx ${TOOL_NAME}`;
  if (env.npm_command === 'exec' || env.npm_lifecycle_event !== undefined) return npx;
  if (script === undefined || !/(^|[/\\])petstore-conformance(\.js)?$/.test(script)) return npx;
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => sameFile(join(dir, TOOL_NAME), script));
  if (onPath) return TOOL_NAME;
  // A local install (node_modules/.bin) is what npx runs.
  if (/(^|[/\\])node_modules[/\\]\.bin[/\\]petstore-conformance$/.test(script)) return npx;
  const rel = relative(cwd, script);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : script;
  return `node ${/^[\w./-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", "'\\''")}'`}`;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** Most suites side by side: beyond this a run only queues on the target (and keys share their windows). */
export const MAX_CONCURRENCY = 16;
/** The default's ceiling: a few lanes keep a local target busy; more only queue on a small machine. */
export const DEFAULT_CONCURRENCY_CAP = 4;

/**
 * The default --concurrency: one lane per request a second the key may send (its plan's minute limit, or the
 * X-RateLimit-Limit its headers show when lower), up to DEFAULT_CONCURRENCY_CAP. A Free key (60 a minute) gets one:
 * its run is bound by pacing, and requests side by side would only meet its window sooner. Pacing itself stays sound
 * at any concurrency (http/pacing.ts counts requests in flight); this keeps the default from bunching requests a
 * small plan would have to wait out.
 */
export function defaultConcurrency(limits: PlanLimits | null, headerLimit: number | null = null): number {
  const perMinute = Math.min(
    limits?.requestsPerMinute ?? 60,
    headerLimit !== null && headerLimit > 0 ? headerLimit : Infinity,
  );
  return Math.max(1, Math.min(DEFAULT_CONCURRENCY_CAP, Math.floor(perMinute / 60)));
}

/** The key with the most headroom, for the functional suites: they pace themselves, so a larger plan is quicker. */
export function functionalKey(config: Config): PlanKey | null {
  return roomiestKey(config.keys);
}

/** Highest minute limit first; an Enterprise key may carry small custom limits (quota tests). */
export function roomiestKey(keys: readonly PlanKey[]): PlanKey | null {
  return [...keys].sort((a, b) => (b.limits?.requestsPerMinute ?? 0) - (a.limits?.requestsPerMinute ?? 0))[0] ?? null;
}

/** Reads the PEM certificates of a file; every block must parse, so a wrong file fails here and not at the handshake. */
function readCertificates(path: string, name: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    fail(`${name}: cannot read ${path}: ${(e as Error).message}`);
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) fail(`${name}: ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch (e) {
      fail(`${name}: ${path} holds a certificate that does not parse: ${(e as Error).message}`);
    }
  }
  return blocks;
}

/** The first of the variables that is set and not empty (lower case first, as curl and undici read them). */
function firstSet(env: Env, names: readonly string[]): { variable: string; value: string } | null {
  for (const variable of names) {
    const value = env[variable]?.trim();
    if (value) return { variable, value };
  }
  return null;
}

function proxyVariable(env: Env, names: readonly string[]): ProxyVariable | null {
  const found = firstSet(env, names);
  if (!found) return null;
  // curl and most tools take a bare host:port as an http proxy; new URL would read "host:" as a scheme.
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(`${found.variable} is not a URL (expected e.g. http://proxy.example:3128)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    fail(`${found.variable}: only http:// and https:// proxies are supported, got ${url.protocol}`);
  return { variable: found.variable, url: text };
}

/** The variables of each proxy setting, in the order they are read. */
const PROXY_VARIABLES = {
  http: ['http_proxy', 'HTTP_PROXY'],
  https: ['https_proxy', 'HTTPS_PROXY'],
  noProxy: ['no_proxy', 'NO_PROXY'],
} as const;

function loadTransport(flags: Flags, env: Env): TransportSettings {
  const caPath = flags.ca ?? (env.PETSTORE_CA_FILE || undefined);
  const caName = flags.ca !== undefined ? '--ca' : 'PETSTORE_CA_FILE';
  const ca: string[] = [];
  const caFiles: string[] = [];
  if (caPath !== undefined) {
    ca.push(...readCertificates(caPath, caName));
    caFiles.push(resolve(caPath));
    // Node ignores NODE_EXTRA_CA_CERTS once a ca option is given: keep honouring it alongside --ca.
    const extra = env.NODE_EXTRA_CA_CERTS;
    if (extra && existsSync(extra)) {
      ca.push(...readCertificates(extra, 'NODE_EXTRA_CA_CERTS'));
      caFiles.push(resolve(extra));
    }
  }
  const insecureText = env.PETSTORE_INSECURE;
  const proxy: ProxySettings = {
    http: proxyVariable(env, PROXY_VARIABLES.http),
    https: proxyVariable(env, PROXY_VARIABLES.https),
    noProxy: firstSet(env, PROXY_VARIABLES.noProxy),
  };
  const encodingText = env.PETSTORE_ACCEPT_ENCODING;
  const acceptEncoding =
    encodingText === undefined
      ? DEFAULT_ACCEPT_ENCODING
      : encodingText.trim() === '' || encodingText.trim() === 'none'
        ? null
        : encodingText.trim();
  return Object.freeze({
    ca: Object.freeze(ca),
    caFiles: Object.freeze(caFiles),
    insecure: flags.insecure === true || insecureText === '1' || insecureText === 'true',
    proxy: Object.freeze(proxy),
    acceptEncoding,
  });
}

/** --quiet, PETSTORE_PROGRESS_SECONDS, and the colour conventions (no-color.org, FORCE_COLOR as Node reads it). */
function loadProgress(flags: Flags, env: Env): ProgressSettings {
  const every = env.PETSTORE_PROGRESS_SECONDS;
  const everySeconds =
    every === undefined || every === ''
      ? 15
      : (() => {
          const n = Number(every);
          if (!Number.isFinite(n) || n <= 0 || n > 3600)
            fail(`PETSTORE_PROGRESS_SECONDS: "${every}" is not a number of seconds between 0 and 3600`);
          return n;
        })();
  const force = env.FORCE_COLOR;
  const color =
    env.NO_COLOR !== undefined && env.NO_COLOR !== ''
      ? false
      : force !== undefined
        ? force !== '0' && force !== 'false'
        : null;
  return Object.freeze({ quiet: flags.quiet === true, everySeconds, color });
}
