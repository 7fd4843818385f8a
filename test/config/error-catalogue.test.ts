/**
 * The error catalogue kept honest, table-driven as undici's error tests are: every code has a row (the table is typed
 * by the catalogue's codes, so a code added or removed without its row fails tsc), the row states its exit code, and
 * each code is provoked through the real path that throws it, so a code nothing throws cannot stay.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  exitCodeFor,
  exitCodeOf,
  HarnessError,
  type HarnessErrorCode,
  KeyBlockedError,
  TargetStalledError,
} from '../../errors/catalogue.js';
import { ApiKey, registerSecret } from '../../http/redact.js';
import { planKeys, startReferenceServer } from '../../reference/server.js';
import { guardSecrets } from '../../reports/secret-gate.js';
import { runSuite } from '../../runner/run.js';
import {
  closedPort,
  countingProxy,
  distinctiveKeys,
  runForReport,
  runMain,
  slowingDown,
  writeEnvFile,
} from '../cli/support.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir('psc-errors-');
const keys = distinctiveKeys('errors');
const goodEnv = writeEnvFile(join(dir, 'good.env'), keys);

/** What a real path showed: the exit code it ends in and the code it named. */
interface Seen {
  readonly exit: number;
  readonly code: string | undefined;
}

async function viaMain(argv: string[]): Promise<Seen> {
  const { code: exit, stderr } = await runMain(argv);
  return { exit, code: /\[(PSC_[A-Z_]+)\]/.exec(stderr)?.[1] };
}

function thrown(fn: () => unknown): Seen {
  try {
    fn();
  } catch (e) {
    return { exit: exitCodeOf(e), code: (e as HarnessError).code };
  }
  return { exit: 0, code: undefined };
}

/** A target that accepts connections and reads requests but never answers. */
async function silentTarget<T>(body: (url: string) => Promise<T>): Promise<T> {
  const sockets = new Set<Socket>();
  const srv = createServer((s) => {
    sockets.add(s);
    s.on('data', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    return await body(`http://127.0.0.1:${(srv.address() as { port: number }).port}/v1`);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => srv.close(() => r()));
  }
}

/** A run against the reference server (through `proxyStep` ms of added delay per answer, if any): its exit code and
 * the stop its JSON report names. */
async function viaRunLimits(flags: string[], slowing = false): Promise<Seen> {
  const server = await startReferenceServer({ keys });
  const proxy = slowing ? await countingProxy(server.url, slowingDown()) : null;
  const json = join(tempDir('psc-errors-run-'), 'r.json');
  try {
    const target = proxy?.url ?? server.url;
    const { code: exit, report } = await runForReport(target, goodEnv, json, flags);
    return { exit, code: report.run.stop?.code };
  } finally {
    await proxy?.close();
    await server.close();
  }
}

/**
 * A run against the reference server that receives `signal` once the target has seen a few of its requests: the signal
 * is emitted in this process, where the command (in process) has taken it over (cli/interrupt.ts).
 */
async function viaSignal(signal: 'SIGINT' | 'SIGTERM'): Promise<Seen> {
  const server = await startReferenceServer({ keys });
  const proxy = await countingProxy(server.url);
  const json = join(tempDir('psc-errors-signal-'), 'r.json');
  const poll = setInterval(() => {
    if (proxy.counts.requests < 20) return;
    clearInterval(poll);
    process.emit(signal, signal);
  }, 20);
  try {
    const { code: exit, report } = await runForReport(proxy.url, goodEnv, json, [
      '--suite',
      'listPets',
      '--runs',
      '5000',
    ]);
    return { exit, code: report.run.stop?.code };
  } finally {
    clearInterval(poll);
    await proxy.close();
    await server.close();
  }
}

const table: Record<HarnessErrorCode, { exit: number; provoke: () => Promise<Seen> }> = {
  PSC_USAGE: { exit: 2, provoke: () => viaMain(['frobnicate']) },
  PSC_CONFIG: {
    exit: 2,
    provoke: () => viaMain(['run', '--target', 'http://127.0.0.1:9/v1', '--env-file', join(dir, 'absent.env')]),
  },
  PSC_PRODUCTION_REFUSED: {
    exit: 2,
    provoke: () =>
      viaMain([
        'run',
        '--target',
        'http://127.0.0.1:9/v1',
        '--suite',
        'rate-limit',
        '--env-file',
        writeEnvFile(join(dir, 'prod.env'), keys, { PETSTORE_PRODUCTION_URL: 'http://127.0.0.1:9/v1' }),
      ]),
  },
  PSC_UNREACHABLE: {
    exit: 3,
    provoke: async () =>
      viaMain(['run', '--target', `http://127.0.0.1:${await closedPort()}/v1`, '--env-file', goodEnv]),
  },
  // Preflight: https spoken to a plain-http port fails the TLS handshake.
  PSC_TLS: {
    exit: 3,
    provoke: async () => {
      const server = await startReferenceServer({ windowSeconds: 5 });
      try {
        return await viaMain(['run', '--target', server.url.replace('http:', 'https:'), '--env-file', goodEnv]);
      } finally {
        await server.close();
      }
    },
  },
  // Preflight: the proxy that HTTP_PROXY names does not answer.
  PSC_PROXY: {
    exit: 3,
    provoke: async () =>
      viaMain([
        'run',
        '--target',
        'http://127.0.0.1:9/v1',
        '--env-file',
        writeEnvFile(join(dir, 'proxy.env'), keys, { HTTP_PROXY: `http://127.0.0.1:${await closedPort()}` }),
      ]),
  },
  // Preflight: the target refuses the key and says it is banned (a wrong key alone is PSC_CONFIG).
  PSC_KEY_BANNED: {
    exit: 3,
    provoke: async () => {
      const { createServer } = await import('node:http');
      const srv = createServer((_req, res) => {
        res
          .writeHead(403, { 'content-type': 'application/json' })
          .end('{"status":403,"code":"banned","message":"API key temporarily banned"}');
      });
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/v1`;
        return await viaMain(['run', '--target', url, '--env-file', goodEnv, '--suite', 'listPets']);
      } finally {
        await new Promise<void>((r) => srv.close(() => r()));
      }
    },
  },
  // Mid-suite, the runner stops after five timeouts in a row and keeps the findings (the report judges them).
  PSC_TARGET_STALLED: {
    exit: 1,
    provoke: () =>
      silentTarget(async (url) => {
        const plan = planKeys(keys);
        const r = await runSuite('listPets', {
          target: url,
          keys: plan,
          key: plan[0]!,
          seed: 1,
          runs: 5,
          strict: false,
          headersTimeoutMs: 100,
        });
        expect(r.findings.some((f) => f.checkId === 'transport-ok')).toBe(true);
        return { exit: r.aborted ? exitCodeFor(r.aborted.code) : 0, code: r.aborted?.code };
      }),
  },
  // The run's limits (runner/limits.ts): a request that would break one is never sent.
  PSC_BUDGET: { exit: 0, provoke: () => viaRunLimits(['--suite', 'getPet', '--budget', '8']) },
  PSC_MAX_CREATES: {
    exit: 0,
    provoke: () => viaRunLimits(['--suite', 'createPet', '--runs', '5', '--max-creates', '2']),
  },
  PSC_MAX_DURATION: { exit: 3, provoke: () => viaRunLimits(['--max-duration', '1s']) },
  PSC_TARGET_SLOWING: {
    exit: 3,
    // The slow-down must hold 20 s and outlast a rest: the row takes some 30 s of real time (enough runs that the run
    // outlasts it however fast the host).
    provoke: () => viaRunLimits(['--suite', 'listPets,createPet', '--runs', '1000'], true),
  },
  // A signal stops the run through the guard, its reports written (test/cli/signals.test.ts spawns the command).
  PSC_SIGINT: { exit: 130, provoke: () => viaSignal('SIGINT') },
  PSC_SIGTERM: { exit: 143, provoke: () => viaSignal('SIGTERM') },
  // Anything the harness did not foresee: here a report that cannot be written (its folder is a file).
  PSC_HARNESS: {
    exit: 3,
    provoke: () => {
      const d = tempDir('psc-errors-harness-');
      writeFileSync(join(d, 'file'), '');
      return viaMain(['run', '--embedded', '--suite', 'auth', '--runs', '1', '--json', join(d, 'file', 'r.json')]);
    },
  },
  PSC_SECRET_LEAK: {
    exit: 3,
    provoke: async () => {
      const secret = `psk_catalogue_${'e'.repeat(24)}`;
      registerSecret(new ApiKey(secret, 'pro'));
      return thrown(() => guardSecrets(`Authorization: Bearer ${secret}`, 'a test file'));
    },
  },
};

describe('the error catalogue', () => {
  it.each(Object.entries(table))('%s: a HarnessError with that code and exit code', (code, row) => {
    const e = new HarnessError(code as HarnessErrorCode, 'm');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('HarnessError');
    expect(e.code).toBe(code);
    expect(e.exitCode).toBe(row.exit);
    expect(exitCodeOf(e)).toBe(row.exit);
  });

  it.each(Object.entries(table))(
    '%s is thrown by a real path, which ends in its exit code',
    async (code, row) => {
      const seen = await row.provoke();
      expect(seen).toEqual({ exit: row.exit, code });
    },
    120_000,
  );

  it('the subclasses carry catalogue codes', () => {
    const blocked = new KeyBlockedError('key free: banned');
    expect(blocked).toBeInstanceOf(HarnessError);
    expect([blocked.name, blocked.code, blocked.exitCode]).toEqual(['KeyBlockedError', 'PSC_KEY_BANNED', 3]);
    const stalled = new TargetStalledError('5 timeouts');
    expect(stalled).toBeInstanceOf(HarnessError);
    expect([stalled.name, stalled.code, stalled.exitCode]).toEqual(['TargetStalledError', 'PSC_TARGET_STALLED', 1]);
  });

  it('anything else is an internal error: exit 3', () => {
    expect(exitCodeOf(new Error('bug'))).toBe(3);
  });
});
