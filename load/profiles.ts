/**
 * The two load profiles, each a list of scenario entries run in order, a window's rest between two so each starts
 * with a rested key (the limiter algorithm is unknown: a window's wait is enough for all). Every scenario is bounded
 * in time and in requests. Adding a scenario: its file in scenarios/ (a LoadScenario) and an entry here.
 */
import { HarnessError } from '../config/errors.js';
import type { ProfileName } from './model.js';
import { entry, type ScenarioEntry } from './run-scenario.js';
import { mixConnections } from './scenarios/mix-connections.js';
import { mixRate } from './scenarios/mix-rate.js';
import { planRate } from './scenarios/plan-rate.js';

export interface Profile {
  readonly name: ProfileName;
  /** Window of the embedded reference server: short, so the per-plan runs fit the profile's time budget. */
  readonly embeddedWindowSeconds: number;
  readonly scenarios: readonly ScenarioEntry[];
  /** Hard cap on the requests of any one scenario. */
  readonly requestCap: number;
  readonly timeoutSeconds: number;
  /** One body in this many is schema-validated. */
  readonly sampleEvery: number;
  /** What the profile promises against the embedded default (bench measures it; tests check plannedSeconds). */
  readonly budgetSeconds: number;
}

export const PROFILES: Readonly<Record<ProfileName, Profile>> = Object.freeze({
  smoke: {
    name: 'smoke',
    embeddedWindowSeconds: 2,
    scenarios: [
      entry(mixConnections, { connections: 10, durationSeconds: 3 }),
      entry(mixRate, { fraction: 0.5, maxRate: 500, durationSeconds: 3 }),
      entry(planRate, { multipliers: [0.9, 1, 2] }),
    ],
    requestCap: 20_000,
    timeoutSeconds: 5,
    sampleEvery: 20,
    budgetSeconds: 60,
  },
  nightly: {
    name: 'nightly',
    embeddedWindowSeconds: 10,
    scenarios: [
      entry(mixConnections, { connections: 1, durationSeconds: 10 }),
      entry(mixConnections, { connections: 10, durationSeconds: 10 }),
      entry(mixConnections, { connections: 50, durationSeconds: 10 }),
      entry(mixRate, { fraction: 0.5, maxRate: 1000, durationSeconds: 60 }),
      entry(mixRate, { fraction: 0.8, maxRate: 2000, durationSeconds: 60 }),
      entry(planRate, { multipliers: [0.9, 1, 2] }),
    ],
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

/** Upper bound of a profile's wall time for a rate window: every entry's own bound plus a window's rest between two.
 * Excludes the watchdog's timeout slack. */
export function plannedSeconds(profile: Profile, windowSeconds: number): number {
  return profile.scenarios.reduce((n, e, i) => n + e.plannedSeconds(windowSeconds) + (i > 0 ? windowSeconds : 0), 0);
}
