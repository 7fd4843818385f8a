/**
 * A key the target refused at the start of a run, judged the same way by `run`'s preflight (cli/preflight.ts) and
 * `load`'s (load/preflight.ts). A 401 is what section 7 answers a missing or invalid key: a wrong key is a
 * configuration error (exit 2, naming the variable). Only when the target says so — a 403 (the spec's answer to a bad
 * key is 401: a 403 refuses a key it knows), or an answer that speaks of a ban — is the key blocked (exit 3).
 */
import { keyVariable, type PlanKey } from '../config/config.js';
import { HarnessError } from '../errors/catalogue.js';

/** Why the target refused a key: invalid (a configuration error) or blocked (the target says banned or forbidden). */
export function keyRefusal(status: number, body: string): { readonly blocked: string | null } {
  return { blocked: /\bban(ned)?\b/i.test(body) ? 'it says the key is banned' : status === 403 ? 'forbidden' : null };
}

/** The error of a refused key: PSC_KEY_BANNED when the target says it is blocked, else PSC_CONFIG naming its variable. */
export function refusedKeyError(
  target: string,
  key: Pick<PlanKey, 'plan' | 'key'>,
  status: number,
  body: string,
): HarnessError {
  const variable = keyVariable(key.plan);
  const { blocked } = keyRefusal(status, body);
  if (blocked !== null)
    return new HarnessError(
      'PSC_KEY_BANNED',
      `the ${key.plan} key (${key.key.placeholder}) was refused with ${status} by ${target} (${blocked}): a banned key is lifted only by waiting, or use another key of the plan`,
    );
  return new HarnessError(
    'PSC_CONFIG',
    `${variable}: ${target} refused the ${key.plan} key with ${status} (section 7: a missing or invalid key): check the value of ${variable}`,
  );
}
