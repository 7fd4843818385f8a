/**
 * `petstore-conformance serve`: the reference Pet Store alone, printing its URL and the keys it generated, with any
 * number of faults of the catalogue switched on; `--list-faults` prints the catalogue (`--json`: as data).
 */
import {
  LIMITER_ALGORITHMS,
  type LimiterAlgorithm,
  type ListOrder,
  type ReferenceServer,
  startReferenceServer,
} from '../reference/server.js';
import { faults } from '../reference/faults.js';
import { keyVariable, loadConfig } from '../config/config.js';
import { ExitCode, HarnessError } from '../errors/catalogue.js';
import { parseCommand, suggestion } from './args.js';
import { Interrupt, type Interruption } from './interrupt.js';
import { ancestry, watchParent } from './parent-watch.js';
import { serveCommandSpec } from './commands.js';
import type { Output } from './output.js';

export async function serveCommand(argv: string[], out: Output, signal?: AbortSignal): Promise<number> {
  // Who started serve, read before the server starts (and before anyone who reads its URL could end them).
  const startedBy = ancestry();
  const parsed = parseCommand(argv, serveCommandSpec);
  if (parsed.kind !== 'args') {
    out.result(parsed.text);
    return ExitCode.conformant;
  }
  const { values } = parsed;
  if (values['list-faults']) {
    out.result(values.json ? `${JSON.stringify(faultCatalogue(), null, 2)}\n` : faultTable());
    return ExitCode.conformant;
  }
  if (values.json) throw new HarnessError('PSC_USAGE', '--json goes with --list-faults');
  const faultIds = selectedFaults(values.fault ?? []);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new HarnessError('PSC_USAGE', `--port: "${values.port}" is not a port number`);
  // --window, else PETSTORE_RATE_WINDOW_SECONDS (default 60). `serve` is the embedded server: CI's rule against an
  // embedded target nobody asked for does not apply to it.
  const windowSeconds =
    values.window === undefined
      ? loadConfig({ target: undefined, embedded: true }).rateWindowSeconds
      : Number(values.window);
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1)
    throw new HarnessError('PSC_USAGE', `--window: "${values.window}" is not a whole number of seconds`);
  const algorithms: readonly string[] = LIMITER_ALGORITHMS;
  if (values.algorithm !== undefined && !algorithms.includes(values.algorithm)) {
    throw new HarnessError('PSC_USAGE', `--algorithm: "${values.algorithm}" is not one of ${algorithms.join(', ')}`);
  }
  // A shared staging in miniature: pets that are not the client's, ids from any int64, lists newest first.
  const seedPets = values['seed-pets'] === undefined ? 0 : Number(values['seed-pets']);
  if (!Number.isInteger(seedPets) || seedPets < 0)
    throw new HarnessError('PSC_USAGE', `--seed-pets: "${values['seed-pets']}" is not a whole number of pets`);
  const idStart = values['id-start'];
  if (idStart !== undefined && !/^-?\d{1,19}$/.test(idStart))
    throw new HarnessError('PSC_USAGE', `--id-start: "${idStart}" is not an int64`);
  const orders = ['oldest-first', 'newest-first'];
  if (values['list-order'] !== undefined && !orders.includes(values['list-order']))
    throw new HarnessError('PSC_USAGE', `--list-order: "${values['list-order']}" is not one of ${orders.join(', ')}`);
  let server: ReferenceServer;
  try {
    server = await startReferenceServer({
      port,
      windowSeconds,
      ...(values.algorithm ? { algorithm: values.algorithm as LimiterAlgorithm } : {}),
      faults: faultIds,
      seedPets,
      ...(idStart !== undefined ? { idStart } : {}),
      ...(values['list-order'] ? { listOrder: values['list-order'] as ListOrder } : {}),
    });
  } catch (e) {
    throw new HarnessError('PSC_USAGE', (e as Error).message);
  }
  // These keys belong to this throwaway local server; printing them is the point of `serve`.
  const lines = [`Reference Pet Store listening at ${server.url}`];
  if (faultIds.length > 0) lines.push(`Faults switched on: ${faultIds.join(', ')}`);
  if (seedPets > 0) lines.push(`Existing pets: ${seedPets}, ids from ${server.options.idStart}`);
  lines.push(`export PETSTORE_TARGET=${server.url}`);
  for (const k of server.keys) {
    lines.push(`export ${keyVariable(k.plan)}=${k.key}`);
    if (k.plan === 'enterprise')
      lines.push(`export PETSTORE_ENTERPRISE_LIMITS=${k.limits.requestsPerMinute}/${k.limits.requestsPerDay}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  // A signal closes the server (requests under way are answered) and exits with its code; a second ends at once.
  const interrupt = new Interrupt({ stopping: 'closing the server' }).install();
  let unwatch = (): void => {};
  try {
    const stopped = await new Promise<Interruption | null>((resolveStop) => {
      interrupt.onInterrupt(resolveStop);
      signal?.addEventListener('abort', () => resolveStop(null));
      // Started through npx, a `kill` reaches npm only: end with the process that started us (cli/parent-watch.ts).
      unwatch = watchParent(() => {
        out.progress('the process that started serve has ended: stopping');
        resolveStop(null);
      }, startedBy);
    });
    unwatch();
    await server.close();
    return stopped?.exitCode ?? ExitCode.conformant;
  } finally {
    unwatch();
    interrupt.uninstall();
  }
}

/** `--fault a --fault b,c`: the ids in order, each once; an id the catalogue lacks is a usage error naming it. */
function selectedFaults(given: readonly string[]): string[] {
  const ids = [...new Set(given.flatMap((v) => v.split(',')).map((id) => id.trim()))];
  const known = new Set(faults.map((f) => f.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new HarnessError(
      'PSC_USAGE',
      `--fault: unknown fault ${unknown.map((id) => `${JSON.stringify(id)}${suggestion(id, [...known])}`).join(', ')} (serve --list-faults shows them)`,
    );
  }
  return ids;
}

/** The catalogue as data: what each fault breaks, which check must catch it, and which suite shows it. */
function faultCatalogue() {
  return faults.map(({ id, description, catches, suite }) => ({ id, description, catches, suite }));
}

function faultTable(): string {
  const rows = [
    ['id', 'suite', 'catches', 'description'],
    ...faultCatalogue().map((f) => [f.id, f.suite, f.catches, f.description]),
  ];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  return `${rows.map((r) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ')).join('\n')}\n`;
}
