/**
 * `serve` through the CLI: several faults at once (repeated flags and comma lists), the fault catalogue as text and as
 * data, and unknown fault ids refused with exit 2 naming them.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { faults } from '../../reference/faults.js';
import { runMain } from './support.js';

describe('serve --list-faults', () => {
  it('prints every fault of the catalogue with its suite, the check that catches it and what it breaks', async () => {
    const r = await runMain(['serve', '--list-faults']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(faults.length + 1);
    for (const f of faults) {
      const line = lines.find((l) => l.startsWith(`${f.id} `));
      expect(line?.split(/\s{2,}/), f.id).toEqual([f.id, f.suite, f.catches, f.description]);
    }
  });

  it('--json gives the catalogue as data: id, description, catches, suite', async () => {
    const r = await runMain(['serve', '--list-faults', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(
      faults.map((f) => ({ id: f.id, description: f.description, catches: f.catches, suite: f.suite })),
    );
  });
});

describe('serve refuses what it cannot start', () => {
  it.each([
    [['--fault', 'no-such-fault'], /--fault: unknown fault "no-such-fault"/],
    [['--fault', 'auth-403,no-such-fault', '--fault', 'other-typo'], /unknown fault "no-such-fault", "other-typo"/],
    [['--fault', 'auth-403,'], /unknown fault ""/],
    [['--json'], /--json goes with --list-faults/],
    [['--seed-pets', 'many'], /--seed-pets: "many" is not a whole number/],
    [['--id-start', '9223372036854775808'], /idStart must be an int64/],
    [['--id-start', '1e3'], /--id-start: "1e3" is not an int64/],
    [['--list-order', 'random'], /--list-order: "random" is not one of/],
    // Two faults that replace one seam: one of them would silently vanish.
    [['--fault', 'create-202,create-200'], /faults create-202, create-200 cannot be combined/],
  ])('serve %j exits 2 naming it', async (args, message) => {
    const r = await runMain(['serve', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

/** Starts `serve` as a user does (the binary, a child process) and hands its URL and Enterprise key to `body`. */
async function withServe(args: string[], body: (url: string, key: string, printed: string[]) => Promise<void>) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PETSTORE_')));
  const child = spawn(process.execPath, ['bin/petstore-conformance.js', 'serve', '--window', '60', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    const printed: string[] = [];
    const lines = createInterface({ input: child.stdout });
    for await (const line of lines) {
      printed.push(line);
      if (line.startsWith('export PETSTORE_ENTERPRISE_LIMITS=')) break;
    }
    const value = (name: string) => printed.find((l) => l.startsWith(`export ${name}=`))?.split('=')[1];
    const url = value('PETSTORE_TARGET');
    const key = value('PETSTORE_API_KEY_ENTERPRISE');
    expect(url && key, printed.join('\n')).toBeTruthy();
    await body(url!, key!, printed);
  } finally {
    child.kill('SIGTERM');
  }
  // A graceful stop exits as signals do: 128 + SIGTERM's 15 (cli/interrupt.ts).
  expect(await exited).toBe(143);
}

describe('serve with several faults', () => {
  // Three faults that show on two plain requests; if only the last flag or the first list item were applied, the
  // others would not show.
  it.each([
    [
      'repeated flags',
      ['--fault', 'success-text-html', '--fault', 'auth-no-www-authenticate', '--fault', 'rl-limit-constant'],
    ],
    ['a comma list', ['--fault', 'success-text-html,auth-no-www-authenticate,rl-limit-constant']],
    ['both', ['--fault', 'success-text-html,auth-no-www-authenticate', '--fault', 'rl-limit-constant']],
  ])('%s: every fault is on at once', async (_name, args) => {
    await withServe(args, async (url, key, printed) => {
      expect(printed).toContain('Faults switched on: success-text-html, auth-no-www-authenticate, rl-limit-constant');
      const ok = await fetch(`${url}/pets`, { headers: { authorization: `Bearer ${key}` } });
      await ok.arrayBuffer();
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/html/);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('100');
      const denied = await fetch(`${url}/pets`);
      await denied.arrayBuffer();
      expect(denied.status).toBe(401);
      expect(denied.headers.get('www-authenticate')).toBeNull();
    });
  });

  it('without --fault the same requests are conformant', async () => {
    await withServe([], async (url, key, printed) => {
      expect(printed.some((l) => l.startsWith('Faults'))).toBe(false);
      const ok = await fetch(`${url}/pets`, { headers: { authorization: `Bearer ${key}` } });
      await ok.arrayBuffer();
      expect(ok.headers.get('content-type')).toMatch(/^application\/json/);
      expect(ok.headers.get('x-ratelimit-limit')).not.toBe('100');
      const denied = await fetch(`${url}/pets`);
      await denied.arrayBuffer();
      expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });
  });
});

describe('serve with existing pets', () => {
  it("--seed-pets and --id-start: pets that are not the client's, ids beyond 2^53, newest first on request", async () => {
    const args = ['--seed-pets', '300', '--id-start', '9007199254740993', '--list-order', 'newest-first'];
    await withServe(args, async (url, key, printed) => {
      expect(printed).toContain('Existing pets: 300, ids from 9007199254740993');
      const auth = { authorization: `Bearer ${key}` };
      const first = await fetch(`${url}/pets/9007199254740993`, { headers: auth });
      expect(first.status).toBe(200);
      expect(await first.text()).toMatch(/^\{"id":9007199254740993,/);
      const page = await fetch(`${url}/pets?limit=2`, { headers: auth });
      expect((await page.text()).match(/"id":(\d+)/g)).toEqual(['"id":9007199254741292', '"id":9007199254741291']);
    });
  });
});
