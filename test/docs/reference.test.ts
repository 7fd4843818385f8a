/**
 * The documentation's flag and variable reference never drifts from the command (issue 29): docs/reference.md is
 * exactly what cli/reference.ts renders from the command's own tables (cli/commands.ts, config/environment.ts), and
 * the environment table names every variable the configuration reads. The pages written by hand list no flag that
 * the command does not have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CommandSpec, COMMANDS, runCommandSpec } from '../../cli/commands.js';
import { REFERENCE_PAGE, REFERENCE_SCRIPT, referenceMarkdown } from '../../cli/reference.js';
import { ENVIRONMENT } from '../../config/environment.js';

const root = resolve(import.meta.dirname, '../..');
const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

describe(REFERENCE_PAGE, () => {
  it(`is what the command's tables render (run \`${REFERENCE_SCRIPT}\` after changing a flag or a variable)`, () => {
    const committed = read(REFERENCE_PAGE);
    const current = referenceMarkdown();
    if (committed !== current) {
      // The first line that differs, so the failure says where without a page-long diff.
      const a = committed.split('\n');
      const b = current.split('\n');
      const at = b.findIndex((line, i) => line !== a[i]);
      expect.fail(
        `${REFERENCE_PAGE} is not current: run \`${REFERENCE_SCRIPT}\` and commit it (line ${at + 1}: committed ` +
          `${JSON.stringify(a[at] ?? '')}, the tables give ${JSON.stringify(b[at] ?? '')})`,
      );
    }
  });

  it('lists every flag of every command, and every variable, each once', () => {
    const page = read(REFERENCE_PAGE);
    for (const c of COMMANDS) {
      const section = page.split(`## petstore-conformance ${c.name}\n`)[1]!.split('\n## ')[0]!;
      for (const name of Object.keys(c.flags)) expect(section, `${c.name} --${name}`).toMatch(`| \`--${name}`);
    }
    for (const v of ENVIRONMENT) for (const n of v.names) expect(page.split(`\`${n}\``).length - 1, n).toBe(1);
  });

  it('a changed flag or variable changes the page: the drift test can fail', () => {
    const seed = { ...runCommandSpec.flags.seed, help: 'a help text the page does not hold' };
    const changed: CommandSpec[] = COMMANDS.map((c) =>
      c === runCommandSpec ? { ...c, flags: { ...runCommandSpec.flags, seed } } : c,
    );
    expect(referenceMarkdown(changed)).not.toBe(referenceMarkdown());
    expect(referenceMarkdown(changed)).toContain('a help text the page does not hold');
    const fewer = ENVIRONMENT.filter((v) => !v.names.includes('PETSTORE_BUDGET'));
    expect(referenceMarkdown(COMMANDS, fewer)).not.toContain('PETSTORE_BUDGET');
  });
});

describe('the environment table (config/environment.ts)', () => {
  /** Every variable the tool's sources read: `env.NAME`, `env['NAME']`, and the names of the proxy lists. */
  function variablesRead(): Set<string> {
    const found = new Set<string>();
    const dirs = ['cli', 'config', 'http', 'runner', 'reports', 'suites', 'load', 'checks', 'generators', 'spec'];
    for (const dir of dirs)
      for (const f of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
        if (!f.endsWith('.ts')) continue;
        const text = read(join(dir, f));
        for (const m of text.matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]*)\b/g)) found.add(m[1]!);
        for (const m of text.matchAll(/'(HTTPS?_PROXY|NO_PROXY)'/g)) found.add(m[1]!);
      }
    // The search is not empty by accident: it finds what config.ts is known to read.
    expect(found).toContain('PETSTORE_TARGET');
    expect(found).toContain('HTTPS_PROXY');
    // The keys are read by plan (keyVariable): the table names each.
    found.delete('PATH'); // where npm put the command, to tell how it was started: not a setting
    return found;
  }

  it('names every variable the configuration reads', () => {
    const listed = new Set(ENVIRONMENT.flatMap((v) => v.names));
    expect([...variablesRead()].filter((n) => !listed.has(n)).sort()).toEqual([]);
  });

  it('names only variables the tool reads (the keys by plan, NODE_EXTRA_CA_CERTS by Node itself)', () => {
    const read = variablesRead();
    const byName = ENVIRONMENT.flatMap((v) => v.names).filter(
      (n) => !read.has(n) && !n.startsWith('PETSTORE_API_KEY_') && n !== 'NODE_EXTRA_CA_CERTS',
    );
    expect(byName).toEqual([]);
  });
});

describe('the pages written by hand', () => {
  const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)].filter(
    (p) => p.endsWith('.md') && p !== REFERENCE_PAGE,
  );
  const flags = new Set(['help', 'version', ...COMMANDS.flatMap((c) => Object.keys(c.flags))]);

  it.each(pages)('%s names no flag the command does not have', (page) => {
    // Flags of the tool, in code spans; other tools' flags (curl's, npm's) sit in code blocks, left out here.
    const prose = read(page).replace(/```[\s\S]*?```/g, '');
    const named = [...prose.matchAll(/`[^`\n]*`/g)].flatMap((m) => [...m[0].matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)]);
    const unknown = named.map((m) => m[1]!).filter((n) => !flags.has(n) && !OTHER_TOOLS.has(n));
    expect(unknown).toEqual([]);
  });
});

/** Flags of other tools the pages quote in code spans: curl's and npm's. */
const OTHER_TOOLS = new Set(['compressed', 'cacert', 'omit', 'prefix', 'ignore-scripts', 'no-save']);
