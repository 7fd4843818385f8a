/**
 * `petstore-conformance replay FILE`: resends exactly the bytes of a saved failing request and applies the checks
 * again. A failure that no longer shows is reported as not reproduced (flaky), never hidden.
 */
import { readFileSync } from 'node:fs';
import { loadConfig, type PlanKey } from '../config/config.js';
import { ExitCode, HarnessError } from '../errors/catalogue.js';
import { HttpClient, UNREACHABLE_CODES } from '../http/client.js';
import { applyResponseChecks, responseChecks } from '../checks/registry.js';
import type { OperationId, PlanName } from '../spec/contract.js';
import type { ReplayFile } from '../reports/replay-file.js';
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
  if (file.replayVersion !== 1 || !file.request)
    throw new HarnessError('PSC_USAGE', `replay: ${path} is not a replay file`);
  const config = loadConfig({
    target: values.target ?? file.target,
    envFile: values['env-file'],
    ca: values.ca,
    insecure: values.insecure,
  });
  const headers: Record<string, string> = { ...file.request.headers };
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
      method: file.request.method,
      path: file.request.path,
      ...(file.request.rawTarget !== undefined && { rawTarget: file.request.rawTarget }),
      headers,
      auth: { template, key: used?.key ?? null, keyPlan },
      body: file.request.bodyBase64 === null ? null : Buffer.from(file.request.bodyBase64, 'base64'),
    });
    const reach = ex.error ? reachFailure(config.target!, config.transport, ex.error) : null;
    if (reach) throw reach;
    if (ex.error && UNREACHABLE_CODES.has(ex.error.code))
      throw new HarnessError('PSC_UNREACHABLE', `target unreachable: ${config.target} (${ex.error.code})`);
    const findings = applyResponseChecks({ exchange: ex, plan: used?.limits ?? null }).filter(
      (f) => f.level !== 'observation',
    );
    const lines = [`replayed ${file.request.method} ${file.request.path} → ${ex.response?.status ?? ex.error?.code}`];
    for (const f of findings) lines.push(`✗ ${f.checkId} [${f.clause}] ${f.message.replace(/\n/g, ' — ')}`);
    // The defect's own check, or a check of what it was also seen as on the same evidence (its folded consequences).
    const judged = [file.checkId, ...(file.alsoSeenAs ?? [])];
    const hit = findings.find((f) => f.checkId === file.checkId) ?? findings.find((f) => judged.includes(f.checkId));
    // Behavioural checks (create-201, ids-unique, …) judge a scenario's evidence, not one response: say so.
    const singleResponse = responseChecks.some((c) => judged.includes(c.id));
    lines.push(
      hit
        ? `reproduced: ${hit.checkId}${hit.checkId === file.checkId ? '' : `\n  (what the defect ${file.checkId} was also seen as on this exchange)`}`
        : singleResponse
          ? `${file.checkId} did not reproduce (flaky?): the same request now passes; rerun the whole run with --seed ${file.seed} to confirm`
          : `${file.checkId} is judged from a sequence of requests, not one response: compare the answer above with the finding, or rerun with --seed ${file.seed}`,
    );
    out.result(`${lines.join('\n')}\n`);
    return findings.some((f) => f.level === 'violation') ? ExitCode.violations : ExitCode.conformant;
  } finally {
    await client.close();
  }
}
