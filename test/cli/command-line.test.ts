/**
 * The command line's habits, the same for every command: `--help`/`-h` print that command's usage (generated from its
 * options table, every flag in it) and exit 0, `--version` prints the version, an unknown command, subcommand or flag
 * suggests the nearest valid one, and every error reads `petstore-conformance: message [CODE]`, followed by the
 * usage only when the command line itself was wrong.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nearest } from '../../cli/args.js';
import { COMMANDS, type CommandSpec } from '../../cli/commands.js';
import { SUITES } from '../../config/config.js';
import { toolVersion } from '../../http/user-agent.js';
import { runMain } from './support.js';

/** How a command is typed after the tool's name. */
const words = (c: CommandSpec): string[] => c.name.split(' ');

/** The flag words of a command's options table, as the usage writes them. */
const flagsOf = (c: CommandSpec): string[] => Object.keys(c.flags).map((f) => `--${f}`);

describe('--help and --version on every command', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s --help and -h: its usage, every flag, exit 0',
    async (_n, c) => {
      for (const help of ['--help', '-h']) {
        const r = await runMain([...words(c), help]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe('');
        expect(r.stdout).toContain(`usage: petstore-conformance ${c.name}`);
        for (const flag of flagsOf(c)) expect(r.stdout, flag).toMatch(new RegExp(`^ +${flag}\\b.*\\S`, 'm'));
        expect(r.stdout).toMatch(/-h, --help/);
      }
    },
  );

  it('--help wins over the rest of the line (a user can always ask)', async () => {
    const r = await runMain(['run', '--taget', 'x', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: petstore-conformance run');
  });

  it('report --help is its subcommand merge', async () => {
    const r = await runMain(['report', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('usage: petstore-conformance report merge DIR...');
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s --version: the version, exit 0', async (_n, c) => {
    const r = await runMain([...words(c), '--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${toolVersion()}\n`);
  });

  it('the top-level help lists every flag of every command, in that command’s own lines', async () => {
    const r = await runMain(['--help']);
    expect(r.code).toBe(0);
    const text = r.stdout;
    const starts = COMMANDS.map((c) => text.indexOf(`  petstore-conformance ${c.name} `));
    for (const [i, c] of COMMANDS.entries()) {
      expect(starts[i], c.name).toBeGreaterThan(0);
      const own = text.slice(starts[i], starts[i + 1] ?? text.indexOf('COMMAND --help'));
      for (const flag of flagsOf(c)) expect(own, `${c.name} ${flag}`).toMatch(new RegExp(`\\[${flag}[ \\]]`));
    }
    // The suites come from the configuration's list, not from a copy.
    for (const suite of SUITES) expect(text.split('\n').find((l) => l.startsWith('Suites:'))).toContain(suite);
    // The flags the hand-written help used to leave out.
    expect(text).toMatch(/--seed-pets N[\s\S]*--id-start ID[\s\S]*--list-order/);
    expect(text).toMatch(/report merge DIR\.\.\. \[--out DIR\] \[--thresholds FILE\]/);
  });

  it('the built command: run --help exits 0 and prints its usage on stdout', () => {
    const r = spawnSync(process.execPath, ['bin/petstore-conformance.js', 'run', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: petstore-conformance run \[--target URL\]/m);
  });
});

describe('did you mean', () => {
  it('an unknown flag names the nearest one, then the usage (exit 2)', async () => {
    const r = await runMain(['run', '--taget', 'http://127.0.0.1:1/v1']);
    expect(r.code).toBe(2);
    const [first, second] = r.stderr.split('\n');
    expect(first).toBe('petstore-conformance: run: unknown option --taget; did you mean --target? [PSC_USAGE]');
    expect(second).toMatch(/^usage: petstore-conformance run \[--target URL\]/);
  });

  it.each([
    [['serve', '--seed-pet', '3'], '--seed-pets'],
    [['load', '--profil', 'smoke'], '--profile'],
    [['replay', 'f.json', '--insecur'], '--insecure'],
    [['report', 'merge', 'd', '--thresold', 't.json'], '--thresholds'],
  ])('%j suggests %s', async (argv, flag) => {
    const r = await runMain(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`did you mean ${flag}?`);
  });

  it('an unknown command and subcommand name the nearest one', async () => {
    const a = await runMain(['lod']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      /^petstore-conformance: unknown command "lod"; did you mean load\?.*\[PSC_USAGE\]\nusage: /,
    );
    const b = await runMain(['report', 'mrege', 'd']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^petstore-conformance: report: unknown subcommand "mrege"; did you mean merge\?/);
  });

  it('a mistyped suite or fault id names the nearest one', async () => {
    const a = await runMain(['run', '--suite', 'lisPets']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/unknown suite "lisPets"; did you mean listPets\?.*\[PSC_CONFIG\]/);
    const b = await runMain(['serve', '--fault', 'auth-40']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/unknown fault "auth-40"; did you mean auth-403\?/);
  });

  it('suggests nothing when nothing is close', async () => {
    const r = await runMain(['run', '--frobnicate']);
    expect(r.stderr).toMatch(/unknown option --frobnicate \[PSC_USAGE\]/);
    expect(nearest('frobnicate', ['run', 'serve', 'load'])).toBeNull();
    expect(nearest('--conc', ['--concurrency', '--ca'])).toBe('--concurrency');
  });
});

describe('one error format for every command', () => {
  // A usage error of each command: its message, its code, then its usage.
  it.each([
    [['run', '--strict=yes']],
    [['serve', '--port']],
    [['load', '--frob']],
    [['report', 'merge']],
    [['replay']],
  ])('%j: the message with its code, then the usage', async (argv) => {
    const r = await runMain(argv);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^petstore-conformance: \S.* \[PSC_USAGE\]$/);
    expect(lines[1]).toMatch(new RegExp(`^usage: petstore-conformance ${argv[0]}`));
  });

  // Errors that are not about the command line's syntax: the message and its code, no usage.
  it.each([
    [['run', '--target', 'ftp://x/v1'], 'PSC_CONFIG'],
    [['load', '--profile', 'weekly'], 'PSC_USAGE'],
    [['report', 'merge', '/nonexistent/shard'], 'PSC_USAGE'],
    [['serve', '--port', 'x'], 'PSC_USAGE'],
    [['replay', '/nonexistent/replay.json'], 'PSC_USAGE'],
  ])('%j: one line, %s, no usage', async (argv, code) => {
    const r = await runMain(argv);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^petstore-conformance: \\S[^\\n]* \\[${code}\\]\\n$`));
  });
});
