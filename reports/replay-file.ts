/**
 * Replay files: one JSON file per failing finding with the exact request (method, path, headers with key
 * placeholders, raw body bytes as base64), the seed and fast-check path. `petstore-conformance replay FILE` resends
 * exactly those bytes and applies the checks again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../checks/check.js';
import type { ConformanceReport } from './conformance-report.js';
import { guardSecrets } from './secret-gate.js';

export interface ReplayFile {
  readonly replayVersion: 1;
  readonly checkId: string;
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

export function writeReplays(
  dir: string,
  report: ConformanceReport & {
    readonly run?: {
      readonly stop: { readonly code: string; readonly message: string } | null;
      readonly budget: { readonly leftOut: readonly string[] };
    };
  },
  findings: readonly Finding[],
): string[] {
  const stop = report.run?.stop;
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  findings.forEach((f, i) => {
    const ex = f.exchanges[0];
    if (!ex?.request) return;
    const file: ReplayFile = {
      replayVersion: 1,
      checkId: f.checkId,
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
    const path = join(dir, `${String(i + 1).padStart(3, '0')}-${f.checkId}.json`);
    writeFileSync(path, guardSecrets(`${JSON.stringify(file, null, 2)}\n`, path));
    written.push(path);
  });
  return written;
}
