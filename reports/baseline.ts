/**
 * A baseline of known defects: the failing signatures of an accepted run, one per line in words, reviewable in a pull
 * request. A run whose failing defects are all in it passes and says how many remain; a defect not in it fails the
 * run, named alone; a baseline entry not seen any more is reported fixed (remove it, or rewrite the file with
 * --update-baseline: it only shrinks as defects are fixed).
 */
import { failsRun } from '../checks/check.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseYaml } from '../spec/yaml-data.js';
import { signatureText } from '../checks/registry.js';
import type { ConformanceReport, Defect } from './conformance-report.js';
import { guardSecrets } from './secret-gate.js';
import { decideVerdict } from './verdict.js';

export interface BaselineState {
  readonly file: string;
  /** Whether this run rewrote the file with its own failing defects. */
  readonly updated: boolean;
  /** Failing defects of this run that the baseline lists. */
  readonly known: readonly string[];
  /** Failing defects of this run that it does not list: these fail the run. */
  readonly new: readonly string[];
  /** Baseline entries this run did not see. */
  readonly fixed: readonly string[];
}

/** The defects that fail this run (violations; warnings too under --strict), echoes included. */
export function failingDefects(report: Pick<ConformanceReport, 'defects' | 'strict'>): Defect[] {
  return report.defects.filter((d) => failsRun(d.level, report.strict));
}

/** Reads a baseline: a YAML or JSON list of signatures in words, or of { check, operation, case } objects. */
export function readBaseline(path: string): string[] {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`baseline ${path}: ${(e as Error).message}`);
  }
  if (data === null || data === undefined) return [];
  if (!Array.isArray(data)) throw new Error(`baseline ${path}: expected a list of signatures`);
  return data.map((entry, i) => {
    if (typeof entry === 'string') return entry.trim();
    const e = entry as { check?: unknown; operation?: unknown; case?: unknown } | null;
    if (e && typeof e.check === 'string')
      return signatureText({
        checkId: e.check,
        operation: typeof e.operation === 'string' && e.operation !== 'any operation' ? e.operation : null,
        caseClass: typeof e.case === 'string' ? e.case : null,
      });
    throw new Error(`baseline ${path}: entry ${i + 1} is neither a signature nor { check, operation, case }`);
  });
}

/** The text of a baseline listing these signatures. */
export function baselineText(signatures: readonly string[], target: string): string {
  const lines = [
    `# Known defects of ${target}, one per line: check · operation · case class.`,
    '# `petstore-conformance run --baseline FILE` passes while only these remain, fails on any other, and reports',
    '# those no longer seen as fixed: remove their lines (or rerun with --update-baseline).',
    ...[...new Set(signatures)].sort().map((s) => `- ${JSON.stringify(s)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Judges a report against a baseline file. With `update`, the file is (re)written with this run's failing defects
 * first, so they are all known. The verdict then fails only on new defects; a blocked run stays blocked.
 */
export function applyBaseline(report: ConformanceReport, file: string, update: boolean): ConformanceReport {
  const failing = [...new Set(failingDefects(report).map((d) => d.signature))];
  if (update) {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(file, guardSecrets(baselineText(failing, report.target.url), file));
  } else if (!existsSync(file)) {
    throw new Error(`baseline ${file} does not exist (write it with --update-baseline)`);
  }
  const listed = readBaseline(file);
  const known = new Set(listed);
  const seen = new Set(failing);
  const baseline: BaselineState = {
    file,
    updated: update,
    known: failing.filter((s) => known.has(s)),
    new: failing.filter((s) => !known.has(s)),
    fixed: listed.filter((s) => !seen.has(s)),
  };
  const verdict = decideVerdict({
    defects: report.defects,
    strict: report.strict,
    blocked: report.verdict === 'blocked',
    failedTests: report.suites.reduce((n, s) => n + s.failedTests, 0),
    baseline,
    leftOut: report.notMeasured,
  });
  return { ...report, verdict, baseline };
}

/** The baseline's state in a few lines: what remains, what is new (named), what was fixed. */
export function baselineLines(b: BaselineState): string[] {
  const out = [
    `Baseline ${b.file}${b.updated ? ' (rewritten by --update-baseline)' : ''}: ${b.known.length} known defect${b.known.length === 1 ? '' : 's'} remain${b.known.length === 1 ? 's' : ''}`,
  ];
  if (b.new.length) out.push(`  new, not in the baseline (these fail the run):`, ...b.new.map((s) => `    ✗ ${s}`));
  if (b.fixed.length)
    out.push(`  fixed, no longer seen (remove from the baseline):`, ...b.fixed.map((s) => `    ✓ ${s}`));
  return out;
}
