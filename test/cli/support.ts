/** Helpers for in-process CLI tests: an Output that captures what `main()` prints, and distinctive reference keys. */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Output } from '../../cli/output.js';
import { keyEnv } from '../../config/config.js';
import { generateKeys, type ReferenceKey } from '../../reference/server.js';

export interface Captured extends Output {
  readonly stdout: string[];
  readonly stderr: string[];
  text(): string;
}

export function captureOutput(): Captured {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    result: (t) => void stdout.push(t),
    progress: (l) => void stderr.push(`${l}\n`),
    error: (l) => void stderr.push(`petstore-conformance: ${l}\n`),
    text: () => stdout.join('') + stderr.join(''),
  };
}

/** Reference keys whose values are easy to grep for, one per plan (the suffix differs per test so runs never share). */
export function distinctiveKeys(tag: string): ReferenceKey[] {
  return generateKeys().map((k) => ({ ...k, key: `psk_SECRET_${k.plan}_${tag}_0123456789abcdef` }));
}

/** A .env file with every key of `keys` (and anything else given) for --env-file. */
export function writeEnvFile(path: string, keys: readonly ReferenceKey[], extra: Record<string, string> = {}): string {
  const lines = Object.entries({ ...keyEnv(keys), ...extra }).map(([k, v]) => `${k}=${v}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A loopback port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
