/**
 * A first request that fails on TLS or on a proxy is a configuration problem (exit 3), never a list of spec
 * violations (the message, with its cause and remedy, is runner/reach.ts's: the run's guard asks it too).
 */
import type { Config } from '../config/config.js';
import type { HarnessError } from '../config/errors.js';
import type { TransportError } from '../http/exchange.js';
import { reachFailure } from '../runner/reach.js';

export function reachError(config: Config, error: TransportError): HarnessError | null {
  return reachFailure(config.target!, config.transport, error);
}
