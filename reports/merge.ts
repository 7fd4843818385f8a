/**
 * Merges shard reports into one: counts add, latency histograms add (percentiles come from the merged histogram, never
 * from averaged percentiles), timelines add second by second (shards run at the same time), raw autocannon results
 * and generator health are kept per shard. The merged report is judged against the thresholds like a single run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessError } from '../config/errors.js';
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
import { STATUS_CLASSES } from '../load/model.js';
import { buildReport } from './build-report.js';
import type { LoadReport } from './model.js';
import { reportSchemaErrors } from './report-schema.js';
import { loadThresholds, type Thresholds } from './thresholds.js';
import { writeReportFiles, type WrittenReport } from './write-report.js';

const MAX_EXAMPLES = 20;

export function readReport(dir: string): LoadReport {
  const file = join(dir, 'report.json');
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
  };
}

/** The merged run of shard reports (scenarios matched by id, in the order of first appearance). */
export function mergeRuns(reports: readonly LoadReport[]): LoadRun {
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
  };
}

/** `petstore-conformance report merge DIR...`: writes the merged report.json, report.html and summary.md into outDir. */
export async function mergeReports(
  dirs: readonly string[],
  outDir: string,
  options: { thresholds?: Thresholds } = {},
): Promise<WrittenReport> {
  const reports = dirs.map(readReport);
  const run = mergeRuns(reports);
  const report = buildReport(run, options.thresholds ?? loadThresholds(null), []);
  const summary = await writeReportFiles(report, outDir);
  return { dir: outDir, report, summary };
}
