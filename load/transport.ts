/**
 * What autocannon cannot do here, checked before a load run: it opens its own sockets, so it cannot go through a
 * proxy (a proxy that would apply is refused, naming its variable), and it does not verify TLS certificates (an https
 * target gets a warning: the load run does not authenticate the target; the conformance run does).
 */
import type { Config } from '../config/config.js';
import { HarnessError } from '../errors/catalogue.js';
import { displayProxy, proxyFor } from '../http/transport.js';

/** Throws when a proxy from the environment applies to the target; returns the warnings to show otherwise. */
export function autocannonTransportWarnings(config: Config): string[] {
  if (config.target === null) return [];
  const url = new URL(config.target);
  const via = proxyFor(config.target, config.transport.proxy);
  if (via) {
    throw new HarnessError(
      'PSC_CONFIG',
      `load: ${via.variable} sends requests to ${url.host} through the proxy ${displayProxy(via)}, and autocannon cannot use a proxy. Run the load from a host that reaches the target directly, with ${url.hostname} listed in NO_PROXY (or ${via.variable} unset).`,
    );
  }
  if (url.protocol === 'https:') {
    return [
      `warning: autocannon does not verify TLS certificates: the load run does not authenticate ${url.host}${config.transport.caFiles.length ? ' (--ca is not used by load)' : ''}; the conformance run (petstore-conformance run) does`,
    ];
  }
  return [];
}
