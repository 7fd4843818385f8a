/**
 * Merges shard reports into one: counts add, latency histograms add (percentiles come from the merged histogram, never
 * from averaged percentiles), timelines add second by second (shards run at the same time), raw autocannon results
 * and generator health are kept per shard. The merged report is judged against the thresholds like a single run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../errors/catalogue.js';
import { mergeHistograms, summarize } from '../load/histogram.js';
import type {
  ConformanceSummary,
  LatencySummary,
  LimiterOutcome,
  LoadRun,
  ScenarioResult,
  SecondBucket,
  StatusClass,
} from '../load/model.js';
import { MEASURES, STATUS_CLASSES } from '../load/model.js';
import { GENERATOR_BOUND_CPU_PERCENT, type LoadReport, type MergeInfo, type ShardFlag } from './model.js';
import { reportSchemaErrors } from './report-schema.js';
import { loadThresholds, type Thresholds } from './thresholds.js';
import { type WrittenReport, writeRunReport } from './write-report.js';

const MAX_EXAMPLES = 20;

/**
 * The report.json of a directory: the directory itself, or the one report directory inside it (what `load --out DIR`
 * writes: DIR/<UTC timestamp>/report.json), so `report merge shard-*` takes the folders the shards were given.
 */
export function reportFile(dir: string): string {
  const direct = join(dir, 'report.json');
  if (existsSync(direct) || !existsSync(dir)) return direct;
  const inside = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'report.json')))
    .map((d) => d.name)
    .sort();
  if (inside.length > 1)
    throw new HarnessError(
      'PSC_USAGE',
      `report merge: ${dir} holds ${inside.length} reports (${inside.join(', ')}): name the one to merge (${join(dir, inside.at(-1)!)})`,
    );
  return inside.length === 1 ? join(dir, inside[0]!, 'report.json') : direct;
}

export function readReport(dir: string): LoadReport {
  const file = reportFile(dir);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new HarnessError('PSC_USAGE', `report merge: cannot read ${file}: ${(e as Error).message}`);
  }
  const problems = reportSchemaErrors(data);
  if (problems.length > 0)
    throw new HarnessError(
      'PSC_USAGE',
      `report merge: ${file} is not a schemaVersion 1 report: ${problems.slice(0, 3).join('; ')}`,
    );
  return data as LoadReport;
}

function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function mergeTimelines(timelines: readonly (readonly SecondBucket[])[]): SecondBucket[] {
  const length = Math.max(0, ...timelines.map((t) => t.length));
  const out: SecondBucket[] = [];
  for (let second = 0; second < length; second++) {
    const statuses: Record<string, number> = {};
    let errors = 0;
    let timeouts = 0;
    for (const t of timelines) {
      const b = t[second];
      if (!b) continue;
      addCounts(statuses, b.statuses);
      errors += b.errors;
      timeouts += b.timeouts;
    }
    out.push({ second, statuses, errors, timeouts });
  }
  return out;
}

function mergeLimiter(parts: readonly LimiterOutcome[], s: readonly ScenarioResult[]): LimiterOutcome | null {
  const first = parts[0];
  const line = s[0]?.planLine;
  if (!first || !line) return null;
  const accepted = sum(parts.map((p) => p.accepted));
  const before = sum(parts.map((p) => p.acceptedBeforeFirst429));
  const windows = (s[0]?.requested.durationSeconds ?? line.windowSeconds) / line.windowSeconds;
  // Each shard drives its own key: the limits add up.
  const limit = line.limitPerWindow * parts.length;
  const atOrBelow = first.multiplier <= 1;
  return {
    multiplier: first.multiplier,
    offered: sum(parts.map((p) => p.offered)),
    accepted,
    rejected: sum(parts.map((p) => p.rejected)),
    acceptedBeforeFirst429: before,
    falseRejections: sum(parts.map((p) => p.falseRejections)),
    firstWindowRatio: atOrBelow ? null : Math.round((before / limit) * 1000) / 1000,
    acceptedRatio: atOrBelow ? null : Math.round((accepted / (limit * windows)) * 1000) / 1000,
    note: `${first.note} (merged over ${parts.length} shards, one key each)`,
  };
}

export function mergeScenario(parts: readonly ScenarioResult[]): ScenarioResult {
  const first = parts[0];
  if (!first) throw new Error('mergeScenario: nothing to merge');
  const latency: Partial<Record<StatusClass, LatencySummary>> = {};
  for (const cls of STATUS_CLASSES) {
    const hists = parts.flatMap((p) => (p.latency[cls] ? [p.latency[cls].histogram] : []));
    if (hists.length > 0) latency[cls] = summarize(mergeHistograms(hists));
  }
  const byStatus: Record<string, number> = {};
  const errorMessages: Record<string, number> = {};
  const byCheck: Record<string, number> = {};
  for (const p of parts) {
    addCounts(byStatus, p.byStatus);
    addCounts(errorMessages, p.errorMessages);
    addCounts(byCheck, p.conformance.byCheck);
  }
  const conformance: ConformanceSummary = {
    responsesChecked: sum(parts.map((p) => p.conformance.responsesChecked)),
    bodiesValidated: sum(parts.map((p) => p.conformance.bodiesValidated)),
    nonConformant: sum(parts.map((p) => p.conformance.nonConformant)),
    byCheck,
    examples: parts.flatMap((p) => p.conformance.examples).slice(0, MAX_EXAMPLES),
  };
  const rates = parts.map((p) => p.requested.overallRate);
  const gone = parts.find((p) => p.targetUnavailable !== undefined)?.targetUnavailable;
  const limiters = parts.flatMap((p) => (p.limiter ? [p.limiter] : []));
  return {
    ...first,
    requested: {
      connections: sum(parts.map((p) => p.requested.connections)),
      overallRate: rates.every((r) => r !== null) ? sum(rates as number[]) : null,
      durationSeconds: Math.max(...parts.map((p) => p.requested.durationSeconds)),
      maxRequests: sum(parts.map((p) => p.requested.maxRequests)),
    },
    startOffsetSeconds: Math.min(...parts.map((p) => p.startOffsetSeconds)),
    startedAt: parts.map((p) => p.startedAt).sort()[0]!,
    elapsedSeconds: Math.max(...parts.map((p) => p.elapsedSeconds)),
    responses: sum(parts.map((p) => p.responses)),
    byStatus,
    errors: sum(parts.map((p) => p.errors)),
    timeouts: sum(parts.map((p) => p.timeouts)),
    errorMessages,
    // Shards run side by side: their rates add.
    achievedRate: Math.round(sum(parts.map((p) => p.achievedRate)) * 100) / 100,
    latency,
    timeline: mergeTimelines(parts.map((p) => p.timeline)),
    limiter: limiters.length > 0 ? mergeLimiter(limiters, parts) : null,
    conformance,
    raw: parts.flatMap((p) => p.raw),
    ...(gone ? { targetUnavailable: gone } : {}),
    generator: parts.flatMap((p) => p.generator ?? []),
  };
}

/** The merged run of shard reports (scenarios matched by id, in the order of first appearance). */
export function mergeRuns(reports: readonly LoadReport[], dirs: readonly string[] = []): LoadRun {
  const first = reports[0];
  if (!first) throw new HarnessError('PSC_USAGE', 'report merge: give at least one report directory');
  const ids: string[] = [];
  const byId = new Map<string, ScenarioResult[]>();
  for (const r of reports) {
    for (const s of r.scenarios) {
      if (!byId.has(s.id)) {
        ids.push(s.id);
        byId.set(s.id, []);
      }
      byId.get(s.id)!.push(s);
    }
  }
  const gone = reports.findIndex((r) => r.unavailable !== undefined);
  const unavailable =
    gone >= 0
      ? {
          reason: `shard ${reports[gone]!.shard?.index ?? dirs[gone] ?? gone + 1}: ${reports[gone]!.unavailable!.reason}`,
          scenario: reports[gone]!.unavailable!.scenario,
        }
      : undefined;
  return {
    profile: 'merged',
    target: first.target,
    startedAt: reports.map((r) => r.startedAt).sort()[0]!,
    finishedAt: reports
      .map((r) => r.finishedAt)
      .sort()
      .at(-1)!,
    environment: first.environment,
    generator: reports.flatMap((r) => r.generator),
    scenarios: ids.map((id) => mergeScenario(byId.get(id)!)),
    ...(unavailable ? { unavailable } : {}),
    planned: {
      measures: [...new Set(reports.flatMap((r) => r.planned?.measures ?? MEASURES))],
      aboveRate: reports.some((r) => r.planned?.aboveRate ?? true),
    },
  };
}

/**
 * Refuses shards that do not make one night (exit 2 naming the problem): different profiles (name or definition),
 * different counts or limiter placements, a missing or duplicated index, or shards mixed with plain runs. Plain runs
 * (no --shard) merge as before, if they are of one profile.
 */
function checkShards(reports: readonly LoadReport[], dirs: readonly string[]): void {
  const fail = (why: string): never => {
    throw new HarnessError('PSC_USAGE', `report merge: ${why}`);
  };
  const where = (i: number) => dirs[i] ?? `report ${i + 1}`;
  const sharded = reports.map((r, i) => ({ shard: r.shard, profile: r.profile, at: where(i) }));
  const plain = sharded.filter((s) => !s.shard);
  if (plain.length > 0 && plain.length < reports.length)
    fail(
      `${plain.map((p) => p.at).join(', ')} ${plain.length === 1 ? 'is not a shard' : 'are not shards'} (run without --shard) but ${sharded.find((s) => s.shard)!.at} is: merge shards of one night only`,
    );
  if (plain.length === reports.length) {
    const profiles = [...new Set(reports.map((r) => r.profile))];
    if (profiles.length > 1)
      fail(`the reports are of different profiles: ${sharded.map((s) => `${s.profile} (${s.at})`).join(', ')}`);
    return;
  }
  const shards = sharded.map((s) => ({ ...s.shard!, at: s.at }));
  const first = shards[0]!;
  const identities = [...new Set(shards.map((s) => `${s.profile}#${s.profileId}`))];
  if (identities.length > 1)
    fail(
      `the shards ran different profiles: ${shards.map((s) => `${s.profile} (definition ${s.profileId}) in ${s.at}`).join(', ')}`,
    );
  const counts = [...new Set(shards.map((s) => s.count))];
  if (counts.length > 1)
    fail(
      `the shards were started with different counts: ${shards.map((s) => `${s.index}/${s.count} in ${s.at}`).join(', ')}`,
    );
  const placements = [...new Set(shards.map((s) => s.limiterShards))];
  if (placements.length > 1)
    fail(`the shards differ in --limiter-shards: ${shards.map((s) => `${s.limiterShards} in ${s.at}`).join(', ')}`);
  for (let index = 1; index <= first.count; index++) {
    const found = shards.filter((s) => s.index === index);
    if (found.length > 1) fail(`shard ${index}/${first.count} is given twice: ${found.map((s) => s.at).join(' and ')}`);
  }
  const missing = Array.from({ length: first.count }, (_, i) => i + 1).filter(
    (i) => !shards.some((s) => s.index === i),
  );
  if (missing.length > 0)
    fail(
      `missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${first.count}`).join(', ')} of the ${first.profile} profile (given: ${shards
        .map((s) => `${s.index}/${s.count} in ${s.at}`)
        .join(', ')})`,
    );
}

/** Shards whose start spread exceeds this get a warning: their timelines and summed rates overlap only in part. */
const MAX_START_SPREAD_SECONDS = 1;
/** A shard below this share of its requested rate could not generate its load. */
export const MIN_SHARE_RATIO = 0.9;

/** Each shard scenario that could not generate its share (achieved below 90 % of it), or a closed loop on a busy core. */
export function flagShards(reports: readonly LoadReport[]): ShardFlag[] {
  const flags: ShardFlag[] = [];
  for (const r of reports) {
    for (const s of r.scenarios) {
      // The per-plan limiter runs are judged on what the target accepted, not on what the shard sent.
      if (s.limiter || s.targetUnavailable !== undefined) continue;
      for (const g of s.generator ?? []) {
        // CPU near a core: its own bottleneck. (Event-loop delay is reported, not judged: on a busy machine it reads high
        // whatever the shard does, so it cannot tell a saturated shard from a starved one.)
        const bound = g.peakCpuPercent >= GENERATOR_BOUND_CPU_PERCENT;
        const below = g.requestedRate !== null && g.achievedRate < MIN_SHARE_RATIO * g.requestedRate;
        if (!below && !(g.requestedRate === null && bound)) continue;
        const who = `shard ${g.shard ?? r.shard?.index ?? '?'}`;
        const cpu = `its client CPU peaked at ${g.peakCpuPercent}% of a core and its event loop lagged ${g.eventLoopDelayP99Ms} ms at p99`;
        const reason = below
          ? `${who} achieved ${g.achievedRate} of its ${g.requestedRate} req/s share; ${cpu}${bound ? ': the shard was its own bottleneck' : ' (the target, the network or a busy machine held it back)'}`
          : `${who} ran a closed loop; ${cpu}: the shard was its own bottleneck`;
        flags.push({
          shard: g.shard ?? r.shard?.index ?? null,
          scenario: s.id,
          requestedRate: g.requestedRate,
          achievedRate: g.achievedRate,
          peakCpuPercent: g.peakCpuPercent,
          generatorBound: bound,
          reason,
        });
      }
    }
  }
  return flags;
}

/** What the merged report says of its shards: start offsets and their spread, warnings, flagged shards. */
function mergeInfo(reports: readonly LoadReport[], dirs: readonly string[]): MergeInfo {
  const starts = reports.map((r) => Date.parse(r.startedAt));
  const t0 = Math.min(...starts);
  const spread = Math.round((Math.max(...starts) - t0) / 10) / 100;
  const flagged = flagShards(reports);
  const warnings: string[] = [];
  if (spread > MAX_START_SPREAD_SECONDS)
    warnings.push(
      `the shards started ${spread} s apart (more than ${MAX_START_SPREAD_SECONDS} s): their per-second timelines and summed rates overlap only in part; start them together with --start-at`,
    );
  for (const f of flagged) warnings.push(`${f.scenario}: ${f.reason}; its latency is not to be trusted`);
  const first = reports[0]!;
  return {
    profile: first.shard?.profile ?? first.profile,
    profileId: first.shard?.profileId ?? null,
    count: reports.length,
    startSpreadSeconds: spread,
    shards: reports.map((r, i) => ({
      index: r.shard?.index ?? null,
      dir: dirs[i] ?? '',
      startedAt: r.startedAt,
      startOffsetSeconds: Math.round((starts[i]! - t0) / 10) / 100,
    })),
    warnings,
    flagged,
  };
}

/** Marks the merged scenarios whose latency a flagged shard makes untrustworthy. */
function markUntrustworthy(run: LoadRun, flagged: readonly ShardFlag[]): LoadRun {
  return {
    ...run,
    scenarios: run.scenarios.map((s) => {
      const mine = flagged.filter((f) => f.scenario === s.id);
      if (mine.length === 0) return s;
      const who = mine.map((f) => `shard ${f.shard ?? '?'}`).join(', ');
      return {
        ...s,
        untrustworthy: `${who} could not generate ${mine.length === 1 ? 'its' : 'their'} share: the latency measured is that of a saturated generator or an unplanned load, not to be trusted`,
      };
    }),
  };
}

/**
 * `petstore-conformance report merge DIR... --out OUT`: checks the shards belong together, merges them, and writes
 * OUT/<UTC timestamp>-merged/{report.json,report.html,summary.md} and OUT/history.json, the layout of `load --out`.
 */
export async function mergeReports(
  dirs: readonly string[],
  out: string,
  options: { thresholds?: Thresholds; now?: Date } = {},
): Promise<WrittenReport> {
  const reports = dirs.map(readReport);
  checkShards(reports, dirs);
  const merge = mergeInfo(reports, dirs);
  const run = markUntrustworthy(mergeRuns(reports, dirs), merge.flagged);
  return writeRunReport(run, out, options.thresholds ?? loadThresholds(null), options.now ?? new Date(), {
    suffix: '-merged',
    merge,
  });
}
