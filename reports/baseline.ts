/**
 * A baseline of known defects: the failing defects (causes) of an accepted run, each with the signatures it was seen
 * as, in words, reviewable in a pull request. A run whose failing defects are all in it passes and says how many
 * remain; a defect not in it fails the run, named alone; a known defect seen as a signature the baseline does not list
 * is reported as new evidence (the cause is known, so it does not fail the run, but it is never accepted silently);
 * a baseline defect not seen any more is reported fixed (remove it, or rewrite the file with --update-baseline).
 * A baseline of signatures only (written before defects) still works: each of its lines names a signature, and a
 * defect is known when any of its signatures is listed.
 */
import { failsRun } from '../checks/check.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseYaml } from '../spec/yaml-data.js';
import { signatureText } from '../checks/registry.js';
import type { ConformanceReport, Defect } from './conformance-report.js';
import { signaturesOf } from './defects.js';
import { guardSecrets } from './secret-gate.js';
import { decideVerdict } from './verdict.js';

export interface BaselineState {
  readonly file: string;
  /** Whether this run rewrote the file with its own failing defects. */
  readonly updated: boolean;
  /** Failing defects of this run that the baseline lists (by the defect or by one of its signatures). */
  readonly known: readonly string[];
  /** Failing defects of this run that it does not list: these fail the run. */
  readonly new: readonly string[];
  /** Known defects seen as signatures the baseline does not list: reported, not failing. */
  readonly newEvidence: readonly { readonly defect: string; readonly signatures: readonly string[] }[];
  /** Baseline entries (defects, or signatures of a baseline written before defects) this run did not see. */
  readonly fixed: readonly string[];
}

/** One entry of a baseline: a defect with the signatures it was seen as, or a lone signature (the older format). */
export interface BaselineEntry {
  readonly defect: string | null;
  readonly signatures: readonly string[];
}

/**
 * The defects that fail this run (violations; warnings too under --strict). Consequences are no defects of their own:
 * each is folded into its cause (alsoSeenAs).
 */
export function failingDefects(report: Pick<ConformanceReport, 'defects' | 'strict'>): Defect[] {
  return report.defects.filter((d) => failsRun(d.level, report.strict));
}

const signatureOfEntry = (path: string, entry: unknown, where: string): string => {
  if (typeof entry === 'string') return entry.trim();
  const e = entry as { check?: unknown; operation?: unknown; case?: unknown } | null;
  if (e && typeof e.check === 'string')
    return signatureText({
      checkId: e.check,
      operation: typeof e.operation === 'string' && e.operation !== 'any operation' ? e.operation : null,
      caseClass: typeof e.case === 'string' ? e.case : null,
    });
  throw new Error(`baseline ${path}: ${where} is neither a signature nor { check, operation, case }`);
};

/**
 * Reads a baseline: a YAML or JSON list whose entries are `{ defect, signatures }` (this version), or signatures in
 * words, or `{ check, operation, case }` objects (a baseline written before defects).
 */
export function readBaselineEntries(path: string): BaselineEntry[] {
  let data: unknown;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`baseline ${path}: ${(e as Error).message}`);
  }
  if (data === null || data === undefined) return [];
  if (!Array.isArray(data)) throw new Error(`baseline ${path}: expected a list of defects or signatures`);
  return data.map((entry, i): BaselineEntry => {
    const d = entry as { defect?: unknown; signatures?: unknown } | null;
    if (d && typeof d === 'object' && typeof d.defect === 'string') {
      const sigs = Array.isArray(d.signatures) ? d.signatures : [];
      return {
        defect: d.defect.trim(),
        signatures: sigs.map((s, j) => signatureOfEntry(path, s, `entry ${i + 1}, signature ${j + 1}`)),
      };
    }
    return { defect: null, signatures: [signatureOfEntry(path, entry, `entry ${i + 1}`)] };
  });
}

/** Every name these entries list: their defects and their signatures. */
function namesOf(entries: readonly BaselineEntry[]): string[] {
  return entries.flatMap((e) => [...(e.defect ? [e.defect] : []), ...e.signatures]);
}

/** Every name a baseline lists: its defects and their signatures (a defect is known when any of them is its own). */
export function readBaseline(path: string): string[] {
  return namesOf(readBaselineEntries(path));
}

/** The text of a baseline listing these defects, each with the signatures it was seen as. */
export function baselineText(
  defects: readonly Pick<Defect, 'signature' | 'signatures' | 'alsoSeenAs'>[],
  target: string,
): string {
  const lines = [
    `# Known defects of ${target}: one entry per defect (a cause), with the signatures (check · operation · case`,
    '# class) it was seen as. `petstore-conformance run --baseline FILE` passes while only these remain, fails on any',
    '# other, reports a known defect seen as a signature not listed here as new evidence, and those no longer seen as',
    '# fixed: remove their entries (or rerun with --update-baseline).',
  ];
  const byKey = new Map<string, Set<string>>();
  for (const d of defects) {
    const set = byKey.get(d.signature) ?? new Set<string>();
    for (const s of signaturesOf(d as Defect)) set.add(s);
    byKey.set(d.signature, set);
  }
  for (const key of [...byKey.keys()].sort()) {
    lines.push(`- defect: ${JSON.stringify(key)}`, '  signatures:');
    for (const s of [...byKey.get(key)!].sort()) lines.push(`    - ${JSON.stringify(s)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Judges a report against a baseline file. With `update`, the file is (re)written with this run's failing defects
 * first, so they are all known. The verdict then fails only on new defects; a blocked run stays blocked.
 */
export function applyBaseline(report: ConformanceReport, file: string, update: boolean): ConformanceReport {
  const failing = failingDefects(report);
  if (update) {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(file, guardSecrets(baselineText(failing, report.target.url), file));
  } else if (!existsSync(file)) {
    throw new Error(`baseline ${file} does not exist (write it with --update-baseline)`);
  }
  const entries = readBaselineEntries(file);
  const listed = new Set(namesOf(entries));
  const isKnown = (d: Defect) => listed.has(d.signature) || signaturesOf(d).some((s) => listed.has(s));
  const keys = (ds: readonly Defect[]) => [...new Set(ds.map((d) => d.signature))];
  const known = failing.filter(isKnown);
  const newEvidence = known
    .map((d) => ({ defect: d.signature, signatures: signaturesOf(d).filter((s) => !listed.has(s)) }))
    .filter((e) => e.signatures.length > 0);
  // What this run saw, failing or not: an entry still seen (even as a warning now) is not fixed.
  const seen = new Set(report.defects.flatMap((d) => [d.signature, ...signaturesOf(d)]));
  const fixed = entries.flatMap((e) =>
    e.defect !== null
      ? seen.has(e.defect) || e.signatures.some((s) => seen.has(s))
        ? []
        : [e.defect]
      : e.signatures.filter((s) => !seen.has(s)),
  );
  const baseline: BaselineState = {
    file,
    updated: update,
    known: keys(known),
    new: keys(failing.filter((d) => !isKnown(d))),
    newEvidence,
    fixed,
  };
  const verdict = decideVerdict({
    defects: report.defects,
    strict: report.strict,
    blocked: report.verdict === 'blocked',
    failedTests: report.suites.reduce((n, s) => n + s.failedTests, 0),
    baseline,
    leftOut: report.notMeasured,
    failure: report.failure,
  });
  return { ...report, verdict, baseline };
}

/** The baseline's state in a few lines: what remains, what is new (named), what was fixed. */
export function baselineLines(b: BaselineState): string[] {
  const out = [
    `Baseline ${b.file}${b.updated ? ' (rewritten by --update-baseline)' : ''}: ${b.known.length} known defect${b.known.length === 1 ? '' : 's'} remain${b.known.length === 1 ? 's' : ''}`,
  ];
  if (b.new.length) out.push(`  new, not in the baseline (these fail the run):`, ...b.new.map((s) => `    ✗ ${s}`));
  const evidence = b.newEvidence ?? [];
  if (evidence.length)
    out.push(
      `  new evidence of known defects (not failing; --update-baseline lists it):`,
      ...evidence.map(
        (e) =>
          `    ~ ${e.defect}: also seen as ${e.signatures.slice(0, 3).join(', ')}${e.signatures.length > 3 ? `, … ${e.signatures.length - 3} more` : ''}`,
      ),
    );
  if (b.fixed.length)
    out.push(`  fixed, no longer seen (remove from the baseline):`, ...b.fixed.map((s) => `    ✓ ${s}`));
  return out;
}
