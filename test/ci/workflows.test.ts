/**
 * The example workflows in examples/: valid YAML, valid against a strict schema of the workflow keys they use, and
 * every petstore-conformance command in them is a real subcommand with real flags (checked with the CLI's own parser
 * and configuration loader), keys come from secrets, and the reports they upload are the files the commands write.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadOptions } from '../../cli/load-command.js';
import { runOptions } from '../../cli/run-command.js';
import { keyVariable, loadConfig } from '../../config/config.js';
import { contract } from '../../spec/contract.js';

const stringMap = { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } } as const;

/** The subset of the GitHub Actions workflow syntax the examples use; anything else is rejected. */
const workflowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'on', 'jobs'],
  properties: {
    name: { type: 'string' },
    on: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        push: {
          type: 'object',
          additionalProperties: false,
          properties: {
            tags: { type: 'array', items: { type: 'string' } },
            branches: { type: 'array', items: { type: 'string' } },
          },
        },
        workflow_dispatch: { type: ['object', 'null'] },
        schedule: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['cron'],
            properties: { cron: { type: 'string', pattern: '^\\S+( \\S+){4}$' } },
          },
        },
      },
    },
    permissions: stringMap,
    concurrency: {
      type: 'object',
      additionalProperties: false,
      required: ['group'],
      properties: { group: { type: 'string' }, 'cancel-in-progress': { type: 'boolean' } },
    },
    env: stringMap,
    jobs: {
      type: 'object',
      minProperties: 1,
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['runs-on', 'steps'],
        properties: {
          name: { type: 'string' },
          'runs-on': { type: 'string' },
          'timeout-minutes': { type: 'integer', minimum: 1 },
          env: stringMap,
          steps: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              properties: {
                name: { type: 'string' },
                id: { type: 'string' },
                if: { type: 'string' },
                uses: { type: 'string', pattern: '^[\\w.-]+/[\\w./-]+@[\\w.-]+$' },
                run: { type: 'string' },
                with: stringMap,
                env: stringMap,
              },
              // Exactly one of uses and run (both match both branches, neither matches none); `with` needs uses.
              oneOf: [
                { properties: { uses: { type: 'string' } }, required: ['uses'] },
                { properties: { run: { type: 'string' } }, required: ['run'] },
              ],
              dependencies: { with: ['uses'] },
            },
          },
        },
      },
    },
  },
} as const;

const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
const validate = ajv.compile(workflowSchema);

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { env?: Record<string, string>; steps: Step[] }>;
}

function load(name: string): Workflow {
  const doc = parseDocument(readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8'));
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Workflow;
}

/** Shell words of a command line (double and single quotes; enough for the examples). */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** Every `npx petstore-conformance …` invocation of a workflow: [subcommand, args]. */
function invocations(w: Workflow): [string, string[]][] {
  const found: [string, string[]][] = [];
  for (const job of Object.values(w.jobs)) {
    for (const step of job.steps) {
      for (const line of (step.run ?? '').split('\n')) {
        const ws = words(line);
        const at = ws.indexOf('petstore-conformance');
        if (at < 0) continue;
        expect(ws[at - 1], 'invoked through npx').toBe('npx');
        found.push([ws[at + 1]!, ws.slice(at + 2)]);
      }
    }
  }
  return found;
}

const OPTIONS = { run: runOptions, load: loadOptions } as const;
const KNOWN_VARIABLES = new Set([
  ...contract.planNames.map(keyVariable),
  'PETSTORE_TARGET',
  'PETSTORE_ENTERPRISE_LIMITS',
  'PETSTORE_PRODUCTION_URL',
  'PETSTORE_SEED',
  'PETSTORE_RUNS',
]);

/** Parses an invocation with the subcommand's own flags, with $VARIABLES filled from `env`. */
function parseInvocation(sub: string, args: string[], env: Record<string, string>) {
  const options = OPTIONS[sub as keyof typeof OPTIONS];
  expect(options, `"${sub}" is a subcommand the examples may use`).toBeDefined();
  const filled = args.map((a) => a.replace(/\$\{?([A-Z_]+)\}?/g, (_m, v: string) => env[v] ?? `<unset ${v}>`));
  return parseArgs({ args: filled, options, strict: true, allowPositionals: false }).values as Record<
    string,
    string | boolean | undefined
  >;
}

describe('the workflow schema', () => {
  const good = {
    name: 'x',
    on: { workflow_dispatch: null },
    jobs: { a: { 'runs-on': 'ubuntu-latest', steps: [{ uses: 'actions/checkout@v4' }, { run: 'echo hi' }] } },
  };
  it('accepts a minimal workflow', () => {
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
  });
  it('rejects an unknown top-level key', () => {
    expect(validate({ ...good, triggers: {} })).toBe(false);
    expect(
      validate.errors?.some(
        (e: ErrorObject) => e.keyword === 'additionalProperties' && e.params.additionalProperty === 'triggers',
      ),
    ).toBe(true);
  });
  it('rejects a step with both uses and run, or neither', () => {
    const job = (step: object) => ({ ...good, jobs: { a: { 'runs-on': 'ubuntu-latest', steps: [step] } } });
    expect(validate(job({ uses: 'actions/checkout@v4', run: 'echo' }))).toBe(false);
    expect(validate(job({ name: 'nothing' }))).toBe(false);
    expect(validate(job({ run: 'echo', with: { a: 'b' } }))).toBe(false);
    expect(validate(job({ uses: 'actions/checkout' }))).toBe(false); // unpinned
  });
  it('rejects a misspelt job key', () => {
    expect(validate({ ...good, jobs: { a: { 'run-on': 'ubuntu-latest', steps: [{ run: 'x' }] } } })).toBe(false);
  });
});

describe.each(['staging-gate.yml', 'nightly-load.yml'])('examples/%s', (file) => {
  const w = load(file);

  it('matches the workflow schema', () => {
    expect(validate(w), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('takes keys from secrets only and uses only variables the tool knows', () => {
    for (const job of Object.values(w.jobs)) {
      const env = { ...(job.env ?? {}), ...Object.assign({}, ...job.steps.map((s) => s.env ?? {})) } as Record<
        string,
        string
      >;
      const keys = Object.keys(env).filter((k) => k.startsWith('PETSTORE_API_KEY_'));
      expect(keys.length).toBeGreaterThan(0);
      for (const k of keys) expect(env[k], k).toMatch(/^\$\{\{ secrets\.PETSTORE_API_KEY_[A-Z]+ \}\}$/);
      for (const k of Object.keys(env).filter((n) => n.startsWith('PETSTORE_')))
        expect(KNOWN_VARIABLES.has(k), k).toBe(true);
    }
  });

  it('calls petstore-conformance with real subcommands and flags, which the configuration accepts', () => {
    const calls = invocations(w);
    expect(calls.length).toBeGreaterThan(0);
    const env = { STAGING_URL: 'https://staging.petstore.example/v1' };
    for (const [sub, args] of calls) {
      const values = parseInvocation(sub, args, env);
      const config = loadConfig(
        { target: values.target as string, envFile: '/nonexistent/.env' },
        {
          PETSTORE_API_KEY_FREE: 'psk_free_example_0123456789',
          PETSTORE_PRODUCTION_URL: 'https://api.petstore.example/v1',
        },
      );
      expect(config.target).toBe(env.STAGING_URL);
    }
  });
});

describe('what each example does', () => {
  it('staging gate: run with JUnit, JSON and replays, all uploaded even on failure, and no masking of the exit code', () => {
    const w = load('staging-gate.yml');
    const [[sub, args]] = invocations(w) as [[string, string[]]];
    expect(sub).toBe('run');
    const v = parseInvocation(sub, args, { STAGING_URL: 'https://staging.example/v1' });
    expect(v).toMatchObject({ junit: 'junit.xml', json: 'report.json', 'replay-dir': 'replays' });
    const steps = Object.values(w.jobs).flatMap((j) => j.steps);
    for (const s of steps)
      expect(s.run ?? '', 'the exit code is the gate').not.toMatch(/\|\|\s*true|continue-on-error/);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    const paths = upload
      .with!.path!.split('\n')
      .map((p) => p.trim())
      .filter(Boolean);
    expect(paths).toEqual(expect.arrayContaining([v.junit, v.json, `${v['replay-dir']}/`]));
  });

  it('nightly: scheduled load --profile nightly, reports uploaded, history restored and saved by the cache', () => {
    const w = load('nightly-load.yml');
    expect((w.on.schedule as { cron: string }[])[0]!.cron).toMatch(/^\d+ \d+ \* \* \*$/);
    const [[sub, args]] = invocations(w) as [[string, string[]]];
    expect(sub).toBe('load');
    const v = parseInvocation(sub, args, { STAGING_URL: 'https://staging.example/v1' });
    expect(v.profile).toBe('nightly');
    const out = v.out as string;
    const steps = Object.values(w.jobs).flatMap((j) => j.steps);
    const index = (pred: (s: Step) => boolean) => steps.findIndex(pred);
    const restore = index((s) => !!s.uses?.startsWith('actions/cache/restore@'));
    const loadStep = index((s) => !!s.run?.includes('petstore-conformance load'));
    const save = index((s) => !!s.uses?.startsWith('actions/cache/save@'));
    expect(restore).toBeGreaterThanOrEqual(0);
    expect(restore).toBeLessThan(loadStep);
    expect(save).toBeGreaterThan(loadStep);
    expect(steps[restore]!.with!.path).toBe(`${out}/history.json`);
    expect(steps[save]!.with!.path).toBe(`${out}/history.json`);
    expect(steps[save]!.with!.key).toBe(steps[restore]!.with!.key);
    expect(steps[restore]!.with!['restore-keys']).toBeTruthy();
    expect(steps[restore]!.with!.key!.startsWith(steps[restore]!.with!['restore-keys']!)).toBe(true);
    expect(steps[save]!.if).toMatch(/^always\(\)/);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    expect(upload.with!.path).toBe(`${out}/`);
  });
});
