/**
 * A request that fails on TLS or on a proxy is a configuration problem (exit 3), never a list of spec violations:
 * this turns the transport's classification into a message naming the cause and the remedy. The CLI asks it about
 * the first request (cli/preflight.ts, cli/replay-command.ts), the request path's `reach` step (runner/request-path.ts)
 * about every later one (a certificate rotated to one this process does not trust, a proxy gone away), which then
 * stops the run through its limits (RunLimits.transportFailed, runner/limits.ts).
 */
import { HarnessError } from '../errors/catalogue.js';
import type { TransportError } from '../http/exchange.js';
import {
  classifyReachFailure,
  displayProxy,
  PROXY_REFUSED_CODE,
  proxyFor,
  type TransportSettings,
} from '../http/transport.js';

export function reachFailure(
  target: string,
  t: TransportSettings,
  error: TransportError,
): HarnessError<'PSC_TLS' | 'PSC_PROXY'> | null {
  const failure = classifyReachFailure(error.code, target, t.proxy);
  if (!failure) return null;
  const host = new URL(target).host;
  const via = proxyFor(target, t.proxy);
  const through = via ? ` (through the proxy ${displayProxy(via)}, which may re-sign TLS with its own CA)` : '';
  switch (failure.kind) {
    case 'tls-untrusted': {
      const given =
        t.caFiles.length > 0 ? ` The CA certificates given (${t.caFiles.join(', ')}) do not vouch for it.` : '';
      return new HarnessError(
        'PSC_TLS',
        `TLS: the certificate of ${host} is not trusted (${failure.code})${through}: it is issued by a CA this process does not know, typically a company or private CA.${given} Remedy: pass that CA's certificate (PEM) with --ca FILE, or set NODE_EXTRA_CA_CERTS=FILE in the environment; --insecure skips verification altogether (every report then says so).`,
      );
    }
    case 'tls-expired':
      return new HarnessError(
        'PSC_TLS',
        `TLS: the certificate of ${host} is expired or not yet valid (${failure.code})${through}. Remedy: renew the target's certificate, or check this machine's clock.`,
      );
    case 'tls-name':
      return new HarnessError(
        'PSC_TLS',
        `TLS: the certificate of ${host} is not issued for that name (${failure.code}: ${error.message}). Remedy: use in --target the host name the certificate names.`,
      );
    case 'tls-handshake':
      return new HarnessError(
        'PSC_TLS',
        `TLS: the handshake with ${host} failed (${failure.code}: ${error.message}). Remedy: check that the target speaks https on that port (use http:// for a plain HTTP target).`,
      );
    case 'proxy': {
      const proxy = displayProxy(failure.proxy);
      const cause =
        failure.code === PROXY_REFUSED_CODE
          ? /\b407\b/.test(error.message)
            ? `the proxy requires authentication (407). Remedy: put the credentials in ${failure.proxy.variable} (http://user:password@host:port)`
            : `${error.message}. Remedy: check that the proxy may reach ${host}, or list ${host} in NO_PROXY to go direct`
          : `the proxy could not be reached (${failure.code}: ${error.message}). Remedy: fix ${failure.proxy.variable}, or list ${host} in NO_PROXY to go direct`;
      return new HarnessError('PSC_PROXY', `proxy ${proxy} failed for ${target}: ${cause}.`);
    }
  }
}
