/**
 * One production policy for `run` and `load`: traffic meant to exhaust keys or load the target (the rate-limit and
 * quota suites, any load profile) never reaches PETSTORE_PRODUCTION_URL unless --allow-production says so. What the
 * user asked for by name is refused (exit 2); what was only a default is left out, and the caller says so.
 */
import type { Config } from './config.js';
import { HarnessError } from '../errors/catalogue.js';

export function isProduction(config: Config): boolean {
  return config.target !== null && config.productionUrl !== null && config.target === config.productionUrl;
}

/**
 * `what` names the traffic ("--suite rate-limit", "load"); `askedFor` is whether the user asked for it by name.
 * Returns whether it may run; throws PSC_PRODUCTION_REFUSED when it was asked for and may not.
 */
export function allowedOnTarget(config: Config, what: string, askedFor: boolean): boolean {
  if (!isProduction(config) || config.allowProduction) return true;
  if (!askedFor) return false;
  throw new HarnessError(
    'PSC_PRODUCTION_REFUSED',
    `${what} exhausts keys or loads the target on purpose: refusing ${config.target}, which is PETSTORE_PRODUCTION_URL (pass --allow-production to run anyway)`,
  );
}
