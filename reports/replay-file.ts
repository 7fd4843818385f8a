/**
 * Replay files: one JSON file per block of the report (a defect) with the exact request (method, path, headers with key
 * placeholders, raw body bytes as base64), the seed and fast-check path. `petstore-conformance replay FILE` resends
 * exactly those bytes and applies the checks again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../checks/check.js';
import type { ConformanceReport, Defect } from './conformance-report.js';
import { defectBlocks } from './conformance-text.js';
import { guardSecrets } from './secret-gate.js';

export interface ReplayFile {
  readonly replayVersion: 1;
  /** The defect whose block in the report names this file (absent in files written before blocks had one). */
  readonly signature?: string;
  readonly checkId: string;
  /**
   * The checks of what the defect was also seen as (its folded consequences, on the same evidence): a replay that
   * shows one of them shows the defect (a create answered 200 is create-201's defect, and status-documented says so).
   */
  readonly alsoSeenAs?: readonly string[];
  readonly clause: string;
  readonly level: string;
  readonly operation: string | null;
  readonly message: string;
  readonly target: string;
  readonly seed: number;
  readonly fastCheck: { readonly seed: number; readonly path: string; readonly counterexample: string } | null;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly bodyBase64: string | null;
    /** The request-target sent verbatim (a path variant): the replay sends it as it is too. */
    readonly rawTarget?: string;
  };
  readonly curl: string;
  /** Set when the run stopped early (a deadline, a signal: "the run was interrupted by SIGINT after 4.2 s"). */
  readonly runStopped?: { readonly code: string; readonly message: string; readonly leftOut: readonly string[] };
}

/** A file name part: letters, digits and dashes only. */
const slug = (text: string, max: number): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, max)
    .replace(/-$/, '');

/**
 * The replay file of each block the report shows (writeRunOutputs in reports/conformance-outputs.ts writes them with --replay-dir), by defect
 * signature: `<dir>/<block number>-<operation>-<case>-<check>.json`, numbered in the order the blocks are printed, so
 * a reader goes from a block (which names its file) to the file and back. Blocks whose example has no request (a
 * verdict on a whole sequence with nothing to resend) get none.
 */
export function replayPlan(dir: string, report: ConformanceReport): Record<string, string> {
  const files: Record<string, string> = {};
  defectBlocks(report).forEach((d, i) => {
    if (!exampleOf(report, d)) return;
    const parts = [String(i + 1).padStart(2, '0'), slug(d.operation ?? 'run', 20)];
    if (d.caseClass) parts.push(slug(d.caseClass, 48));
    parts.push(d.checkId);
    files[d.signature] = join(dir, `${parts.filter(Boolean).join('-')}.json`);
  });
  return files;
}

/** The finding that shows a defect's block and carries a request to resend: its example first. */
function exampleOf(report: ConformanceReport, d: Defect): Finding | null {
  for (const i of d.findings) {
    const f = report.findings[i];
    if (f?.exchanges[0]?.request) return f;
  }
  return null;
}

/**
 * Writes one replay file per block the report shows, where the report's replayFiles (replayPlan) put it; returns the
 * paths written.
 */
export function writeReplays(
  dir: string,
  report: ConformanceReport & {
    readonly replayFiles: Readonly<Record<string, string>>;
    readonly run?: {
      readonly stop: { readonly code: string; readonly message: string } | null;
      readonly budget: { readonly leftOut: readonly string[] };
    };
  },
): string[] {
  // A run stopped early (a deadline, a signal) says so in each of its replay files too.
  const stop = report.run?.stop;
  mkdirSync(dir, { recursive: true });
  // The plan the report already holds (runReportOf made it).
  const plan = report.replayFiles;
  const written: string[] = [];
  for (const d of defectBlocks(report)) {
    const path = plan[d.signature];
    const f = exampleOf(report, d);
    const ex = f?.exchanges[0];
    if (!path || !f || !ex?.request) continue;
    const file: ReplayFile = {
      replayVersion: 1,
      signature: d.signature,
      checkId: f.checkId,
      alsoSeenAs: [...new Set(d.alsoSeenAs.map((e) => e.checkId))].filter((c) => c !== f.checkId),
      clause: f.clause,
      level: f.level,
      operation: f.operation,
      message: f.message,
      target: report.target.url,
      seed: report.seed,
      fastCheck:
        f.repro?.path !== undefined
          ? { seed: f.repro.seed, path: f.repro.path, counterexample: f.repro.counterexample ?? '' }
          : null,
      request: ex.request,
      curl: ex.curl,
      ...(stop && { runStopped: { code: stop.code, message: stop.message, leftOut: report.run!.budget.leftOut } }),
    };
    writeFileSync(path, guardSecrets(`${JSON.stringify(file, null, 2)}\n`, path));
    written.push(path);
  }
  return written;
}
