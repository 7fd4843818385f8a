/**
 * The embedded default target: the reference Pet Store on a loopback port with keys it generates, and the
 * environment the suites' workers read (target, keys). Its minute window is short so the rate-limit suite is quick.
 */
import { startReferenceServer, type ReferenceServer } from '../reference/server.js';
import { keyVariable } from '../config/config.js';
import { ApiKey, registerSecret } from '../http/redact.js';

export const EMBEDDED_WINDOW_SECONDS = 2;

export async function startEmbedded(windowSeconds = EMBEDDED_WINDOW_SECONDS): Promise<ReferenceServer> {
  const server = await startReferenceServer({ windowSeconds });
  for (const k of server.keys) registerSecret(new ApiKey(k.key, k.plan));
  return server;
}

/** Environment variables that point a configuration at the server. */
export function embeddedEnv(server: ReferenceServer): Record<string, string> {
  const env: Record<string, string> = { PETSTORE_TARGET: server.url };
  for (const k of server.keys) {
    env[keyVariable(k.plan)] = k.key;
    if (k.plan === 'enterprise') env.PETSTORE_ENTERPRISE_LIMITS = `${k.limits.requestsPerMinute}/${k.limits.requestsPerDay}`;
  }
  return env;
}
