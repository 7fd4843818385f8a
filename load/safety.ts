/** Load against production is refused unless asked for by name: a nightly run spends real quota and real capacity. */
import type { Config } from '../config/config.js';
import { HarnessError } from '../config/errors.js';

export function assertLoadAllowed(config: Config): void {
  if (
    config.target !== null &&
    config.productionUrl !== null &&
    config.target === config.productionUrl &&
    !config.allowProduction
  ) {
    throw new HarnessError(
      'PSC_PRODUCTION_REFUSED',
      `load: refusing to load ${config.target}: it is PETSTORE_PRODUCTION_URL; pass --allow-production to run anyway`,
    );
  }
}
