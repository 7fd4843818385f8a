/**
 * Thresholds that fail a load run, from a JSON file (default load-thresholds.json). Latency and throughput are judged
 * twice: against absolute limits, and against the MEDIAN of the last nights of the same profile and target, so one
 * noisy night neither fails the job nor becomes the yardstick. A figure that could not be measured fails: a load run
 * that measured nothing is not green.
 */
import { existsSync, readFileSync } from 'node:fs';
import { HarnessError } from '../errors/catalogue.js';
import type { Measure } from '../load/model.js';
import type { HistoryEntry, KeyFigures, ThresholdCheck, Verdict } from './model.js';

export interface Thresholds {
  readonly p99LatencyMs: { readonly max: number; readonly maxRatioToMedian: number };
  readonly throughputRps: { readonly min: number; readonly minRatioToMedian: number };
  readonly errorRate: { readonly max: number };
  readonly nonConformant: { readonly max: number };
  readonly limiter: {
    readonly maxFalseRejections: number;
    readonly minFirstWindowRatio: number;
    readonly maxAcceptedRatio: number;
  };
  /** Compare with the median of the last `nights` runs, once at least `minNights` exist. */
  readonly trend: { readonly nights: number; readonly minNights: number };
}

export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze({
  p99LatencyMs: { max: 500, maxRatioToMedian: 1.5 },
  throughputRps: { min: 50, minRatioToMedian: 0.7 },
  errorRate: { max: 0.01 },
  nonConformant: { max: 0 },
  limiter: { maxFalseRejections: 0, minFirstWindowRatio: 0.9, maxAcceptedRatio: 1.5 },
  trend: { nights: 7, minNights: 3 },
});

export const DEFAULT_THRESHOLDS_FILE = 'load-thresholds.json';

function fail(file: string, message: string): never {
  throw new HarnessError('PSC_CONFIG', `${file}: ${message}`);
}

/** Reads a thresholds file over the defaults; every value must be a non-negative number. */
export function loadThresholds(file: string | null): Thresholds {
  if (file === null)
    return existsSync(DEFAULT_THRESHOLDS_FILE) ? loadThresholds(DEFAULT_THRESHOLDS_FILE) : DEFAULT_THRESHOLDS;
  if (!existsSync(file)) fail(file, 'thresholds file not found');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(file, `not JSON (${(e as Error).message})`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) fail(file, 'expected an object');
  const out: Record<string, Record<string, number>> = {};
  for (const [group, defaults] of Object.entries(DEFAULT_THRESHOLDS)) {
    const given = (data as Record<string, unknown>)[group];
    if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given)))
      fail(file, `${group} must be an object`);
    out[group] = { ...(defaults as Record<string, number>) };
    for (const [name, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
      if (!(name in (defaults as object)))
        fail(file, `unknown threshold ${group}.${name} (known: ${Object.keys(defaults as object).join(', ')})`);
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
        fail(file, `${group}.${name} must be a non-negative number`);
      out[group]![name] = value;
    }
  }
  for (const group of Object.keys(data as object)) {
    if (!(group in DEFAULT_THRESHOLDS) && !group.startsWith('$')) fail(file, `unknown threshold group "${group}"`);
  }
  return out as unknown as Thresholds;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function check(
  name: string,
  value: number | null,
  comparison: '<=' | '>=',
  limit: number,
  basis: string,
): ThresholdCheck {
  const pass = value !== null && (comparison === '<=' ? value <= limit : value >= limit);
  return { name, value, comparison, limit: Math.round(limit * 1000) / 1000, basis, pass };
}

/**
 * What a run set out to measure: a check of a figure the run never planned (a profile without per-plan runs, a shard
 * that leaves them to the first shard, a profile with no run above a plan's rate) does not apply; one it planned and
 * could not measure fails.
 */
export interface Planned {
  readonly measures: readonly Measure[];
  /** Whether any run above a plan's rate was planned (the two ratio checks judge those). */
  readonly aboveRate: boolean;
}

const ALL_PLANNED: Planned = { measures: ['latency', 'throughput', 'limiter'], aboveRate: true };

const MEASURE_OF: Readonly<Record<string, Measure>> = {
  'p99 latency (ms)': 'latency',
  'p99 latency against the trend (ms)': 'latency',
  'throughput (req/s)': 'throughput',
  'throughput against the trend (req/s)': 'throughput',
  '429s at or below the plan rate': 'limiter',
  'accepted before the first 429 ÷ limit': 'limiter',
  'accepted ÷ limit per window above the rate': 'limiter',
};
/** What a threshold check judges (latency, throughput, the limiter), or null for the checks of every run. */
export const measureOf = (checkName: string): Measure | null => MEASURE_OF[checkName] ?? null;
const ABOVE_RATE = new Set(['accepted before the first 429 ÷ limit', 'accepted ÷ limit per window above the rate']);

/** The checks against fixed limits. */
function absoluteChecks(figures: KeyFigures, t: Thresholds): ThresholdCheck[] {
  return [
    check('p99 latency (ms)', figures.p99LatencyMs, '<=', t.p99LatencyMs.max, 'absolute'),
    check('throughput (req/s)', figures.throughputRps, '>=', t.throughputRps.min, 'absolute'),
    check('error rate', figures.errorRate, '<=', t.errorRate.max, 'absolute'),
    check('non-conformant responses under load', figures.nonConformant, '<=', t.nonConformant.max, 'absolute'),
    check('429s at or below the plan rate', figures.falseRejections, '<=', t.limiter.maxFalseRejections, 'absolute'),
    check(
      'accepted before the first 429 ÷ limit',
      figures.minFirstWindowRatio,
      '>=',
      t.limiter.minFirstWindowRatio,
      'absolute',
    ),
    check(
      'accepted ÷ limit per window above the rate',
      figures.maxAcceptedRatio,
      '<=',
      t.limiter.maxAcceptedRatio,
      'absolute',
    ),
  ];
}

/** The checks against the median of the recent earlier nights, once there are enough of them. */
function trendChecks(figures: KeyFigures, earlier: readonly HistoryEntry[], t: Thresholds): ThresholdCheck[] {
  const recent = earlier.slice(-t.trend.nights);
  if (recent.length < t.trend.minNights) return [];
  // A figure against its median over the recent nights times a ratio; none while no night measured it.
  const against = (
    name: string,
    pick: (f: KeyFigures) => number | null,
    comparison: '<=' | '>=',
    ratio: number,
  ): ThresholdCheck[] => {
    const m = median(recent.flatMap((h) => (pick(h.figures) === null ? [] : [pick(h.figures)!])));
    return m === null
      ? []
      : [check(name, pick(figures), comparison, m * ratio, `median of ${recent.length} earlier nights × ${ratio}`)];
  };
  return [
    ...against('p99 latency against the trend (ms)', (f) => f.p99LatencyMs, '<=', t.p99LatencyMs.maxRatioToMedian),
    ...against('throughput against the trend (req/s)', (f) => f.throughputRps, '>=', t.throughputRps.minRatioToMedian),
  ];
}

/** Judges the figures; `earlier` are previous runs of the same profile and target, oldest first. */
export function evaluate(
  figures: KeyFigures,
  earlier: readonly HistoryEntry[],
  t: Thresholds,
  planned: Planned = ALL_PLANNED,
): Verdict {
  // A check (against the trend as its absolute twin) applies only to what this run set out to measure.
  const applies = (c: ThresholdCheck) => {
    const m = MEASURE_OF[c.name];
    if (m && !planned.measures.includes(m)) return false;
    return !(ABOVE_RATE.has(c.name) && !planned.aboveRate);
  };
  const checks = [...absoluteChecks(figures, t), ...trendChecks(figures, earlier, t)].filter(applies);
  const reasons = checks
    .filter((c) => !c.pass)
    .map((c) =>
      c.value === null
        ? `${c.name}: not measured (no data)`
        : `${c.name}: ${c.value} is not ${c.comparison} ${c.limit} (${c.basis})`,
    );
  if (figures.responses === 0) reasons.unshift('no responses at all: the run measured nothing');
  return { pass: reasons.length === 0, reasons, checks, relativeFromNights: t.trend.minNights };
}
