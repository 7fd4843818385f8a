/**
 * The repository's action.yml read as the runner reads it, and its own shell steps run as the runner runs them (bash
 * with -e and pipefail, inputs filled from the caller's `with` or their defaults, $GITHUB_OUTPUT and
 * $GITHUB_STEP_SUMMARY files), so that a test exercises the very script a workflow runs. Steps that `uses:` another
 * action (setup-node, upload-artifact) are the runner's to run: they are returned for the tests to check, not run.
 * The install step (`npm ci` in the action's directory) is not run either: the tests run from a checkout that is
 * installed and built already, and `npm ci` there would replace the node_modules they run from (it is run in a copy
 * of a release tag's checkout by test/build/install.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { parseAction } from '@actions/workflow-parser/actions/action-parser';
import { parse } from 'yaml';
import { tempDir } from '../support/temp-dir.js';

export const repoRoot = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');

export interface ActionStep {
  readonly name?: string;
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly shell?: string;
  readonly run?: string;
  readonly 'working-directory'?: string;
  readonly with?: Record<string, string>;
  readonly env?: Record<string, string>;
}

export interface ActionManifest {
  readonly name: string;
  readonly inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  readonly outputs: Record<string, { description: string; value: string }>;
  readonly runs: { using: string; steps: ActionStep[] };
}

/**
 * Errors of GitHub's own parsers (@actions/workflow-parser: the published action and workflow schemas that the runner
 * and GitHub's editor tooling apply, expressions included) for an action manifest or a workflow.
 */
export function actionSchemaErrors(text: string, name = 'action.yml'): string[] {
  return parseAction({ name, content: text }, new NoOperationTraceWriter())
    .context.errors.getErrors()
    .map((e) => e.message);
}
export function workflowSchemaErrors(text: string, name = 'workflow.yml'): string[] {
  return parseWorkflow({ name, content: text }, new NoOperationTraceWriter())
    .context.errors.getErrors()
    .map((e) => e.message);
}

export const actionText = (): string => readFileSync(join(repoRoot, 'action.yml'), 'utf8');
export const readAction = (): ActionManifest => parse(actionText()) as ActionManifest;

/** `${{ inputs.x }}` and `${{ github.action_path }}` filled in; any other expression is a test to extend. */
function evaluate(text: string, inputs: Record<string, string>, actionPath: string): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_m, expr: string) => {
    const input = /^inputs\.([\w-]+)$/.exec(expr);
    if (input) {
      if (!(input[1]! in inputs)) throw new Error(`action.yml uses an input it does not declare: ${input[1]}`);
      return inputs[input[1]!]!;
    }
    if (expr === 'github.action_path') return actionPath;
    throw new Error(`no value for the expression \${{ ${expr} }} in a run step`);
  });
}

export interface StepsResult {
  readonly code: number | null;
  /** stdout and stderr of the steps, interleaved. */
  readonly log: string;
  /** What the steps wrote to $GITHUB_OUTPUT, as name → value. */
  readonly outputs: Record<string, string>;
  /** What the steps appended to $GITHUB_STEP_SUMMARY. */
  readonly summary: string;
}

/** The variables a step must not inherit from the test's own environment: the step's configuration decides them. */
const INHERITED = /^(PETSTORE_|GITHUB_|CI$|NODE_EXTRA_CA_CERTS$|(https?|no|all)_proxy$)/i;

/**
 * Runs the action's shell steps (all but the install step) with `withInputs` as a workflow's `with:` would give them,
 * in `workspace`, the action's files at `actionPath`, and `env` as the job's environment.
 */
export async function runActionSteps(
  withInputs: Record<string, string>,
  opts: { workspace: string; actionPath?: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<StepsResult> {
  const action = readAction();
  const actionPath = opts.actionPath ?? repoRoot;
  for (const name of Object.keys(withInputs))
    if (!(name in action.inputs)) throw new Error(`the action has no input "${name}"`);
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) inputs[name] = withInputs[name] ?? spec.default ?? '';
  const files = tempDir('psc-action-');
  const outputFile = join(files, 'output');
  const summaryFile = join(files, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !INHERITED.test(k)) base[k] = v;
  let log = '';
  let code: number | null = 0;
  for (const [i, step] of action.runs.steps.entries()) {
    if (step.uses !== undefined || step.id === 'install') continue;
    if (step.shell !== 'bash') throw new Error(`step ${step.id ?? i}: only bash steps are run here`);
    const script = join(files, `step-${i}.sh`);
    writeFileSync(script, evaluate(step.run!, inputs, actionPath));
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(String(v), inputs, actionPath)]),
    );
    const env = {
      ...base,
      ...opts.env,
      ...stepEnv,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_ACTION_PATH: actionPath,
      GITHUB_WORKSPACE: opts.workspace,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
    };
    const cwd = step['working-directory'] ? evaluate(step['working-directory'], inputs, actionPath) : opts.workspace;
    // How the runner runs `shell: bash`.
    const r = await spawnLogged('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
      cwd,
      env,
      timeoutMs: opts.timeoutMs ?? 120_000,
    });
    log += r.log;
    code = r.code;
    if (code !== 0) break;
  }
  const outputs: Record<string, string> = {};
  for (const line of readFileSync(outputFile, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return { code, log, outputs, summary: readFileSync(summaryFile, 'utf8') };
}

function spawnLogged(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; log: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c) => (log += c));
    child.stderr.on('data', (c) => (log += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

/**
 * An action directory whose `bin/petstore-conformance.js` only records the arguments it was given (and exits with
 * `exit`): what the action's run step asks of the tool, without running it.
 */
export function recordingActionPath(exit = 0): { path: string; argv(): string[] } {
  const path = tempDir('psc-action-stub-');
  const record = join(path, 'argv.json');
  const bin = join(path, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'petstore-conformance.js'),
    `require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.argv.slice(2)));\nprocess.exit(${exit});\n`,
  );
  writeFileSync(join(path, 'package.json'), '{"type":"commonjs"}\n');
  return { path, argv: () => JSON.parse(readFileSync(record, 'utf8')) as string[] };
}
