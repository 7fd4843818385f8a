/**
 * Replay files: one JSON file per block of the report (a defect) with everything its check needs to judge again: the
 * exact request (method, path, headers with key placeholders, raw body bytes as base64, and the body as text, every
 * int64 digit kept), the exchanges of the finding that lead up to it (the create before a get), the seed, the suite
 * and fast-check path, and how `petstore-conformance replay FILE` judges it (`judge`): by resending the request and
 * applying the response checks again, or, where one request cannot show the defect (a 429 needs the burst before it,
 * a create's echo needs what was sent beside what came back), by running the suite that found it with the same seed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExchangeRef, Finding } from '../checks/check.js';
import { responseChecks } from '../checks/registry.js';
import { judgedByOneCreate, type SentPet, sentPetOf } from '../checks/create.js';
import { parseLossless } from '../http/lossless.js';
import { isRateSuite } from '../config/config.js';
import type { ConformanceReport, Defect } from './conformance-report.js';
import { defectBlocks } from './conformance-text.js';
import { guardSecrets } from './secret-gate.js';

/** A request as a replay file keeps it: the exact bytes, keys as placeholders. */
export interface ReplayRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly bodyBase64: string | null;
  /** The request-target sent verbatim (a path variant): the replay sends it as it is too. */
  readonly rawTarget?: string;
  /** The body as text when it is UTF-8 (what a reader compares with the answer; bodyBase64 is what is sent). */
  readonly bodyText?: string;
}

/**
 * How `replay` judges the defect again. `response`: the request alone shows it (a response check judges one answer):
 * resend it and apply the response checks. `create`: a create's answer against the NewPet it sent (create-echo): resend
 * it and judge the answer with those create checks and the NewPet, as the run did. `suite`: no single request shows it (a check over a sequence, or an answer
 * only a burst provokes): run `suite` with `seed` and `runs`, bounded, and look for the defect's checks.
 */
export type ReplayJudge =
  | {
      readonly by: 'response';
      /** The response checks that showed the defect on this request's answer (its own, or what it was also seen as). */
      readonly checks: readonly string[];
    }
  | {
      readonly by: 'create';
      /** The create checks that judge the answer (checks/create.ts judgedByOneCreate) and the NewPet they compare with. */
      readonly checks: readonly string[];
      readonly sent: SentPet;
    }
  | {
      readonly by: 'suite';
      readonly suite: string;
      readonly seed: number;
      readonly runs: number;
      readonly why: string;
    };

export interface ReplayFile {
  /** 2 adds `judge`, `exchanges`, `suite` and `runs`; a file of version 1 is judged by its request alone. */
  readonly replayVersion: 1 | 2;
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
  /** The suite that found it (null: the run's own preflight request). */
  readonly suite?: string | null;
  /** --runs of the run that found it. */
  readonly runs?: number;
  readonly fastCheck: { readonly seed: number; readonly path: string; readonly counterexample: string } | null;
  /** The request that shows the defect (the finding's first exchange); null when the defect is a whole sequence's. */
  readonly request: ReplayRequest | null;
  /** Every exchange of the finding, in order (the lead-up and the request above), each with what came back. */
  readonly exchanges?: readonly {
    readonly request: ReplayRequest;
    readonly status: number | null;
    readonly error: string | null;
    readonly curl: string;
  }[];
  readonly judge?: ReplayJudge;
  readonly curl: string | null;
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
 * a reader goes from a block (which names its file) to the file and back. A block whose findings keep no request (a
 * verdict on a whole sequence, a target slowing down) gets one too: its suite and seed, to run again.
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

/** The finding that shows a defect's block: its example first, the first that carries a request to resend if any. */
function exampleOf(report: ConformanceReport, d: Defect): Finding | null {
  for (const i of d.findings) {
    const f = report.findings[i];
    if (f?.exchanges[0]?.request) return f;
  }
  return d.findings.map((i) => report.findings[i]).find((f) => f !== undefined) ?? null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The NewPet a create request sent, read losslessly from its bytes; null when it is none. */
function sentOfRequest(ref: ExchangeRef): SentPet | null {
  const text = requestOf(ref).bodyText;
  if (text === undefined) return null;
  try {
    return sentPetOf(parseLossless(text));
  } catch {
    return null;
  }
}

/** A finding's request as the file keeps it, with its body as text when it is text (int64 digits as sent). */
function requestOf(ref: ExchangeRef): ReplayRequest {
  const r = ref.request;
  let bodyText: string | undefined;
  if (r.bodyBase64 !== null) {
    try {
      bodyText = utf8.decode(Buffer.from(r.bodyBase64, 'base64'));
    } catch {
      bodyText = undefined;
    }
  }
  return {
    method: r.method,
    path: r.path,
    headers: r.headers,
    bodyBase64: r.bodyBase64,
    ...(r.rawTarget !== undefined && { rawTarget: r.rawTarget }),
    ...(bodyText !== undefined && { bodyText }),
  };
}

const isResponseCheck = (id: string): boolean => responseChecks.some((c) => c.id === id);

/**
 * How the defect is judged again: by its request alone when a response check showed it on that request's answer (the
 * example's own check, or a consequence folded under it on the same exchange) and one request can provoke that answer;
 * else by its suite (the run's first when the finding is the run's own: a target slowing down), with the run's seed
 * and --runs.
 */
export function judgeOf(report: ConformanceReport, d: Defect, f: Finding): ReplayJudge {
  const ex = f.exchanges[0];
  const same = (g: Finding | undefined) =>
    g !== undefined && g.suite === f.suite && g.exchanges[0]?.seq === ex?.seq && g.exchanges[0]?.path === ex?.path;
  const checks = ex?.request
    ? [
        ...new Set([
          ...(isResponseCheck(f.checkId) ? [f.checkId] : []),
          ...d.alsoSeenAs
            .filter((e) => isResponseCheck(e.checkId) && e.findings.some((i) => same(report.findings[i])))
            .map((e) => e.checkId),
        ]),
      ]
    : [];
  const suite = f.suite;
  // A create's echo: the NewPet sent (every int64 digit, read losslessly from the bytes) against what came back.
  const sent = ex?.request && judgedByOneCreate.some((c) => c.id === f.checkId) ? sentOfRequest(ex) : null;
  if (sent) return { by: 'create', checks: [f.checkId], sent };
  if (checks.length > 0 && ex?.status !== 429 && (suite === null || !isRateSuite(suite)))
    return { by: 'response', checks };
  const why =
    checks.length === 0
      ? `${f.checkId} judges what several requests gathered (what was sent and what came back, in order), not one answer`
      : `the answer came in the ${suite ?? 'rate-limit'} suite's burst: one request on a rested key cannot provoke it`;
  const first = report.suites.map((s) => s.name).find((n) => n !== 'preflight') ?? 'listPets';
  return { by: 'suite', suite: suite ?? first, seed: report.seed, runs: report.runs, why };
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
    const ex = f?.exchanges[0]?.request ? f.exchanges[0] : undefined;
    if (!path || !f) continue;
    const alsoSeenAs = [...new Set(d.alsoSeenAs.map((e) => e.checkId))].filter((c) => c !== f.checkId);
    const file: ReplayFile = {
      replayVersion: 2,
      signature: d.signature,
      checkId: f.checkId,
      alsoSeenAs,
      clause: f.clause,
      level: f.level,
      operation: f.operation,
      message: f.message,
      target: report.target.url,
      seed: report.seed,
      suite: f.suite,
      runs: report.runs,
      fastCheck:
        f.repro?.path !== undefined
          ? { seed: f.repro.seed, path: f.repro.path, counterexample: f.repro.counterexample ?? '' }
          : null,
      request: ex ? requestOf(ex) : null,
      exchanges: f.exchanges
        .filter((e) => e.request)
        .map((e) => ({ request: requestOf(e), status: e.status, error: e.error, curl: e.curl })),
      judge: judgeOf(report, d, f),
      curl: ex?.curl ?? null,
      ...(stop && { runStopped: { code: stop.code, message: stop.message, leftOut: report.run!.budget.leftOut } }),
    };
    writeFileSync(path, guardSecrets(`${JSON.stringify(file, null, 2)}\n`, path));
    written.push(path);
  }
  return written;
}
