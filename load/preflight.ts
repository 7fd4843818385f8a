/**
 * Before a load run: is the target there, and does it take at least one of the keys? A night when staging is down is
 * not a performance regression: it stops within seconds as "target unavailable" (exit 3, like `run`'s preflight),
 * instead of counting millions of connection errors for the whole profile. Each key is asked once (GET /pets?limit=1);
 * a key the target calls invalid (401) is a configuration error (exit 2, as for `run`); keys it says are banned or
 * forbidden are left out of the run, and a target that refuses them all stops it (exit 3).
 */
import { HarnessError } from '../errors/catalogue.js';
import { HttpClient, UNREACHABLE_CODES } from '../http/client.js';
import type { TransportSettings } from '../http/transport.js';
import { listPets } from '../runner/requests.js';
import { refusedKeyError } from '../runner/key-refusal.js';
import type { LoadTarget, TargetKey } from './target.js';

export const LOAD_PREFLIGHT_LIMITS = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 8_000,
  bodyTimeoutMs: 8_000,
} as const;

export interface LoadPreflight {
  /** The keys the target accepted (the run uses only these). */
  readonly keys: readonly TargetKey[];
  readonly notes: readonly string[];
}

/**
 * Throws PSC_UNREACHABLE (nobody answers, or the connection stalls), PSC_CONFIG (a key refused as invalid) or
 * PSC_KEY_BANNED (every key banned or forbidden). autocannon
 * verifies no certificate, so neither does this ask: TLS trust is the conformance run's concern, not the load's.
 */
export async function loadPreflight(
  target: Pick<LoadTarget, 'url' | 'keys'>,
  transport: TransportSettings,
): Promise<LoadPreflight> {
  const client = new HttpClient({
    baseUrl: target.url,
    transport: { ...transport, insecure: true },
    ...LOAD_PREFLIGHT_LIMITS,
  });
  try {
    const keys: TargetKey[] = [];
    const refused: string[] = [];
    for (const k of target.keys) {
      const ex = await client.send(listPets({ template: 'Bearer {key}', key: k.key, keyPlan: k.plan }, '?limit=1'));
      if (ex.error && UNREACHABLE_CODES.has(ex.error.code))
        throw new HarnessError(
          'PSC_UNREACHABLE',
          `target unavailable: nothing answers at ${target.url} (${ex.error.code}: ${ex.error.message}); no load was sent and there is no performance verdict. Check that the target is up and reachable from this host.`,
        );
      // Any other transport failure (a stalled answer, a reset) would be the same for every request of the night.
      if (ex.error)
        throw new HarnessError(
          'PSC_UNREACHABLE',
          `target unavailable: ${target.url} did not answer GET /pets (${ex.error.code}: ${ex.error.message}); no load was sent and there is no performance verdict.`,
        );
      const status = ex.response?.status;
      if (status === 401 || status === 403) {
        // A key the target calls invalid is a mistake of the configuration, as for `run`: exit 2, naming its variable.
        const refusal = refusedKeyError(target.url, k, status, ex.response?.bodyText ?? '');
        if (refusal.code === 'PSC_CONFIG') throw refusal;
        refused.push(`${k.plan} (${k.key.placeholder}: ${status})`);
      } else keys.push(k);
    }
    if (keys.length === 0)
      throw new HarnessError(
        'PSC_KEY_BANNED',
        `${target.url} refused every key as banned or forbidden (${refused.join(', ')}); no load was sent and there is no performance verdict. Wait until the ban is lifted, or give other keys.`,
      );
    const notes = refused.map((r) => `the target refused the ${r} key: the run goes on without it`);
    return { keys, notes };
  } finally {
    await client.close();
  }
}
