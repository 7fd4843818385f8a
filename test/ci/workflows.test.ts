/**
 * The example workflows in examples/: valid YAML, valid against GitHub's published workflow schema and against a
 * stricter one of the workflow keys they use (actions pinned), keys from secrets, and the tool reached only through
 * the repository's action at a pinned ref, never an `npx` lookup. The action's own run step is run with each example's
 * inputs (the tool replaced by a recorder): the command it starts is a real subcommand with real flags, checked with
 * the CLI's own parser and configuration loader.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadOptions } from '../../cli/load-command.js';
import { runOptions } from '../../cli/run-command.js';
import { DEFAULT_MAX_DURATION_MS, keyVariable, loadConfig, parseDuration } from '../../config/config.js';
import { plannedSeconds, profileNamed } from '../../load/profiles.js';
import { contract } from '../../spec/contract.js';
import { readAction, recordingActionPath, runActionSteps, workflowSchemaErrors } from './action-steps.js';
import { tempDir } from '../support/temp-dir.js';
import { startReferenceServer } from '../../reference/server.js';

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
          if: { type: 'string' },
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
interface Job {
  if?: string;
  'timeout-minutes'?: number;
  env?: Record<string, string>;
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const text = (name: string): string => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');

function load(name: string): Workflow {
  const doc = parseDocument(text(name));
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Workflow;
}

/** The repository's action, pinned to a release tag or a commit: the only way the examples reach the tool. */
const PINNED_ACTION = /^[\w.-]+\/petstore-conformance@(v\d+\.\d+\.\d+|[0-9a-f]{40})$/;

/** Each job's step that uses the tool's action, with its job. */
function toolSteps(w: Workflow): { job: Job; step: Step }[] {
  return Object.values(w.jobs).flatMap((job) =>
    job.steps.filter((s) => s.uses?.split('@')[0]?.endsWith('/petstore-conformance')).map((step) => ({ job, step })),
  );
}

/** The values a workflow's expressions take in these tests. */
const CONTEXT: Record<string, string> = {
  'vars.STAGING_URL': 'https://staging.petstore.example/v1',
  'github.run_id': '4242',
};
const fill = (value: string): string =>
  String(value).replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_m, e: string) => {
    if (!(e in CONTEXT)) throw new Error(`no test value for \${{ ${e} }}`);
    return CONTEXT[e]!;
  });

/** What the action's run step starts for these `with` inputs: [subcommand, args] (the tool replaced by a recorder). */
async function commandOf(step: Step): Promise<[string, string[]]> {
  const stub = recordingActionPath();
  const withInputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, fill(v)]));
  const r = await runActionSteps(withInputs, {
    workspace: tempDir('psc-example-'),
    actionPath: stub.path,
  });
  expect(r.code, r.log).toBe(0);
  const [sub, ...args] = stub.argv();
  return [sub!, args];
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

/** Parses an invocation with the subcommand's own flags. */
function parseInvocation(sub: string, args: string[]) {
  const options = OPTIONS[sub as keyof typeof OPTIONS];
  expect(options, `"${sub}" is a subcommand the examples may use`).toBeDefined();
  return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<
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
  it("GitHub's published schema rejects a misspelt key and a broken expression", () => {
    const errors = workflowSchemaErrors(
      `on: push\njobs:\n  a:\n    run-on: x\n    steps:\n      - run: echo \${{ x }\n`,
    );
    expect(errors.join('\n')).toMatch(/run-on/);
    expect(errors.join('\n')).toMatch(/expression is not closed/);
  });
});

describe.each(['staging-gate.yml', 'nightly-load.yml'])('examples/%s', (file) => {
  const w = load(file);

  it("validates against GitHub's published workflow schema", () => {
    expect(workflowSchemaErrors(text(file), file)).toEqual([]);
  });

  it('matches the strict workflow schema', () => {
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

  it('reaches the tool only through its action at a pinned ref, with inputs the action declares', () => {
    const found = toolSteps(w);
    expect(found.length).toBeGreaterThan(0);
    const inputs = Object.keys(readAction().inputs);
    for (const { step } of found) {
      expect(step.uses).toMatch(PINNED_ACTION);
      for (const name of Object.keys(step.with ?? {})) expect(inputs, name).toContain(name);
    }
    // No registry lookup and no other way in: npx of an unpublished name would fetch whatever is published under it.
    for (const job of Object.values(w.jobs))
      for (const s of job.steps) expect(s.run ?? '', 'no npx, no direct call').not.toMatch(/npx|petstore-conformance/);
  });

  it("the action's run step starts a real subcommand with real flags, which the configuration accepts", async () => {
    for (const { step } of toolSteps(w)) {
      const [sub, args] = await commandOf(step);
      const values = parseInvocation(sub, args);
      const config = loadConfig(
        { target: values.target as string, envFile: '/nonexistent/.env' },
        {
          PETSTORE_API_KEY_FREE: 'psk_free_example_0123456789',
          PETSTORE_PRODUCTION_URL: 'https://api.petstore.example/v1',
        },
      );
      expect(config.target).toBe(CONTEXT['vars.STAGING_URL']);
    }
  });
});

describe('what each example does', () => {
  it('staging gate: run with a baseline and --require-complete, reports uploaded, the job outlasting --max-duration', async () => {
    const w = load('staging-gate.yml');
    const [{ job, step }] = toolSteps(w) as [{ job: Job; step: Step }];
    const [sub, args] = await commandOf(step);
    expect(sub).toBe('run');
    const v = parseInvocation(sub, args);
    expect(v['require-complete']).toBe(true);
    expect(v.baseline).toBe(step.with!.baseline);
    // The reports the run writes are in the directory the action uploads (its upload step is `if: always()`).
    const dir = step.with!['reports-dir']!;
    expect(step.with!.upload ?? readAction().inputs.upload!.default).toBe('true');
    for (const file of [v.json, v.junit, v['replay-dir']]) expect(String(file).startsWith(`${dir}/`)).toBe(true);
    // Killed at its timeout, a job loses the reports: the run must stop (max-duration) with minutes to spare.
    const maxDuration = v['max-duration'] ? parseDuration(String(v['max-duration']), 'x') : DEFAULT_MAX_DURATION_MS;
    expect(job['timeout-minutes']! * 60_000).toBeGreaterThanOrEqual(maxDuration + 5 * 60_000);
    const steps = Object.values(w.jobs).flatMap((j) => j.steps);
    for (const s of steps) expect(s.run ?? '', 'the exit code is the gate').not.toMatch(/\|\|\s*true/);
    expect(JSON.stringify(w)).not.toMatch(/continue-on-error/);
  });

  it('staging gate: two jobs, a per-release functional gate on a paid-plan key and a daily rate-limit job on the Free key', async () => {
    const w = load('staging-gate.yml');
    expect(Object.keys(w.on)).toEqual(expect.arrayContaining(['push', 'schedule']));
    const jobs = toolSteps(w).map(({ job, step }) => ({
      keys: Object.keys(job.env ?? {}).filter((k) => k.startsWith('PETSTORE_API_KEY_')),
      suites: step.with!.suites,
      if: job.if,
    }));
    expect(jobs).toEqual([
      {
        keys: ['PETSTORE_API_KEY_PRO'],
        suites: 'auth,listPets,createPet,getPet,stateful,robustness',
        if: "github.event_name != 'schedule'",
      },
      { keys: ['PETSTORE_API_KEY_FREE'], suites: 'rate-limit', if: "github.event_name != 'push'" },
    ]);
  });

  // As written: each job's tool step, run by the action's own script with the real tool, against the reference server
  // with the keys the job names and no other (the window compressed to 2 s, told through the environment).
  it('staging gate: each job passes as written against the reference with the keys it names', async () => {
    const w = load('staging-gate.yml');
    const server = await startReferenceServer({ windowSeconds: 2 });
    try {
      for (const { job, step } of toolSteps(w)) {
        const workspace = tempDir('psc-gate-');
        mkdirSync(join(workspace, '.github'), { recursive: true });
        // The baseline the gate names: no known defect (the reference has none).
        writeFileSync(join(workspace, '.github', 'petstore-known-defects.yml'), '[]\n');
        const env: Record<string, string> = { PETSTORE_RATE_WINDOW_SECONDS: '2' };
        for (const [name, value] of Object.entries(job.env ?? {})) {
          const plan = /^PETSTORE_API_KEY_([A-Z]+)$/.exec(name)?.[1]?.toLowerCase();
          if (plan) env[name] = server.keys.find((k) => k.plan === plan)!.key;
          else if (name === 'PETSTORE_PRODUCTION_URL') env[name] = 'https://api.petstore.example/v1';
          else env[name] = fill(String(value));
        }
        const withInputs = Object.fromEntries(
          Object.entries(step.with ?? {}).map(([k, v]) => [
            k,
            String(v).includes('vars.STAGING_URL') ? server.url : fill(String(v)),
          ]),
        );
        const r = await runActionSteps(withInputs, { workspace, env, timeoutMs: 600_000 });
        expect(r.code, `${step.name}:\n${r.log}`).toBe(0);
        expect(r.outputs['exit-code'], r.log).toBe('0');
        expect(r.log).toMatch(/^plan: measures /m);
        expect(r.log).toMatch(/^Result: CONFORMANT/m);
      }
    } finally {
      await server.close();
    }
  }, 900_000);

  it('nightly: scheduled load --profile nightly, reports uploaded, history restored and saved by the cache', async () => {
    const w = load('nightly-load.yml');
    expect((w.on.schedule as { cron: string }[])[0]!.cron).toMatch(/^\d+ \d+ \* \* \*$/);
    const [{ job, step }] = toolSteps(w) as [{ job: Job; step: Step }];
    const [sub, args] = await commandOf(step);
    expect(sub).toBe('load');
    const v = parseInvocation(sub, args);
    expect(v.profile).toBe('nightly');
    const out = v.out as string;
    expect(out).toBe(step.with!['reports-dir']);
    const steps = job.steps;
    const index = (pred: (s: Step) => boolean) => steps.findIndex(pred);
    const restore = index((s) => !!s.uses?.startsWith('actions/cache/restore@'));
    const loadStep = steps.indexOf(step);
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
    // The profile's planned time on a real 60 s window, with room to install and write the reports.
    expect(job['timeout-minutes']! * 60).toBeGreaterThanOrEqual(plannedSeconds(profileNamed('nightly'), 60) + 5 * 60);
  });
});
