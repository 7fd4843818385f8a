/**
 * Configuration mistakes exit 2 with a message naming the flag or variable; an unreachable target exits 3 naming the
 * URL. All through `main()` in-process, so the exit code is the one CI would see.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort, distinctiveKeys, runMain, writeEnvFile } from './support.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir('psc-config-');
const keys = distinctiveKeys('cfg');
const goodEnv = writeEnvFile(join(dir, 'good.env'), keys);
const env = (name: string, extra: Record<string, string>, withKeys = true) =>
  writeEnvFile(join(dir, name), withKeys ? keys : [], extra);

describe('configuration errors exit 2 and name the flag or variable', () => {
  const cases: [string, () => string[], RegExp][] = [
    [
      'malformed --target',
      () => ['run', '--target', 'not a url', '--env-file', goodEnv],
      /--target: "not a url" is not a URL/,
    ],
    [
      'empty --target (unset CI variable)',
      () => ['run', '--target', '', '--env-file', goodEnv],
      /--target is set but empty/,
    ],
    ['empty --target for load', () => ['load', '--target', ' ', '--env-file', goodEnv], /--target is set but empty/],
    [
      '--target without /v1',
      () => ['run', '--target', 'http://127.0.0.1:8080/api', '--env-file', goodEnv],
      /--target: .*\/v1/,
    ],
    [
      'malformed PETSTORE_TARGET',
      () => ['run', '--env-file', env('target.env', { PETSTORE_TARGET: 'ftp://x/v1' })],
      /PETSTORE_TARGET: only http and https/,
    ],
    [
      'PETSTORE_TARGET without /v1',
      () => ['run', '--env-file', env('target2.env', { PETSTORE_TARGET: 'http://127.0.0.1:9/' })],
      /PETSTORE_TARGET: .*\/v1/,
    ],
    [
      'key variable set but empty',
      () => [
        'run',
        '--target',
        'http://127.0.0.1:9/v1',
        '--env-file',
        env('empty.env', { PETSTORE_API_KEY_PRO: '' }, false),
      ],
      /PETSTORE_API_KEY_PRO is set but empty/,
    ],
    [
      'unparseable PETSTORE_ENTERPRISE_LIMITS',
      () => [
        'run',
        '--target',
        'http://127.0.0.1:9/v1',
        '--env-file',
        env('limits.env', { PETSTORE_API_KEY_FREE: 'psk_x_0123456789', PETSTORE_ENTERPRISE_LIMITS: 'lots' }, false),
      ],
      /PETSTORE_ENTERPRISE_LIMITS: "lots" is not of the form rpm\/rpd/,
    ],
    [
      'no key for a --target',
      () => ['run', '--target', 'http://127.0.0.1:9/v1', '--env-file', join(dir, 'absent.env')],
      /no API key: set at least one of PETSTORE_API_KEY_FREE/,
    ],
    ['unknown suite', () => ['run', '--suite', 'nope'], /--suite: unknown suite "nope"/],
    ['--runs 0', () => ['run', '--runs', '0'], /--runs: 0 is out of range/],
    ['--runs not a number', () => ['run', '--runs', 'many'], /--runs: "many" is not a whole number/],
    ['--seed negative', () => ['run', '--seed', '-1'], /--seed/],
    ['--concurrency 0', () => ['run', '--concurrency', '0'], /--concurrency: 0 is out of range \(1\.\.16\)/],
    [
      '--concurrency not a number',
      () => ['run', '--concurrency', 'lots'],
      /--concurrency: "lots" is not a whole number/,
    ],
    [
      'PETSTORE_CONCURRENCY out of range',
      () => ['run', '--env-file', env('conc.env', { PETSTORE_CONCURRENCY: '99' })],
      /PETSTORE_CONCURRENCY: 99 is out of range/,
    ],
    ['unknown flag', () => ['run', '--frobnicate'], /--frobnicate/],
    ['flag without its value', () => ['run', '--target'], /--target/],
    ['unknown command', () => ['frobnicate'], /unknown command "frobnicate"/],
    ['replay without a file', () => ['replay'], /replay: name a replay FILE/],
    ['replay of a missing file', () => ['replay', join(dir, 'missing.json')], /replay: cannot read .*missing\.json/],
    ['load: unknown flag', () => ['load', '--frobnicate'], /--frobnicate/],
  ];

  it.each(cases)('%s', async (_name, argv, message) => {
    const r = await runMain(argv());
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    // A configuration error is reported before anything is sent or written.
    expect(r.stderr).not.toMatch(/internal error|embedded reference server/);
    expect(r.stderr).not.toContain('psk_SECRET_');
  });
});

describe('an unreachable target exits 3 and names the URL', () => {
  it('closed port', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runMain(['run', '--target', url, '--env-file', goodEnv]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`target unreachable: ${url}`);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
    expect(r.stderr).toMatch(/\[PSC_UNREACHABLE\]/);
  });

  it('replay against a closed port', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const file = join(dir, 'r.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      JSON.stringify({
        replayVersion: 1,
        checkId: 'status-documented',
        seed: 1,
        operation: 'listPets',
        request: { method: 'GET', path: '/pets', headers: {}, bodyBase64: null },
      }),
    );
    const r = await runMain(['replay', file, '--target', url, '--env-file', goodEnv]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`target unreachable: ${url}`);
  });
});

describe('a refused key: a configuration error unless the target says it is banned', () => {
  /** A target that answers every request with this status and Error body. */
  async function refusing(status: number, body: object) {
    const { createServer } = await import('node:http');
    const srv = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status, ...body }));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return {
      url: `http://127.0.0.1:${(srv.address() as { port: number }).port}/v1`,
      close: () => new Promise<void>((r) => srv.close(() => r())),
    };
  }

  it('a wrong key (the reference server does not know these keys): exit 2 naming the variable', async () => {
    const { startReferenceServer } = await import('../../reference/server.js');
    const server = await startReferenceServer({ windowSeconds: 5 });
    try {
      const r = await runMain(['run', '--target', server.url, '--env-file', goodEnv, '--suite', 'listPets']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^petstore-conformance: PETSTORE_API_KEY_\w+: .* refused the \w+ key with 401 .*\[PSC_CONFIG\]$/m,
      );
    } finally {
      await server.close();
    }
  });

  it.each([
    [401, { code: 'banned', message: 'API key temporarily banned' }],
    [403, { code: 'forbidden', message: 'no' }],
  ])('%i %j: the key is blocked, exit 3', async (status, body) => {
    const target = await refusing(status, body);
    try {
      const r = await runMain(['run', '--target', target.url, '--env-file', goodEnv, '--suite', 'listPets']);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(new RegExp(`refused with ${status} .*\\[PSC_KEY_BANNED\\]`));
    } finally {
      await target.close();
    }
  });
});
