/**
 * The embedded default target: the reference Pet Store on a loopback port with keys it generates, in a child process
 * (child.ts). Its minute window is short so the rate-limit suite is quick.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ReferenceKey, ReferenceOptions, ResolvedReferenceOptions } from './server.js';
import { ApiKey, registerSecret } from '../http/redact.js';

export const EMBEDDED_WINDOW_SECONDS = 2;

export interface EmbeddedServer {
  readonly url: string;
  readonly keys: readonly ReferenceKey[];
  readonly options: ResolvedReferenceOptions;
  close(): Promise<void>;
}

// Built (dist/), the child is plain JavaScript for Node; run from the sources (tests), it goes through tsx's loader.
const compiled = import.meta.url.endsWith('.js');
const childArgs = compiled
  ? [fileURLToPath(new URL('./child.js', import.meta.url))]
  : [
      fileURLToPath(new URL('../bin/run-ts.js', import.meta.url)),
      fileURLToPath(new URL('./child.ts', import.meta.url)),
    ];

export async function startEmbedded(
  options: ReferenceOptions = { windowSeconds: EMBEDDED_WINDOW_SECONDS },
): Promise<EmbeddedServer> {
  const proc = spawn(process.execPath, [...childArgs, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  const line = await new Promise<string>((resolveLine, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', (l) => {
      rl.close();
      resolveLine(l);
    });
    proc.once('exit', (code) => reject(new Error(`the embedded reference server exited (${code}) before it started`)));
  });
  const info = JSON.parse(line) as Omit<EmbeddedServer, 'close'>;
  for (const k of info.keys) registerSecret(new ApiKey(k.key, k.plan));
  return {
    ...info,
    close: async () => {
      proc.stdin!.end();
      const timer = setTimeout(() => proc.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
