/** How a run reaches its target, as report facts and as the lines said at its start. */
import type { Config } from '../config/config.js';
import { displayProxy, INSECURE_LINE, proxyFor } from '../http/transport.js';
import { userAgent } from '../http/user-agent.js';
import type { ConnectionFacts } from '../reports/conformance-report.js';

export function connectionFacts(config: Config): { facts: ConnectionFacts; lines: string[] } {
  const t = config.transport;
  const via = config.target ? proxyFor(config.target, t.proxy) : null;
  const facts: ConnectionFacts = {
    insecure: t.insecure,
    caFiles: t.caFiles,
    proxy: via ? displayProxy(via) : null,
    acceptEncoding: t.acceptEncoding,
    userAgent: userAgent(),
  };
  const lines: string[] = [];
  if (t.insecure) lines.push(`WARNING: ${INSECURE_LINE}`);
  if (facts.proxy) lines.push(`through the proxy ${facts.proxy}`);
  return { facts, lines };
}
