/**
 * API keys of the reference server: one random key per plan. The fixed plans take their limits from the contract;
 * Enterprise limits are custom, so the default is generous enough that functional suites never meet a 429.
 */
import { randomBytes } from 'node:crypto';
import { contract, type PlanLimits, type PlanName } from '../spec/contract.js';
import type { PlanKey } from '../config/config.js';
import { ApiKey } from '../http/redact.js';

export interface ReferenceKey {
  readonly key: string;
  readonly plan: PlanName;
  readonly limits: PlanLimits;
}

export const DEFAULT_ENTERPRISE_LIMITS: PlanLimits = Object.freeze({
  requestsPerMinute: 1_000_000,
  requestsPerDay: 100_000_000,
});

/** A fresh random key, e.g. psk_free_0123456789abcdef0123456789abcdef. */
export function randomKey(plan: PlanName): string {
  return `psk_${plan}_${randomBytes(16).toString('hex')}`;
}

export function generateKeys(custom: { enterprise?: PlanLimits } = {}): ReferenceKey[] {
  return contract.planNames.map((plan) => {
    const limits = plan === 'enterprise' ? (custom.enterprise ?? DEFAULT_ENTERPRISE_LIMITS) : contract.plans[plan];
    if (!limits) throw new Error(`reference: plan ${plan} has no limits in the contract`);
    return Object.freeze({ key: randomKey(plan), plan, limits: Object.freeze({ ...limits }) });
  });
}

/** The keys as the harness holds them: each value inside an ApiKey, which never prints it. */
export function planKeys(keys: readonly ReferenceKey[]): (PlanKey & { readonly limits: PlanLimits })[] {
  return keys.map((k) => ({ plan: k.plan, key: new ApiKey(k.key, k.plan), limits: k.limits }));
}
