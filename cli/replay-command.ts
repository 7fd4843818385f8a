/**
 * `petstore-conformance replay FILE`: judges a saved defect again, the way its file says (`judge`,
 * reports/replay-file.ts). A defect one answer shows: the exact bytes of its request are resent and the response checks
 * applied again. A defect no single request shows (a check over a sequence, an answer only a burst provokes): the suite
 * that found it runs again with the same seed and --runs, bounded by --max-duration, and its findings are searched for
 * the defect's checks. Exit 1: the defect is still there; 0: it is gone; 3: the target could not be reached or the
 * replay could not finish. It never calls a defect flaky: it says what it compared and what it saw.
 */
import { readFileSync } from 'node:fs';
import { type Config, functionalKey, loadConfig, type PlanKey, SUITES, type SuiteName } from '../config/config.js';
import { ExitCode, HarnessError } from '../errors/catalogue.js';
import { HttpClient, UNREACHABLE_CODES } from '../http/client.js';
import type { CheckId } from '../checks/check-id.js';
import { applyResponseChecks, checkById, isCheckId, responseChecks } from '../checks/registry.js';

const isResponseCheck = (id: string): boolean => responseChecks.some((c) => c.id === id);
import type { Finding } from '../checks/check.js';
import type { OperationId, PlanName } from '../spec/contract.js';
import type { ReplayFile, ReplayJudge, ReplayRequest } from '../reports/replay-file.js';
import { missingPositional, parseCommand } from './args.js';
import { replayCommandSpec } from './commands.js';
import type { Output } from './output.js';
import { reachFailure } from '../runner/reach.js';

export async function replayCommand(argv: string[], out: Output): Promise<number> {
  const parsed = parseCommand(argv, replayCommandSpec);
  if (parsed.kind !== 'args') {
    out.result(parsed.text);
    return ExitCode.conformant;
  }
  const { values, positionals } = parsed;
  const path = positionals[0];
  if (!path) missingPositional(replayCommandSpec, 'name a replay FILE');
  if (positionals.length > 1)
    missingPositional(replayCommandSpec, `one replay FILE at a time (got ${positionals.length})`);
  let file: ReplayFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as ReplayFile;
  } catch (e) {
    throw new HarnessError('PSC_USAGE', `replay: cannot read ${path}: ${(e as Error).message}`);
  }
  if ((file.replayVersion !== 1 && file.replayVersion !== 2) || (!file.request && file.judge?.by !== 'suite'))
    throw new HarnessError('PSC_USAGE', `replay: ${path} is not a replay file`);
  const config = loadConfig({
    target: values.target ?? file.target,
    envFile: values['env-file'],
    ca: values.ca,
    insecure: values.insecure,
    maxDuration: values['max-duration'],
  });
  // The defect's own check, and the checks of what it was also seen as on the same evidence (its folded consequences).
  const judged = [file.checkId, ...(file.alsoSeenAs ?? [])];
  // A file of version 1 knows no judge: its request, judged by the defect's checks that judge one answer.
  const judge: ReplayJudge = file.judge ?? { by: 'response', checks: judged.filter(isResponseCheck) };
  if (judge.by === 'response' && judge.checks.length === 0) {
    // A file written before files said how to judge them, of a defect no single answer shows: nothing to compare.
    out.result(
      `not judged: ${file.checkId} judges what several requests gathered, and this file (version ${file.replayVersion}) names no suite to rerun: rerun the run with --seed ${file.seed}\n`,
    );
    return ExitCode.blocked;
  }
  return judge.by === 'suite'
    ? replaySuite(file, judge, judged, config, out)
    : replayRequest(file, file.request!, judge, config, out);
}

/** The defect judged by its one request: resent byte for byte, its answer judged by the response checks. */
async function replayRequest(
  file: ReplayFile,
  request: ReplayRequest,
  judge: Exclude<ReplayJudge, { by: 'suite' }>,
  config: Config,
  out: Output,
): Promise<number> {
  const headers: Record<string, string> = { ...request.headers };
  // The key placeholder is the only thing filled in; every other byte is as recorded.
  let keyPlan: PlanName | 'none' | 'invalid' = 'none';
  let used: PlanKey | undefined;
  const auth = headers.authorization;
  delete headers.authorization;
  let template: string | null = null;
  if (auth !== undefined) {
    used = config.keys.find((k) => auth.includes(k.key.placeholder));
    if (!used && /\$PETSTORE_API_KEY_[A-Z]+/.test(auth)) {
      throw new HarnessError(
        'PSC_CONFIG',
        `replay: the request needs ${/\$PETSTORE_API_KEY_[A-Z]+/.exec(auth)![0].slice(1)}, which is not set`,
      );
    }
    template = used ? auth.replaceAll(used.key.placeholder, '{key}') : auth;
    keyPlan = used ? used.plan : 'invalid';
  }
  const client = new HttpClient({ baseUrl: config.target!, transport: config.transport });
  try {
    const ex = await client.send({
      operation: file.operation as OperationId | null,
      method: request.method,
      path: request.path,
      ...(request.rawTarget !== undefined && { rawTarget: request.rawTarget }),
      headers,
      auth: { template, key: used?.key ?? null, keyPlan },
      body: request.bodyBase64 === null ? null : Buffer.from(request.bodyBase64, 'base64'),
    });
    const reach = ex.error ? reachFailure(config.target!, config.transport, ex.error) : null;
    if (reach) throw reach;
    if (ex.error && UNREACHABLE_CODES.has(ex.error.code))
      throw new HarnessError('PSC_UNREACHABLE', `target unreachable: ${config.target} (${ex.error.code})`);
    const judged = judge.checks;
    const responseFindings = applyResponseChecks({ exchange: ex, plan: used?.limits ?? null });
    // A create's echo is judged as the run judged it: the answer against the NewPet sent (read from the bytes).
    const createFindings =
      judge.by === 'create'
        ? judge.checks.flatMap(
            // An id the registry no longer has is a file of another version: checkById refuses it, as before.
            (id) => checkById(id as CheckId).run({ exchange: ex, sent: judge.sent, nameEdge: false }) as Finding[],
          )
        : [];
    const findings = [...createFindings, ...responseFindings].filter((f) => f.level !== 'observation');
    const applied = [...judged];
    const lines = [
      `replayed ${request.method} ${request.path} → ${ex.response?.status ?? ex.error?.code}`,
      judge.by === 'create'
        ? `compared: the answer to this create with the NewPet sent (name ${JSON.stringify(judge.sent.name).slice(0, 80)}, categoryId ${judge.sent.categoryId}${judge.sent.status === undefined ? '' : `, status ${judge.sent.status}`}), by ${applied.join(', ')}; the response checks too`
        : `compared: the answer to this one request, by the response checks (${applied.join(', ') || 'none of them names the defect'}; the recorded answer was ${file.exchanges?.[0]?.status ?? 'not kept'})`,
    ];
    const hit = findings.find((f) => f.checkId === file.checkId) ?? findings.find((f) => judged.includes(f.checkId));
    if (!hit && judge.by === 'create' && ex.response?.status !== 201) {
      // No 201, no echo to compare: neither still there nor gone.
      lines.push(
        `not judged: the create was answered ${ex.response?.status ?? ex.error?.code}, not 201: there is no echo to compare`,
      );
      out.result(`${lines.join('\n')}\n`);
      return ExitCode.blocked;
    }
    const others = findings.filter((f) => !judged.includes(f.checkId));
    if (hit) {
      lines.push(`✗ ${hit.checkId} [${hit.clause}] ${hit.message.replace(/\n/g, ' — ')}`);
      lines.push(
        `reproduced: ${hit.checkId}${hit.checkId === file.checkId ? '' : `\n  (what the defect ${file.checkId} was also seen as on this exchange)`}`,
      );
    } else {
      lines.push(
        `not reproduced: ${file.checkId} is gone: the same request now passes ${applied.length > 0 ? applied.join(', ') : 'the response checks'}`,
      );
    }
    // Other breaches of this answer are said, and do not decide: the file is about one defect.
    for (const f of others) lines.push(`  also now: ${f.checkId} [${f.clause}] ${f.message.replace(/\n/g, ' — ')}`);
    out.result(`${lines.join('\n')}\n`);
    return hit ? ExitCode.violations : ExitCode.conformant;
  } finally {
    await client.close();
  }
}

/**
 * The defect judged by its suite: the suite that found it runs again with the run's seed and --runs, bounded by
 * --max-duration, and the defect is there when the suite reports one of its checks (not as an observation).
 */
async function replaySuite(
  file: ReplayFile,
  judge: Extract<ReplayJudge, { by: 'suite' }>,
  judged: readonly string[],
  config: Config,
  out: Output,
): Promise<number> {
  if (!(SUITES as readonly string[]).includes(judge.suite))
    throw new HarnessError('PSC_USAGE', `replay: the file names an unknown suite ${judge.suite}`);
  const suite = judge.suite as SuiteName;
  const key = functionalKey(config);
  if (!key)
    throw new HarnessError(
      'PSC_CONFIG',
      'replay: the suite needs an API key: set PETSTORE_API_KEY_FREE, _PRO, _BUSINESS or _ENTERPRISE',
    );
  const needed = /\$PETSTORE_API_KEY_([A-Z]+)/.exec(file.request?.headers.authorization ?? '')?.[1];
  if (needed && !config.keys.some((k) => k.plan === needed.toLowerCase()))
    throw new HarnessError(
      'PSC_CONFIG',
      `replay: the defect was seen with PETSTORE_API_KEY_${needed}, which is not set`,
    );
  out.progress(
    `replay: ${judge.why}; running the ${suite} suite again (seed ${judge.seed}, runs ${judge.runs}) against ${config.target}, for ${Math.round(config.maxDurationMs / 1000)} s at most (--max-duration)`,
  );
  // The suites live below the command: loaded only when a file asks for one.
  const { runSuite } = await import('../runner/run.js');
  let answered = 0;
  let unreachable = 0;
  let firstError = '';
  const result = await runSuite(
    suite,
    {
      target: config.target!,
      keys: config.keys,
      key,
      seed: judge.seed,
      runs: judge.runs,
      strict: false,
      transport: config.transport,
      windowSeconds: config.rateWindowSeconds,
      namePrefix: config.namePrefix,
      exchangeSink: {
        push: (ex) => {
          if (ex.response) answered++;
          else if (ex.error && UNREACHABLE_CODES.has(ex.error.code)) {
            unreachable++;
            firstError ||= ex.error.code;
          }
        },
      },
    },
    { limits: { deadline: Date.now() + config.maxDurationMs, maxRequests: null, maxCreates: config.maxCreates } },
  );
  if (answered === 0 && unreachable > 0)
    throw new HarnessError('PSC_UNREACHABLE', `target unreachable: ${config.target} (${firstError})`);
  const failing = (f: Finding) => f.level !== 'observation' && f.harnessError !== true;
  const hits = result.findings.filter((f) => failing(f) && judged.includes(f.checkId));
  const compared = judged.filter(isCheckId).join(', ');
  const lines = [
    `ran the ${suite} suite (seed ${judge.seed}, runs ${judge.runs}): ${result.exchanges} requests, ${answered} answered`,
    `compared: what the suite gathered, judged by ${compared} (the checks of the defect ${file.signature ?? file.checkId})`,
  ];
  const stop = result.stopped ?? result.aborted;
  if (hits.length > 0) {
    const hit = hits.find((f) => f.checkId === file.checkId) ?? hits[0]!;
    lines.push(`✗ ${hit.checkId} [${hit.clause}] ${hit.message.replace(/\n/g, ' — ')}`);
    const ex = hit.exchanges[0];
    if (ex) lines.push(`  request: ${ex.curl}`);
    lines.push(`reproduced: ${hit.checkId} (${hits.length} finding${hits.length === 1 ? '' : 's'})`);
    out.result(`${lines.join('\n')}\n`);
    return ExitCode.violations;
  }
  if (stop) {
    // A suite cut short proves nothing gone: the defect may sit beyond where it stopped.
    lines.push(`not judged: the suite stopped before its end (${stop.message}); the defect may still be there`);
    out.result(`${lines.join('\n')}\n`);
    return ExitCode.blocked;
  }
  lines.push(`not reproduced: ${file.checkId} is gone: the whole suite ran and none of ${compared} failed`);
  out.result(`${lines.join('\n')}\n`);
  return ExitCode.conformant;
}
