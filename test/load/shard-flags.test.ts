/**
 * The flags of a sharded night and profile files: bad values exit 2 naming the flag or the file's field, before any
 * load; the shares of a sharded scenario add up to the whole.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommand, parseStartAt } from '../../cli/load-command.js';
import { PROFILES, profileId, profileNamed } from '../../load/profiles.js';
import { shareOf } from '../../load/run-scenario.js';
import { tempDir } from '../support/temp-dir.js';

async function load(args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const code = await loadCommand(args, {
    env: {},
    stderr: { isTTY: false, write: (t: string) => err.push(t) },
    stdout: { write: () => {} },
  });
  return { code, err: err.join('') };
}

describe('load --shard, --start-at, --limiter-shards', () => {
  it.each([
    [['--shard', '5/4'], /--shard must be I\/N with 1 ≤ I ≤ N \(1-based.*JOB_COMPLETION_INDEX, add 1\), got "5\/4"/],
    [['--shard', '0/4'], /--shard must be I\/N/],
    [['--shard', 'two'], /--shard must be I\/N/],
    [['--shard', '1/2', '--limiter-shards', 'some'], /--limiter-shards must be one of first, all, got "some"/],
    [['--start-at', 'tomorrow'], /--start-at must be an instant with its time zone/],
    [['--start-at', '2030-01-31T02:00:00'], /--start-at must be an instant with its time zone/],
  ])('%j exits 2 naming the flag', async (args, message) => {
    const r = await load(args as string[]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message as RegExp);
  });

  it('a start barrier more than an hour ahead is refused; epoch seconds and zoned instants are read', () => {
    const now = Date.parse('2030-01-31T02:00:00Z');
    expect(() => parseStartAt('2030-01-31T04:00:00Z', now)).toThrow(/more than an hour ahead/);
    expect(parseStartAt('2030-01-31T02:30:00+01:00', now)!.toISOString()).toBe('2030-01-31T01:30:00.000Z');
    expect(parseStartAt(String(now / 1000 + 60), now)!.getTime()).toBe(now + 60_000);
  });

  it('the shares of N shards add up to the whole, each at least 1', () => {
    for (const total of [1, 7, 10, 40, 1001])
      for (const count of [1, 2, 3, 4, 7]) {
        const shares = Array.from({ length: count }, (_, i) => shareOf(total, { index: i + 1, count }));
        if (total >= count)
          expect(
            shares.reduce((a, b) => a + b, 0),
            `${total}/${count}`,
          ).toBe(total);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
        expect(Math.min(...shares)).toBeGreaterThanOrEqual(1);
      }
  });
});

describe('--profile FILE.json', () => {
  const dir = tempDir('psc-profile-');
  const file = (name: string, data: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof data === 'string' ? data : JSON.stringify(data));
    return path;
  };

  it.each([
    ['not-json.json', '{', /cannot read a JSON profile/],
    [
      'no-name.json',
      { scenarios: [{ kind: 'mix-rate', fraction: 0.5, maxRate: 10, durationSeconds: 1 }] },
      /"name" must be/,
    ],
    [
      'kind.json',
      { name: 'x', scenarios: [{ kind: 'mix-fast' }] },
      /scenarios\[0\]\.kind must be one of mix-connections, mix-rate, plan-rate/,
    ],
    [
      'param.json',
      { name: 'x', scenarios: [{ kind: 'mix-rate', fraction: 0.5, maxRate: -1, durationSeconds: 1 }] },
      /scenarios\[0\]\.maxRate must be a positive number/,
    ],
    [
      'extra.json',
      { name: 'x', scenarios: [{ kind: 'plan-rate', multipliers: [1], speed: 2 }] },
      /unknown parameter "speed" for plan-rate/,
    ],
    ['field.json', { name: 'x', scenarios: [], requestcap: 1 }, /unknown field "requestcap"/],
  ])('%s exits 2 naming what is wrong', async (name, data, message) => {
    const r = await load(['--profile', file(name, data)]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('a profile file reads like a built-in one, and its identity follows its definition', () => {
    const p = profileNamed(
      file('ok.json', { name: 'ok', scenarios: [{ kind: 'mix-connections', connections: 2, durationSeconds: 1 }] }),
    );
    expect(p.scenarios.map((e) => e.kind)).toEqual(['mix-connections']);
    const q = profileNamed(
      file('ok2.json', { name: 'ok', scenarios: [{ kind: 'mix-connections', connections: 3, durationSeconds: 1 }] }),
    );
    expect(profileId(p)).not.toBe(profileId(q));
    expect(profileId(PROFILES.nightly)).toBe(profileId(PROFILES.nightly));
    expect(profileId(PROFILES.nightly)).not.toBe(profileId(PROFILES.smoke));
  });
});
