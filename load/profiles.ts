/**
 * The two load profiles. Every scenario is bounded in time and in requests; rests between scenarios last one rate
 * window so each starts with a rested key (the limiter algorithm is unknown: a window's wait is enough for all).
 */
import { HarnessError } from '../config/errors.js';
import type { ProfileName } from './model.js';

export interface Profile {
  readonly name: ProfileName;
  /** Window of the embedded reference server: short, so the per-plan runs fit the profile's time budget. */
  readonly embeddedWindowSeconds: number;
  /** Closed-loop mix runs. */
  readonly mixConnections: readonly { readonly connections: number; readonly durationSeconds: number }[];
  /** Open-loop mix runs, as fractions of the mix key's rate (all below the limit), capped at maxRate req/s (a
   * generous Enterprise key would otherwise ask for an open loop faster than any closed one). */
  readonly mixRates: readonly {
    readonly fraction: number;
    readonly maxRate: number;
    readonly durationSeconds: number;
  }[];
  /** Per-plan runs, as multiples of the plan's rate. Runs above the limit last two windows (see plan-rate.ts). */
  readonly planMultipliers: readonly number[];
  /** Hard cap on the requests of any one scenario. */
  readonly requestCap: number;
  readonly timeoutSeconds: number;
  /** One body in this many is schema-validated. */
  readonly sampleEvery: number;
  /** What the profile promises against the embedded default (the test holds it to this). */
  readonly budgetSeconds: number;
}

export const PROFILES: Readonly<Record<ProfileName, Profile>> = Object.freeze({
  smoke: {
    name: 'smoke',
    embeddedWindowSeconds: 2,
    mixConnections: [{ connections: 10, durationSeconds: 3 }],
    mixRates: [{ fraction: 0.5, maxRate: 500, durationSeconds: 3 }],
    planMultipliers: [0.9, 1, 2],
    requestCap: 20_000,
    timeoutSeconds: 5,
    sampleEvery: 20,
    budgetSeconds: 60,
  },
  nightly: {
    name: 'nightly',
    embeddedWindowSeconds: 10,
    mixConnections: [
      { connections: 1, durationSeconds: 10 },
      { connections: 10, durationSeconds: 10 },
      { connections: 50, durationSeconds: 10 },
    ],
    mixRates: [
      { fraction: 0.5, maxRate: 1000, durationSeconds: 60 },
      { fraction: 0.8, maxRate: 2000, durationSeconds: 60 },
    ],
    planMultipliers: [0.9, 1, 2],
    requestCap: 500_000,
    timeoutSeconds: 10,
    sampleEvery: 20,
    budgetSeconds: 15 * 60,
  },
});

export function profileNamed(name: string): Profile {
  const p = (PROFILES as Record<string, Profile>)[name];
  if (!p)
    throw new HarnessError(
      'PSC_USAGE',
      `--profile: unknown profile "${name}" (known: ${Object.keys(PROFILES).join(', ')})`,
    );
  return p;
}

/** Upper bound of a profile's wall time for a rate window: scenario durations plus a window's rest after each mix run
 * and between the per-plan multipliers (plans run side by side). Excludes the watchdog's timeout slack. */
export function plannedSeconds(profile: Profile, windowSeconds: number): number {
  const mix = [...profile.mixConnections, ...profile.mixRates].reduce(
    (n, r) => n + r.durationSeconds + windowSeconds,
    0,
  );
  const plan = profile.planMultipliers.reduce(
    (n, m, i) => n + (m > 1 ? 2 : 1) * windowSeconds + (i > 0 ? windowSeconds : 0),
    0,
  );
  return mix + plan;
}
