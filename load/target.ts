/**
 * Where the load goes: the embedded reference server (short window, its generated keys) or --target with the keys
 * from the configuration. Keys stay ApiKey objects in memory; no file ever sees their values.
 */
import type { Config } from '../config/config.js';
import { HarnessError } from '../errors/catalogue.js';
import type { ApiKey } from '../http/redact.js';
import type { PlanLimits, PlanName } from '../spec/contract.js';
import type { Profile } from './profiles.js';

export interface TargetKey {
  readonly plan: PlanName;
  readonly key: ApiKey;
  readonly limits: PlanLimits;
}

export interface LoadTarget {
  /** Base URL ending in /v1. */
  readonly url: string;
  readonly embedded: boolean;
  /** Length of the "minute" rate window in seconds (the embedded server shortens it). */
  readonly windowSeconds: number;
  readonly keys: readonly TargetKey[];
  close(): Promise<void>;
}

export async function resolveLoadTarget(config: Config, profile: Profile): Promise<LoadTarget> {
  if (config.target === null) {
    // In its own process, as a real target would be: the server neither shares the generator's event loop (which
    // would cap both) nor counts in the generator's memory (its store grows by every pet the mix creates).
    const [{ startEmbedded }, { planKeys }] = await Promise.all([
      import('../reference/launcher.js'),
      import('../reference/keys.js'),
    ]);
    const server = await startEmbedded({ port: 0, windowSeconds: profile.embeddedWindowSeconds });
    return {
      url: server.url,
      embedded: true,
      windowSeconds: profile.embeddedWindowSeconds,
      // Its keys' values are registered as secrets as it starts (reference/launcher.ts).
      keys: planKeys(server.keys),
      close: async () => {
        await server.close();
      },
    };
  }
  const keys = config.keys.flatMap((k) => (k.limits ? [{ plan: k.plan, key: k.key, limits: k.limits }] : []));
  if (keys.length === 0) throw new HarnessError('PSC_CONFIG', 'load: no API key with known limits for --target');
  return { url: config.target, embedded: false, windowSeconds: config.rateWindowSeconds, keys, close: async () => {} };
}
