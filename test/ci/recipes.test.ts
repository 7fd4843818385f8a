/**
 * The sharding recipes in examples/ are ready to use: the GitHub Actions matrix workflow is valid against the
 * published workflow schema (SchemaStore's, vendored in test/ci/schemas/), the Kubernetes manifest against the
 * Kubernetes OpenAPI schema (the kubernetes-models package), and every petstore-conformance command in them parses
 * with the command's own flags and parsers: shards 1..N, each of N, the same start barrier, and a merge of exactly
 * the N folders the shards write.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parseAllDocuments, parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadOptions, parseShard, parseStartAt } from '../../cli/load-command.js';
import { reportOptions } from '../../cli/report-command.js';
import { profileNamed } from '../../load/profiles.js';

const example = (name: string) => readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');
const workflowSchema = JSON.parse(readFileSync(new URL('./schemas/github-workflow.json', import.meta.url), 'utf8'));
// SchemaStore's schema is draft-07 with its own annotation keywords: strict mode off, every error reported.
const validateWorkflow = new Ajv({ strict: false, allErrors: true }).compile(workflowSchema);

/** Shell words of a command line (double and single quotes). */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** The petstore-conformance invocations of a script: [subcommand, args], with `vars` substituted first. */
function invocations(script: string, vars: Record<string, string>): [string, string[]][] {
  const found: [string, string[]][] = [];
  for (const raw of script.split('\n')) {
    let line = raw;
    for (const [k, v] of Object.entries(vars)) line = line.split(k).join(v);
    const ws = words(line);
    // The command by name (on the PATH) or by the path of a pinned install's bin.
    const at = ws.findIndex((w) => /(^|\/)petstore-conformance$/.test(w));
    if (at >= 0) found.push([ws[at + 1]!, ws.slice(at + 2)]);
  }
  return found;
}

function parseLoad(args: string[]) {
  const v = parseArgs({ args, options: loadOptions, strict: true, allowPositionals: false }).values;
  // The command's own parsers accept every value.
  profileNamed(v.profile);
  return { ...v, place: parseShard(v.shard, v['limiter-shards']), startAt: parseStartAt(v['start-at']) };
}

function parseMerge(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: reportOptions, strict: true, allowPositionals: true });
  expect(positionals[0]).toBe('merge');
  return { ...values, dirs: positionals.slice(1) };
}

/** A GitHub Actions expression as the workflow writes it: ${{ … }}. */
const expr = (e: string) => `\${{ ${e} }}`;

const SOON = () => new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

interface Step {
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface WorkflowJob {
  needs?: string | string[];
  if?: string;
  'runs-on': string;
  strategy?: { matrix: { shard: number[] } };
  outputs?: Record<string, string>;
  steps: Step[];
}

describe('examples/sharded-load.yml (GitHub Actions matrix)', () => {
  const doc = parseDocument(example('sharded-load.yml'));
  const w = doc.toJS() as { jobs: Record<string, WorkflowJob> };

  it('is valid YAML and valid against the published workflow schema', () => {
    expect(doc.errors.map((e) => e.message)).toEqual([]);
    expect(validateWorkflow(w), JSON.stringify(validateWorkflow.errors, null, 2)).toBe(true);
  });

  it('the schema is the one that rejects the workflow docs/sharding.md used to show (no runs-on)', () => {
    const broken = structuredClone(w) as { jobs: Record<string, Partial<WorkflowJob>> };
    delete broken.jobs.merge!['runs-on'];
    expect(validateWorkflow(broken)).toBe(false);
    expect(
      validateWorkflow.errors?.some(
        (e) => e.params && (e.params as { missingProperty?: string }).missingProperty === 'runs-on',
      ),
    ).toBe(true);
  });

  it('runs shards 1..N of N, started at one barrier, each with its own key', () => {
    const load = w.jobs.load!;
    const shards = load.strategy!.matrix.shard;
    const n = shards.length;
    expect(shards).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(load.needs).toBe('barrier');
    expect(w.jobs.barrier!.outputs!['start-at']).toMatch(/steps\.at\.outputs\.start-at/);
    const step = load.steps.find((s) => s.run?.includes('petstore-conformance load'))!;
    expect(step.env!.START_AT).toBe(expr('needs.barrier.outputs.start-at'));
    expect(step.env!.PETSTORE_API_KEY_PRO).toBe(expr("secrets[format('PETSTORE_API_KEY_PRO_{0}', matrix.shard)]"));
    const places = shards.map((shard) => {
      const calls = invocations(step.run!, {
        [expr('matrix.shard')]: String(shard),
        $STAGING_URL: 'https://staging.example/v1',
        $START_AT: SOON(),
      });
      expect(calls.map(([sub]) => sub)).toEqual(['load']);
      const v = parseLoad(calls[0]![1]);
      expect(v.profile).toBe('nightly');
      expect(v.out).toBe('shard');
      expect(v.startAt).not.toBeNull();
      return v.place!;
    });
    expect(places.map((p) => `${p.index}/${p.count}`)).toEqual(shards.map((s) => `${s}/${n}`));
    // Each shard uploads its folder whatever its exit code, under a name the merge downloads.
    const upload = load.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.if).toBe('always()');
    expect(upload.with).toMatchObject({ name: `shard-${expr('matrix.shard')}`, path: 'shard/' });
  });

  it('every job installs the pinned release before it calls the command; the merge takes exactly the N shard folders', () => {
    const checked: string[] = [];
    for (const [name, job] of Object.entries(w.jobs)) {
      const calls = job.steps.findIndex((s) => invocations(s.run ?? '', {}).length > 0);
      if (calls < 0) continue;
      checked.push(name);
      const install = job.steps.findIndex((s) => s.run?.includes('npm install --prefix "$RUNNER_TEMP/psc" --omit=dev'));
      expect(install, name).toBeGreaterThanOrEqual(0);
      expect(job.steps[install]!.run, name).toContain('"$RUNNER_TEMP/psc/node_modules/.bin" >> "$GITHUB_PATH"');
      expect(calls, name).toBeGreaterThan(install);
    }
    // Both jobs call the command: the loop checked them, it did not skip them all.
    expect(checked.sort()).toEqual(['load', 'merge']);
    // The install names a release's tarball, pinned by its version.
    expect((doc.toJS() as { env: Record<string, string> }).env.PSC_TARBALL).toMatch(
      /\/releases\/download\/v(\d+\.\d+\.\d+)\/petstore-conformance-\1\.tgz$/,
    );
    const merge = w.jobs.merge!;
    expect(merge.needs).toBe('load');
    expect(merge.if).toBe(expr('!cancelled()'));
    const download = merge.steps.findIndex((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(merge.steps[download]!.with).toMatchObject({ pattern: 'shard-*', path: 'shards' });
    const runAt = merge.steps.findIndex((s) => s.run?.includes('report merge'));
    expect(runAt).toBeGreaterThan(download);
    const [[sub, args]] = invocations(merge.steps[runAt]!.run!, {}) as [[string, string[]]];
    expect(sub).toBe('report');
    const v = parseMerge(args);
    const n = w.jobs.load!.strategy!.matrix.shard.length;
    expect(v.dirs).toEqual(Array.from({ length: n }, (_, i) => `shards/shard-${i + 1}`));
    // The history the merge appends to (out/history.json) is restored before and saved after.
    const restore = merge.steps.findIndex((s) => s.uses?.startsWith('actions/cache/restore@'));
    const save = merge.steps.findIndex((s) => s.uses?.startsWith('actions/cache/save@'));
    expect(restore).toBeLessThan(runAt);
    expect(save).toBeGreaterThan(runAt);
    expect(merge.steps[restore]!.with!.path).toBe(`${v.out}/history.json`);
    expect(merge.steps[save]!.with!.key).toBe(merge.steps[restore]!.with!.key);
  });
});

interface Container {
  command: string[];
  args: string[];
  env?: { name: string; value?: string }[];
  volumeMounts: { name: string; mountPath: string }[];
}
interface K8sJob {
  kind: string;
  metadata: { name: string };
  spec: {
    completionMode?: string;
    completions?: number;
    parallelism?: number;
    template: {
      spec: { containers: Container[]; volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
    };
  };
}

describe('examples/k8s-sharded-load.yaml (Kubernetes Indexed Job and the merge Job)', () => {
  const START_AT = SOON();
  const text = example('k8s-sharded-load.yaml');
  const docs = parseAllDocuments(text.replace(/\$\{START_AT\}/g, START_AT));

  it('holds a claim, the Indexed shard Job and the merge Job, each valid against the Kubernetes schema', () => {
    expect(docs.flatMap((d) => d.errors.map((e) => e.message))).toEqual([]);
    const objects = docs.map((d) => d.toJS() as { kind: string });
    expect(objects.map((o) => o.kind)).toEqual(['PersistentVolumeClaim', 'Job', 'Job']);
    for (const o of objects) {
      const model = o.kind === 'Job' ? new Job(o as never) : new PersistentVolumeClaim(o as never);
      expect(() => model.validate(), o.kind).not.toThrow();
    }
    // The schema does catch a mistake of the kind that matters here.
    const typo = structuredClone(objects[1]) as K8sJob;
    typo.spec.completionMode = 'indexed';
    expect(() => new Job(typo as never).validate()).toThrow(/completionMode/);
  });

  const [claim, shardsJob, mergeJob] = docs.map((d) => d.toJS()) as [{ metadata: { name: string } }, K8sJob, K8sJob];

  it('starts N pods together, shard JOB_COMPLETION_INDEX + 1 of N each, at the start barrier', () => {
    const n = shardsJob.spec.completions!;
    expect(shardsJob.spec).toMatchObject({ completionMode: 'Indexed', parallelism: n });
    const c = shardsJob.spec.template.spec.containers[0]!;
    expect(c.env!.find((e) => e.name === 'START_AT')!.value).toBe(START_AT);
    expect(text).toContain(`value: "\${START_AT}"`);
    const script = c.args.join('\n');
    expect(script).toContain('N=$((JOB_COMPLETION_INDEX + 1))');
    expect(script).toContain('PETSTORE_API_KEY_PRO_$N');
    const places = Array.from({ length: n }, (_, i) => {
      const calls = invocations(script, {
        $N: String(i + 1),
        $STAGING_URL: 'https://staging.example/v1',
        $START_AT: START_AT,
      });
      expect(calls.map(([sub]) => sub)).toEqual(['load']);
      const v = parseLoad(calls[0]![1]);
      expect(v.out).toBe(`shard-${i + 1}`);
      return `${v.place!.index}/${v.place!.count}`;
    });
    expect(places).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}/${n}`));
  });

  it('the merge Job reads the same volume and merges exactly the N shard folders', () => {
    const n = shardsJob.spec.completions!;
    const c = mergeJob.spec.template.spec.containers[0]!;
    const calls = invocations(c.args.join('\n'), {});
    expect(calls.map(([sub]) => sub)).toEqual(['report']);
    const v = parseMerge(calls[0]![1]);
    expect(v.dirs).toEqual(Array.from({ length: n }, (_, i) => `shard-${i + 1}`));
    const claimOf = (j: K8sJob) =>
      j.spec.template.spec.volumes.find((x) => x.persistentVolumeClaim)!.persistentVolumeClaim!.claimName;
    expect(claimOf(mergeJob)).toBe(claim.metadata.name);
    expect(claimOf(shardsJob)).toBe(claim.metadata.name);
    // It waits for the reports of every shard it merges.
    for (const d of v.dirs) expect(c.args.join('\n')).toContain(`${d}/*/report.json`);
  });
});
