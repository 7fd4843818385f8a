/**
 * The two load profiles, each a list of scenario entries run in order, a window's rest between two so each starts
 * with a rested key (the limiter algorithm is unknown: a window's wait is enough for all). Every scenario is bounded
 * in time and in requests. Adding a scenario: its file in scenarios/ (a LoadScenario) and an entry here.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HarnessError } from '../errors/catalogue.js';
import type { ProfileName } from './model.js';
import { entry, type LoadScenario, type ScenarioEntry } from './run-scenario.js';
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

export const PROFILES: Readonly<Record<'smoke' | 'nightly', Profile>> = Object.freeze({
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

/** Every kind of scenario a profile (built in or from a file) may list. */
export const SCENARIOS: Readonly<Record<string, LoadScenario<never>>> = Object.freeze({
  [mixConnections.kind]: mixConnections as LoadScenario<never>,
  [mixRate.kind]: mixRate as LoadScenario<never>,
  [planRate.kind]: planRate as LoadScenario<never>,
});

/** A built-in profile by name, or a profile file (a path ending in .json). */
export function profileNamed(name: string): Profile {
  if (name.endsWith('.json')) return profileFromFile(name);
  const p = (PROFILES as Record<string, Profile>)[name];
  if (!p)
    throw new HarnessError(
      'PSC_USAGE',
      `--profile: unknown profile "${name}" (known: ${Object.keys(PROFILES).join(', ')}, or a profile file ending in .json)`,
    );
  return p;
}

/**
 * A profile from a JSON file: { name, scenarios: [{ kind, ...params }], requestCap, timeoutSeconds, sampleEvery,
 * embeddedWindowSeconds }. Every value is checked before anything runs (exit 2 naming the file and the value).
 */
export function profileFromFile(file: string): Profile {
  const fail = (why: string): never => {
    throw new HarnessError('PSC_CONFIG', `--profile ${file}: ${why}`);
  };
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    fail(`cannot read a JSON profile (${(e as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) fail('expected an object');
  const known = [
    '$schema',
    'name',
    'scenarios',
    'requestCap',
    'timeoutSeconds',
    'sampleEvery',
    'embeddedWindowSeconds',
  ];
  for (const k of Object.keys(data)) if (!known.includes(k)) fail(`unknown field "${k}" (known: ${known.join(', ')})`);
  const name = data.name;
  if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]*$/i.test(name) || name === 'merged')
    fail('"name" must be a word of letters, digits and dashes (not "merged")');
  const positive = (k: string, dflt: number): number => {
    const v = data[k] ?? dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fail(`"${k}" must be a positive number`);
    return v as number;
  };
  if (!Array.isArray(data.scenarios) || data.scenarios.length === 0) fail('"scenarios" must be a non-empty list');
  const scenarios = (data.scenarios as unknown[]).map((raw, i) => {
    const at = `scenarios[${i}]`;
    if (typeof raw !== 'object' || raw === null) fail(`${at} must be an object`);
    const { kind, ...params } = raw as Record<string, unknown>;
    const scenario = typeof kind === 'string' ? SCENARIOS[kind] : undefined;
    if (!scenario) fail(`${at}.kind must be one of ${Object.keys(SCENARIOS).join(', ')}`);
    const types = scenario!.params as Record<string, 'number' | 'numbers'>;
    for (const [k, type] of Object.entries(types)) {
      const v = params[k];
      const ok =
        type === 'number'
          ? typeof v === 'number' && Number.isFinite(v) && v > 0
          : Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x) && x > 0);
      if (!ok) fail(`${at}.${k} must be ${type === 'number' ? 'a positive number' : 'a list of positive numbers'}`);
    }
    for (const k of Object.keys(params))
      if (!(k in types))
        fail(`${at}: unknown parameter "${k}" for ${String(kind)} (known: ${Object.keys(types).join(', ')})`);
    return entry(scenario!, params as never);
  });
  return {
    name: name as string,
    embeddedWindowSeconds: positive('embeddedWindowSeconds', 2),
    scenarios,
    requestCap: Math.floor(positive('requestCap', 20_000)),
    timeoutSeconds: positive('timeoutSeconds', 5),
    sampleEvery: Math.floor(positive('sampleEvery', 20)),
    budgetSeconds: 0,
  };
}

/**
 * A short digest of everything that shapes a profile's load: shards of one night must share it (the merge refuses
 * shards whose profiles differ, even under one name).
 */
export function profileId(p: Profile): string {
  const shape = {
    name: p.name,
    embeddedWindowSeconds: p.embeddedWindowSeconds,
    requestCap: p.requestCap,
    timeoutSeconds: p.timeoutSeconds,
    sampleEvery: p.sampleEvery,
    scenarios: p.scenarios.map((e) => ({ kind: e.kind, params: e.params })),
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 12);
}

/** Upper bound of a profile's wall time for a rate window: every entry's own bound plus a window's rest between two.
 * Excludes the watchdog's timeout slack. */
export function plannedSeconds(profile: Profile, windowSeconds: number): number {
  return profile.scenarios.reduce((n, e, i) => n + e.plannedSeconds(windowSeconds) + (i > 0 ? windowSeconds : 0), 0);
}
