/**
 * The GitHub Action at the repository's root (action.yml): valid against GitHub's own action schema, and its shell
 * steps, run as the runner runs them, start the built command against the embedded server and leave the reports, the
 * step's outputs and the job summary behind, on success and on each kind of failure.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../cli/run-command.js';
import { readJson } from '../support/artifacts.js';
import { closedPort } from '../cli/support.js';
import { actionSchemaErrors, actionText, readAction, recordingActionPath, runActionSteps } from './action-steps.js';
import { tempDir } from '../support/temp-dir.js';

/** A GitHub expression as written in YAML. */
const expression = (e: string): string => `\${{ ${e} }}`;
const workspace = () => tempDir('psc-action-ws-');

describe('action.yml', () => {
  it("validates against GitHub's action schema", () => {
    expect(actionSchemaErrors(actionText())).toEqual([]);
  });

  it('the schema catches a broken manifest (a step without its shell, an unknown key)', () => {
    const broken = actionText().replace('      shell: bash\n      working-directory', '      working-directory');
    expect(actionSchemaErrors(broken).join('\n')).toMatch(/shell/);
    expect(actionSchemaErrors(`${actionText()}\nrunz: 1\n`).join('\n')).toMatch(/runz/);
  });

  it('composite: Node set up, the runtime installed with npm ci from its own checkout, reports uploaded always', () => {
    const action = readAction();
    expect(action.runs.using).toBe('composite');
    const steps = action.runs.steps;
    expect(steps[0]!.uses).toMatch(/^actions\/setup-node@v\d+$/);
    const install = steps.find((s) => s.id === 'install')!;
    expect(install['working-directory']).toBe(expression('github.action_path'));
    // A release tag's build: the lock file's runtime dependencies only, no scripts (test/build/install.test.ts runs it).
    expect(install.run).toMatch(/^\s*npm ci --omit=dev --ignore-scripts\b/m);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toMatch(/^always\(\)/);
    expect(upload.with!.path).toBe(expression('inputs.reports-dir'));
    // Never a registry lookup of the tool: it runs from the action's checkout.
    expect(actionText()).not.toMatch(/npx|npm (install|exec)/);
  });

  it('declares every input it uses and uses every input it declares', () => {
    const text = actionText();
    const used = new Set([...text.matchAll(/inputs\.([\w-]+)/g)].map((m) => m[1]!));
    expect([...used].sort()).toEqual(Object.keys(readAction().inputs).sort());
  });
});

describe("the action's steps, run as the runner runs them", () => {
  it('run with target: embedded: reports, outputs and the job summary are written', async () => {
    const ws = workspace();
    const r = await runActionSteps(
      { target: 'embedded', suites: 'auth', args: '--runs 3 --seed 7', 'reports-dir': 'out', har: 'true' },
      { workspace: ws },
    );
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toEqual({
      'reports-dir': 'out',
      'exit-code': '0',
      verdict: 'conformant',
      defects: '0',
      'json-report': 'out/report.json',
      'junit-report': 'out/junit.xml',
      'html-report': 'out/report.html',
    });
    expect(readFileSync(join(ws, 'out/report.html'), 'utf8')).toMatch(/^<!doctype html>/);
    const report = readJson<RunReport>(join(ws, 'out/report.json'));
    expect(report.verdict).toBe('conformant');
    expect(report.seed).toBe(7);
    expect(report.target.embedded).toBe(true);
    expect(readFileSync(join(ws, 'out/junit.xml'), 'utf8')).toMatch(/^<\?xml[\s\S]*<testsuites/);
    expect(JSON.parse(readFileSync(join(ws, 'out/exchanges.har'), 'utf8')).log.version).toBe('1.2');
    // The log beside the reports holds what the job's log showed; the summary is the tool's Markdown.
    expect(readFileSync(join(ws, 'out/output.log'), 'utf8')).toMatch(/running auth against/);
    expect(r.summary).toMatch(/^## Pet Store conformance: ✅ Conformant/m);
  });

  it('an empty target input (an unset variable): exit 2, nothing started, the summary names the input', async () => {
    const stub = recordingActionPath();
    for (const command of ['run', 'load']) {
      const r = await runActionSteps({ command, target: '' }, { workspace: workspace(), actionPath: stub.path });
      expect(r.code).toBe(2);
      expect(r.outputs).toMatchObject({ 'exit-code': '2', verdict: 'error' });
      expect(r.summary).toMatch(/not started \(exit 2, configuration error\)/);
      expect(r.summary).toMatch(/the input target is empty .*give the base URL ending in \/v1, or embedded/);
      expect(r.log).toMatch(/::error title=petstore-conformance::the input target is empty/);
    }
    // The tool was never started.
    expect(() => stub.argv()).toThrow();
  });

  it('target: embedded passes --embedded and no --target; a URL passes --target', async () => {
    const stub = recordingActionPath();
    await runActionSteps({ target: 'embedded' }, { workspace: workspace(), actionPath: stub.path });
    expect(stub.argv()).toContain('--embedded');
    expect(stub.argv()).not.toContain('--target');
    await runActionSteps({ target: 'http://127.0.0.1:9/v1' }, { workspace: workspace(), actionPath: stub.path });
    expect(stub.argv().join(' ')).toMatch(/--target http:\/\/127\.0\.0\.1:9\/v1/);
    expect(stub.argv()).not.toContain('--embedded');
  });

  it('a configuration error: exit 2, the reports say why, the summary says the verdict, the error and its remedy', async () => {
    const ws = workspace();
    const r = await runActionSteps(
      { target: 'embedded', suites: 'auth', baseline: 'known.yml', 'reports-dir': 'out' },
      { workspace: ws },
    );
    expect(r.code).toBe(2);
    expect(r.outputs).toMatchObject({
      'exit-code': '2',
      verdict: 'error',
      defects: '',
      'json-report': 'out/report.json',
      'junit-report': 'out/junit.xml',
    });
    const report = readJson<RunReport>(join(ws, 'out/report.json'));
    expect(report.failure).toMatchObject({ code: 'PSC_USAGE', exitCode: 2 });
    expect(readFileSync(join(ws, 'out/junit.xml'), 'utf8')).toMatch(
      /baseline known\.yml does not exist.*\[PSC_USAGE\]/,
    );
    expect(r.summary).toMatch(/^## Pet Store conformance: ⛔ Not run: configuration error/m);
    expect(r.summary).toMatch(/\*\*Exit 2\*\* `PSC_USAGE`: baseline known\.yml does not exist/);
    expect(r.summary).toMatch(/\*\*What to do:\*\* \S/);
    // No empty code block of the action's own.
    expect(r.summary).not.toMatch(/```/);
  });

  it('a command line the tool cannot read: exit 2, and the action says the verdict and the error', async () => {
    const ws = workspace();
    const r = await runActionSteps(
      { target: 'embedded', args: '--frobnicate', 'reports-dir': 'out' },
      { workspace: ws },
    );
    expect(r.code).toBe(2);
    expect(r.outputs).toMatchObject({ 'exit-code': '2', verdict: 'error', 'json-report': '' });
    // The tool could not read its command line (no report): the action's block says it, with the error.
    expect(r.summary).toMatch(/### petstore-conformance run: error \(exit 2\)/);
    expect(r.summary).toMatch(/> petstore-conformance: run: unknown option --frobnicate/);
    expect(r.summary).toMatch(/What to do: /);
  });

  it('an unreachable target: exit 3, verdict blocked, reports written and the summary says why', async () => {
    const ws = workspace();
    const port = await closedPort();
    const r = await runActionSteps(
      { target: `http://127.0.0.1:${port}/v1`, 'reports-dir': 'out' },
      { workspace: ws, env: { PETSTORE_API_KEY_FREE: 'psk_action_unreachable_0123456789' } },
    );
    expect(r.code, r.log).toBe(3);
    expect(r.outputs).toMatchObject({ 'exit-code': '3', verdict: 'blocked', 'json-report': 'out/report.json' });
    expect(readJson<RunReport>(join(ws, 'out/report.json')).failure?.code).toBe('PSC_UNREACHABLE');
    expect(r.summary).toMatch(/^## Pet Store conformance: ⛔ Blocked/m);
    expect(r.summary).toMatch(/`PSC_UNREACHABLE`: target unreachable/);
    expect(r.summary).not.toMatch(/```/);
  });

  it('baseline and require-complete reach the tool: a run cut short by its budget exits 3, reports written', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'known.yml'), '[]\n');
    const r = await runActionSteps(
      {
        target: 'embedded',
        suites: 'getPet',
        budget: '8',
        baseline: 'known.yml',
        'require-complete': 'true',
        'reports-dir': 'gate',
      },
      { workspace: ws },
    );
    expect(r.code, r.log).toBe(3);
    expect(r.outputs).toMatchObject({ 'exit-code': '3', verdict: 'incomplete' });
    expect(existsSync(join(ws, 'gate/report.json'))).toBe(true);
    expect(readJson<RunReport>(join(ws, 'gate/report.json')).baseline?.file).toBe('known.yml');
    // The tool's own summary says the verdict in words; the action adds nothing (no empty block).
    expect(r.summary).toMatch(/^## Pet Store conformance: ⚠️ Incomplete/m);
    expect(r.summary).not.toMatch(/```/);
  });

  it('load refuses inputs that only run takes, before starting anything', async () => {
    const ws = workspace();
    const r = await runActionSteps({ command: 'load', target: 'embedded', budget: '100' }, { workspace: ws });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/::error title=petstore-conformance::the input budget goes with command: run/);
    expect(r.summary).toMatch(/not started/);
  });

  it('an unknown command is refused', async () => {
    const r = await runActionSteps({ command: 'serve', target: 'embedded' }, { workspace: workspace() });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/"serve" is neither run nor load/);
  });
});
