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
import { actionSchemaErrors, actionText, readAction, runActionSteps } from './action-steps.js';
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
  it('run against the embedded server: reports, outputs and the job summary are written', async () => {
    const ws = workspace();
    const r = await runActionSteps(
      { suites: 'auth', args: '--runs 3 --seed 7', 'reports-dir': 'out', har: 'true' },
      { workspace: ws },
    );
    expect(r.code, r.log).toBe(0);
    expect(r.outputs).toEqual({ 'reports-dir': 'out', 'exit-code': '0' });
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

  it('a configuration error: exit 2 and the error in the job summary', async () => {
    const ws = workspace();
    const r = await runActionSteps({ suites: 'auth', baseline: 'known.yml' }, { workspace: ws });
    expect(r.code).toBe(2);
    expect(r.outputs['exit-code']).toBe('2');
    expect(r.summary).toMatch(/### petstore-conformance run: exit 2/);
    expect(r.summary).toMatch(/petstore-conformance: baseline known\.yml does not exist.*\[PSC_USAGE\]/);
  });

  it('baseline and require-complete reach the tool: a run cut short by its budget exits 3, reports written', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'known.yml'), '[]\n');
    const r = await runActionSteps(
      { suites: 'getPet', budget: '8', baseline: 'known.yml', 'require-complete': 'true', 'reports-dir': 'gate' },
      { workspace: ws },
    );
    expect(r.code, r.log).toBe(3);
    expect(r.outputs['exit-code']).toBe('3');
    expect(existsSync(join(ws, 'gate/report.json'))).toBe(true);
    expect(readJson<RunReport>(join(ws, 'gate/report.json')).baseline?.file).toBe('known.yml');
    expect(r.summary).toMatch(/^## Pet Store conformance/m);
    // The tool's own summary, then the action's note of the exit code.
    expect(r.summary).toMatch(/### petstore-conformance run: exit 3/);
  });

  it('load refuses inputs that only run takes, before starting anything', async () => {
    const ws = workspace();
    const r = await runActionSteps({ command: 'load', budget: '100' }, { workspace: ws });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/::error title=petstore-conformance::the input budget goes with command: run/);
    expect(r.summary).toMatch(/not started/);
  });

  it('an unknown command is refused', async () => {
    const r = await runActionSteps({ command: 'serve' }, { workspace: workspace() });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/"serve" is neither run nor load/);
  });
});
