/**
 * Every environment variable the tool reads, with its meaning: the one list the top-level help and the reference page
 * (docs/reference.md, `npm run docs`) are made from. config/config.ts reads them, once; a test holds every variable
 * read there to a row of this table.
 */

export interface EnvironmentVariable {
  /** As written: one name, or several that go together (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`). */
  readonly names: readonly string[];
  readonly help: string;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  { names: ['PETSTORE_TARGET'], help: 'base URL ending in /v1 (as --target)' },
  {
    names: [
      'PETSTORE_API_KEY_FREE',
      'PETSTORE_API_KEY_PRO',
      'PETSTORE_API_KEY_BUSINESS',
      'PETSTORE_API_KEY_ENTERPRISE',
    ],
    help: 'API keys, one per plan you have (or two, key1,key2, to isolate keys within a plan); the plan decides the limits checked',
  },
  { names: ['PETSTORE_ENTERPRISE_LIMITS'], help: 'rpm/rpd of the Enterprise key, e.g. 120/5000 (required with one)' },
  {
    names: ['PETSTORE_PRODUCTION_URL'],
    help: 'load, --suite rate-limit and --suite quota refuse this target unless --allow-production; a default run against it leaves the rate-limit suite out',
  },
  { names: ['PETSTORE_SEED', 'PETSTORE_RUNS', 'PETSTORE_STRICT'], help: 'as --seed, --runs and --strict (1 or true)' },
  { names: ['PETSTORE_MAX_DURATION', 'PETSTORE_BUDGET'], help: 'as --max-duration and --budget' },
  { names: ['PETSTORE_CONCURRENCY'], help: 'as --concurrency' },
  { names: ['PETSTORE_NAME_PREFIX'], help: 'as --name-prefix' },
  {
    names: ['PETSTORE_RATE_WINDOW_SECONDS'],
    help: 'length of the minute window, for the reference server and the rate-limit suite (tests shorten it)',
  },
  { names: ['PETSTORE_CA_FILE', 'PETSTORE_INSECURE'], help: 'as --ca and --insecure (1 or true)' },
  {
    names: ['NODE_EXTRA_CA_CERTS'],
    help: 'extra trusted CA certificates (a PEM file), read by Node itself at start-up (not from .env)',
  },
  {
    names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'],
    help: 'proxies for https and http targets, and the hosts reached directly (lower-case forms first, as curl reads them)',
  },
  {
    names: ['PETSTORE_ACCEPT_ENCODING'],
    help: 'Accept-Encoding sent with every request (default gzip; none sends none)',
  },
  { names: ['PETSTORE_PROGRESS_SECONDS'], help: 'seconds between plain progress lines in CI or a pipe (default 15)' },
  {
    names: ['NO_COLOR', 'FORCE_COLOR'],
    help: 'no colour at all; colour even when not a terminal (FORCE_COLOR=0: none)',
  },
  {
    names: ['CI'],
    help: 'true or 1, as CI systems set it: progress as plain lines, and the embedded server runs only with --embedded',
  },
  { names: ['GITHUB_STEP_SUMMARY'], help: 'when set, a Markdown summary is appended to this file' },
];
