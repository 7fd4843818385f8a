/**
 * Every example and recipe in examples/ reaches the tool through its action or a pinned install, never by a registry
 * lookup of its name (issue 29): in a job that holds staging keys, `npx petstore-conformance` with nothing installed
 * fetches whatever the public registry serves under that name. A call through npx (or `npm exec`) is allowed only
 * after a local install in the same job (a GitHub Actions job's steps, a Kubernetes container's script): `npm ci` in
 * the tool's checkout, or an `npm install` into the folder npx runs in. A call that names a version
 * (`petstore-conformance@0.1.0`) or answers npm's question itself (`--yes`) fetches from the registry whatever is
 * installed, and is refused everywhere. A call of the installed command must follow an install too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../examples/', import.meta.url);

/** `npx … petstore-conformance` or `npm exec … petstore-conformance`, with whatever flags between. */
const NPX_CALL = /\b(npx|npm\s+exec)\b[^|;&]*?(?<![\w/.-])petstore-conformance(?![\w/.-]*\.tgz)\b/;
/** A fetch whatever is installed: a version named, or npm's "install it?" answered yes. */
const FETCH = /(?<![\w/.-])petstore-conformance@|\s(--yes|-y)(\s|$)/;
/** The installed command, by name on the PATH or by the path of its bin. */
const DIRECT_CALL = /(^|[\s/])petstore-conformance\s+(run|load|report|replay|serve)\b/;
/** An install npx would find: the tool's own checkout (`npm ci`), or `npm install` into the folder it runs in. */
const LOCAL_INSTALL = /\bnpm\s+ci\b|\bnpm\s+(install|i)\b(?!.*--prefix)/;
/** An install of a pinned release into a folder of its own, whose bin the job then calls. */
const PINNED_INSTALL = /\bnpm\s+install\s+--prefix\s/;

/** What is wrong with the script lines of one job, in order: each an explanation naming the line. */
function registryLookups(lines: readonly string[]): string[] {
  const problems: string[] = [];
  let local = false;
  let pinned = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('#')) continue;
    if (NPX_CALL.test(line)) {
      if (FETCH.test(line)) problems.push(`fetches the tool from the registry: ${line}`);
      else if (!local) problems.push(`npx petstore-conformance without a local install in the same job: ${line}`);
    } else if (DIRECT_CALL.test(line) && !local && !pinned) {
      problems.push(`calls the command with no install before it in the same job: ${line}`);
    }
    if (LOCAL_INSTALL.test(line)) local = true;
    if (PINNED_INSTALL.test(line)) pinned = true;
  }
  return problems;
}

interface Step {
  run?: string;
}
interface Container {
  command?: string[];
  args?: string[];
}

/** Each job of a file (a workflow's jobs, a Kubernetes Job's containers) as its script lines, in order. */
function jobsOf(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const doc of parseAllDocuments(text)) {
    const o = doc.toJS() as {
      jobs?: Record<string, { steps?: Step[] }>;
      metadata?: { name: string };
      spec?: { template?: { spec?: { containers?: Container[] } } };
    };
    for (const [name, job] of Object.entries(o?.jobs ?? {}))
      out[name] = (job.steps ?? []).flatMap((s) => (s.run ?? '').split('\n'));
    for (const c of o?.spec?.template?.spec?.containers ?? [])
      out[`${o.metadata?.name}`] = [...(c.command ?? []), ...(c.args ?? [])].flatMap((a) => a.split('\n'));
  }
  return out;
}

const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));

describe('the rule', () => {
  const workflow = (steps: string[]) =>
    `name: x\non: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n${steps.map((r) => `      - run: ${r}\n`).join('')}`;
  const lookups = (text: string) => Object.values(jobsOf(text)).flatMap(registryLookups);

  it('refuses npx petstore-conformance without a local install in the same job, and a call with nothing installed', () => {
    expect(lookups(workflow(['npx petstore-conformance run --target "$T"']))).toEqual([
      'npx petstore-conformance without a local install in the same job: npx petstore-conformance run --target "$T"',
    ]);
    expect(lookups(workflow(['npx --no-install petstore-conformance load', 'npm ci']))).toHaveLength(1);
    expect(lookups(workflow(['npm exec -- petstore-conformance run']))).toHaveLength(1);
    expect(lookups(workflow(['petstore-conformance run']))).toHaveLength(1);
    // An install in another job does not count.
    const twoJobs = `name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm ci\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npx petstore-conformance run\n`;
    expect(lookups(twoJobs)).toHaveLength(1);
  });

  it('refuses a call that fetches whatever is installed: a version named, or --yes', () => {
    expect(lookups(workflow(['npm ci', 'npx --yes petstore-conformance@0.1.0 load']))).toHaveLength(1);
    expect(lookups(workflow(['npm ci', 'npx -y petstore-conformance run']))).toHaveLength(1);
    expect(lookups(workflow(['npm ci', 'npx petstore-conformance@latest run']))).toHaveLength(1);
  });

  it('allows npx after npm ci in the same job, and the installed command after a pinned install', () => {
    expect(lookups(workflow(['npm ci', 'npx petstore-conformance run']))).toEqual([]);
    expect(
      lookups(
        workflow(['npm install --prefix "$RUNNER_TEMP/psc" --omit=dev "$PSC_TARBALL"', 'petstore-conformance run']),
      ),
    ).toEqual([]);
    // npx does not look in another prefix: an install there is no local install for it.
    expect(
      lookups(workflow(['npm install --prefix /tmp/psc "$PSC_TARBALL"', 'npx petstore-conformance run'])),
    ).toHaveLength(1);
  });
});

describe.each(files)('examples/%s', (file) => {
  it('reaches the tool through the action or a pinned install, never a registry lookup of its name', () => {
    const text = readFileSync(new URL(file, dir), 'utf8');
    const jobs = jobsOf(text);
    expect(Object.keys(jobs).length, 'jobs found').toBeGreaterThan(0);
    for (const [name, lines] of Object.entries(jobs)) expect(registryLookups(lines), `${file}: ${name}`).toEqual([]);
    // A version named to npx anywhere in the file, comments aside.
    const code = text
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n');
    expect(code).not.toMatch(/npx[^\n]*petstore-conformance@/);
  });
});
