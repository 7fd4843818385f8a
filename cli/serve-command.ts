/** `petstore-conformance serve`: the reference Pet Store alone, printing its URL and the keys it generated. */
import { startReferenceServer, type LimiterAlgorithm, type ReferenceServer } from '../reference/server.js';
import { keyVariable, loadConfig } from '../config/config.js';
import { HarnessError } from '../config/errors.js';
import { parseFlags } from './args.js';
import type { Output } from './output.js';

export async function serveCommand(argv: string[], _out: Output, signal?: AbortSignal): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: 'string' },
    window: { type: 'string' },
    algorithm: { type: 'string' },
    fault: { type: 'string', multiple: true },
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new HarnessError('PSC_USAGE', `--port: "${values.port}" is not a port number`);
  // --window, else PETSTORE_RATE_WINDOW_SECONDS (default 60).
  const windowSeconds =
    values.window === undefined ? loadConfig({ target: undefined }).rateWindowSeconds : Number(values.window);
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1)
    throw new HarnessError('PSC_USAGE', `--window: "${values.window}" is not a whole number of seconds`);
  const algorithms = ['fixed-window', 'sliding-window', 'token-bucket'];
  if (values.algorithm !== undefined && !algorithms.includes(values.algorithm)) {
    throw new HarnessError('PSC_USAGE', `--algorithm: "${values.algorithm}" is not one of ${algorithms.join(', ')}`);
  }
  let server: ReferenceServer;
  try {
    server = await startReferenceServer({
      port,
      windowSeconds,
      ...(values.algorithm ? { algorithm: values.algorithm as LimiterAlgorithm } : {}),
      faults: values.fault ?? [],
    });
  } catch (e) {
    throw new HarnessError('PSC_USAGE', (e as Error).message);
  }
  // These keys belong to this throwaway local server; printing them is the point of `serve`.
  const lines = [`Reference Pet Store listening at ${server.url}`, `export PETSTORE_TARGET=${server.url}`];
  for (const k of server.keys) {
    lines.push(`export ${keyVariable(k.plan)}=${k.key}`);
    if (k.plan === 'enterprise')
      lines.push(`export PETSTORE_ENTERPRISE_LIMITS=${k.limits.requestsPerMinute}/${k.limits.requestsPerDay}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop);
  });
  await server.close();
  return 0;
}
