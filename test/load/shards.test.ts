/**
 * Shards as separate processes started together (--start-at) against one embedded server, then merged: the totals are
 * the sums, the merged latency percentiles are those of one HDR histogram built from every shard's raw samples (the
 * merge is exact, not an approximation), the per-second timelines add up, and the merged rate is the profile's. A
 * shard asked for more than one process can send is flagged; shards that do not make one night are refused (exit 2).
 *
 * The profiles are short and their rates low (one process generates them easily, on a busy machine too): what is
 * asserted is arithmetic, never a duration.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportCommand } from '../../cli/report-command.js';
import { newHistogram, summarize, type Histogram } from '../../load/histogram.js';
import { STATUS_CLASSES, type LatencySummary } from '../../load/model.js';
import { type EmbeddedServer, startEmbedded } from '../../reference/launcher.js';
import { MIN_SHARE_RATIO, reportFile } from '../../reports/merge.js';
import type { LoadReport } from '../../reports/model.js';
import { reportSchemaErrors } from '../../reports/report-schema.js';
import { readJson } from '../support/artifacts.js';
import { type CliResult, runCli, userEnv } from '../tls/support.js';
import { tempDir } from '../support/temp-dir.js';

/** The mix at 40 req/s in all, then a short closed loop, then the free plan at 0.9× its rate (first shard only). */
const PROFILE = {
  name: 'shard-check',
  embeddedWindowSeconds: 2,
  requestCap: 20_000,
  timeoutSeconds: 5,
  scenarios: [
    { kind: 'mix-rate', fraction: 0.5, maxRate: 40, durationSeconds: 4 },
    { kind: 'mix-connections', connections: 4, durationSeconds: 2 },
    { kind: 'plan-rate', multipliers: [0.9] },
  ],
};
const REQUESTED_RATE = 40;

/** A rate no one process sends (250,000 req/s of the enterprise key), bounded in requests so it ends quickly. */
const IMPOSSIBLE = {
  name: 'too-fast',
  embeddedWindowSeconds: 2,
  requestCap: 1_500,
  timeoutSeconds: 5,
  scenarios: [{ kind: 'mix-rate', fraction: 0.5, maxRate: 1_000_000, durationSeconds: 2 }],
};

let server: EmbeddedServer;
let root: string;
const lenient = () => {
  // Latency and throughput on a busy shared machine are not what this test is about.
  const file = join(root, 'thresholds.json');
  writeFileSync(file, JSON.stringify({ p99LatencyMs: { max: 600_000 }, throughputRps: { min: 1 } }));
  return file;
};

beforeAll(async () => {
  server = await startEmbedded({ port: 0, windowSeconds: 2 });
  root = tempDir('psc-shards-');
});
afterAll(async () => {
  await server?.close();
});

interface Shards {
  readonly dirs: string[];
  readonly samples: string[];
  readonly results: CliResult[];
}

/** N shard processes of `profile`, all waiting for one start barrier a few seconds ahead. */
async function runShards(tag: string, profile: object, n: number): Promise<Shards> {
  const profileFile = join(root, `${tag}.json`);
  writeFileSync(profileFile, JSON.stringify(profile));
  const startAt = new Date(Date.now() + 10_000).toISOString();
  const dirs = Array.from({ length: n }, (_, i) => join(root, `${tag}-shard-${i + 1}`));
  const samples = dirs.map((d) => `${d}.samples.tsv`);
  const env = userEnv(server.keys, { PETSTORE_RATE_WINDOW_SECONDS: '2' });
  const results = await Promise.all(
    dirs.map((dir, i) =>
      runCli(
        [
          'load',
          ...['--profile', profileFile, '--target', server.url, '--out', dir],
          ...['--shard', `${i + 1}/${n}`, '--start-at', startAt, '--samples', samples[i]!],
          ...['--thresholds', lenient()],
        ],
        env,
        150_000,
      ),
    ),
  );
  return { dirs, samples, results };
}

async function merge(
  dirs: readonly string[],
  out: string,
): Promise<{ code: number; err: string; report?: LoadReport }> {
  const err: string[] = [];
  const code = await reportCommand(['merge', ...dirs, '--out', out, '--thresholds', lenient()], {
    stdout: { write: () => {} },
    stderr: { write: (t: string) => err.push(t) },
  });
  if (code === 2) return { code, err: err.join('') };
  return { code, err: err.join(''), report: readJson<LoadReport>(reportFile(out)) };
}

/** One histogram per (scenario, status class) from every shard's raw samples. */
function histogramsFromSamples(files: readonly string[]): Map<string, Histogram> {
  const out = new Map<string, Histogram>();
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (!line) continue;
      const [id, cls, us] = line.split('\t');
      const k = `${id} ${cls}`;
      let h = out.get(k);
      if (!h) {
        h = newHistogram();
        out.set(k, h);
      }
      h.recordValue(Number(us));
    }
  }
  return out;
}

const figures = (l: LatencySummary) => {
  const { histogram: _h, ...rest } = l;
  return rest;
};

describe.each([2, 4])('%i shard processes started together, then merged', (n) => {
  let shards: Shards;
  let merged: LoadReport;
  let shardReports: LoadReport[];

  beforeAll(async () => {
    shards = await runShards(`n${n}`, PROFILE, n);
    for (const r of shards.results) expect(r.status, r.stderr).toBe(0);
    shardReports = shards.dirs.map((d) => readJson<LoadReport>(reportFile(d)));
    const m = await merge(shards.dirs, join(root, `n${n}-merged`));
    expect(m.code, m.err).toBe(0);
    merged = m.report!;
  }, 170_000);

  it('each shard records its index, the count and the profile identity; the merge is valid and lists them', () => {
    expect(shardReports.map((r) => r.shard?.index)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(new Set(shardReports.map((r) => `${r.shard?.count} ${r.shard?.profile} ${r.shard?.profileId}`)).size).toBe(
      1,
    );
    expect(reportSchemaErrors(merged)).toEqual([]);
    expect(merged.shards).toBe(n);
    expect(merged.merge!.shards.map((s) => s.index)).toEqual(shardReports.map((r) => r.shard!.index));
    // Each shard's start offset is shown; the warning follows the spread (the spread itself is the machine's).
    expect(Math.min(...merged.merge!.shards.map((s) => s.startOffsetSeconds))).toBe(0);
    expect(merged.merge!.warnings.some((w) => /started [\d.]+ s apart/.test(w))).toBe(
      merged.merge!.startSpreadSeconds > 1,
    );
  });

  it('total requests equal the sum of the shards, per scenario and per status', () => {
    for (const s of merged.scenarios) {
      const parts = shardReports.flatMap((r) => r.scenarios.filter((p) => p.id === s.id));
      expect(s.responses, s.id).toBe(parts.reduce((a, p) => a + p.responses, 0));
      expect(s.errors, s.id).toBe(parts.reduce((a, p) => a + p.errors, 0));
      for (const [status, count] of Object.entries(s.byStatus))
        expect(count, `${s.id} ${status}`).toBe(parts.reduce((a, p) => a + (p.byStatus[status] ?? 0), 0));
      expect(s.responses, s.id).toBeGreaterThan(0);
    }
    expect(merged.figures.responses).toBe(shardReports.reduce((a, r) => a + r.figures.responses, 0));
  });

  it('merged latency percentiles equal those of one histogram of every raw sample (exact HDR merge)', () => {
    const truth = histogramsFromSamples(shards.samples);
    let compared = 0;
    for (const s of merged.scenarios) {
      for (const cls of STATUS_CLASSES) {
        const l = s.latency[cls];
        const h = truth.get(`${s.id} ${cls}`);
        expect(Boolean(l), `${s.id} ${cls}`).toBe(Boolean(h));
        if (!l || !h) continue;
        expect(figures(l), `${s.id} ${cls}`).toEqual(figures(summarize(h)));
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(3);
  });

  it('the per-second timeline adds up', () => {
    for (const s of merged.scenarios) {
      const parts = shardReports.flatMap((r) => r.scenarios.filter((p) => p.id === s.id));
      for (const b of s.timeline) {
        const statuses: Record<string, number> = {};
        for (const p of parts)
          for (const [k, v] of Object.entries(p.timeline[b.second]?.statuses ?? {}))
            statuses[k] = (statuses[k] ?? 0) + v;
        expect(b.statuses, `${s.id} second ${b.second}`).toEqual(statuses);
      }
    }
  });

  it('the merged rate is the requested rate, each shard its share, and the achieved rates add up', () => {
    const mix = merged.scenarios.find((s) => s.id === 'mix-rate-50pct')!;
    expect(mix.requested.overallRate).toBe(REQUESTED_RATE);
    const parts = shardReports.map((r) => r.scenarios.find((s) => s.id === 'mix-rate-50pct')!);
    expect(parts.reduce((a, p) => a + p.requested.overallRate!, 0)).toBe(REQUESTED_RATE);
    // Arithmetic, not timing (how fast a busy machine sends is the bench's): the merged rate is the shards' sum, and a
    // shard is flagged exactly when it achieved less than its share allows.
    expect(mix.achievedRate).toBe(Math.round(parts.reduce((a, p) => a + p.achievedRate, 0) * 100) / 100);
    const short = shardReports
      .filter((_, i) =>
        (parts[i]!.generator ?? []).some(
          (g) => g.requestedRate !== null && g.achievedRate < MIN_SHARE_RATIO * g.requestedRate,
        ),
      )
      .map((r) => r.shard!.index);
    expect(merged.merge!.flagged.filter((f) => f.scenario === 'mix-rate-50pct').map((f) => f.shard)).toEqual(short);
  });

  it('the per-plan limiter runs went to the first shard only', () => {
    const plan = shardReports.map((r) => r.scenarios.filter((s) => s.kind === 'plan-rate').length);
    expect(plan[0]).toBeGreaterThan(0);
    expect(plan.slice(1).every((c) => c === 0)).toBe(true);
    expect(merged.scenarios.filter((s) => s.kind === 'plan-rate').every((s) => s.raw.length === 1)).toBe(true);
  });
});

describe('what the merge refuses or flags', () => {
  let fast: Shards;
  let ok: Shards;
  beforeAll(async () => {
    [fast, ok] = await Promise.all([runShards('fast', IMPOSSIBLE, 2), runShards('ok', PROFILE, 2)]);
  }, 170_000);

  it('a shard given a rate it cannot generate is flagged, and its latency marked untrustworthy', async () => {
    for (const r of fast.results) expect([0, 1], r.stderr).toContain(r.status);
    const m = await merge(fast.dirs, join(root, 'fast-merged'));
    expect(m.report, m.err).toBeDefined();
    const flagged = m.report!.merge!.flagged;
    expect(flagged.map((f) => f.shard).sort()).toEqual([1, 2]);
    for (const f of flagged) {
      expect(f.scenario).toBe('mix-rate-50pct');
      expect(f.achievedRate).toBeLessThan(0.9 * f.requestedRate!);
      expect(f.reason).toMatch(new RegExp(`^shard ${f.shard} achieved [\\d.]+ of its ${f.requestedRate} req/s share`));
    }
    expect(m.report!.scenarios[0]!.untrustworthy).toMatch(/shard 1, shard 2 could not generate their share/);
    expect(m.report!.merge!.warnings.join('\n')).toMatch(/latency is not to be trusted/);
  });

  it('report merge with a missing shard exits 2 naming it', async () => {
    const m = await merge([ok.dirs[0]!], join(root, 'missing'));
    expect(m.code).toBe(2);
    expect(m.err).toMatch(
      /^petstore-conformance: report merge: missing shard 2\/2 of the shard-check profile .*\[PSC_USAGE\]$/m,
    );
  });

  it('report merge with a duplicated shard exits 2 naming it', async () => {
    const m = await merge([ok.dirs[0]!, ok.dirs[0]!], join(root, 'twice'));
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/shard 1\/2 is given twice/);
  });

  it('report merge with mixed profiles exits 2 naming them', async () => {
    const m = await merge([ok.dirs[0]!, fast.dirs[1]!], join(root, 'mixed'));
    expect(m.code).toBe(2);
    expect(m.err).toMatch(
      /the shards ran different profiles: shard-check \(definition \w+\) in .*too-fast \(definition \w+\)/,
    );
  });
});
