// A staging reached through a forward proxy: HTTPS_PROXY / HTTP_PROXY are honoured (the run's traffic goes through
// the proxy), NO_PROXY sends it direct, and a proxy that fails or refuses is exit 3 naming the variable to fix.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closedPort, distinctiveKeys } from '../cli/support.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import {
  makePki,
  runCli,
  startForwardProxy,
  startFront,
  userEnv,
  type ForwardProxy,
  type Front,
  type Pki,
} from './support.js';

const RUN = ['run', '--suite', 'listPets', '--runs', '10', '--seed', '7'];

describe('a target behind a forward proxy', () => {
  const keys = distinctiveKeys('proxy');
  let pki: Pki;
  let reference: ReferenceServer;
  let front: Front;
  let proxy: ForwardProxy;
  let authProxy: ForwardProxy;
  const credentials = `Basic ${Buffer.from('gate:s3cr3t-proxy-pw').toString('base64')}`;

  beforeAll(async () => {
    pki = await makePki();
    reference = await startReferenceServer({ keys });
    front = await startFront(reference.url, { tls: pki.server });
    proxy = await startForwardProxy();
    authProxy = await startForwardProxy({ requireAuth: credentials });
  });
  afterAll(async () => {
    await proxy?.close();
    await authProxy?.close();
    await front?.close();
    await reference?.close();
  });

  test('HTTPS_PROXY: the run goes through the proxy (CONNECT tunnels to the target) and passes', async () => {
    const before = front.seen.length;
    const r = await runCli(
      [...RUN, '--target', front.url, '--ca', pki.caFile],
      userEnv(keys, { HTTPS_PROXY: proxy.url }),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const host = new URL(front.url).host;
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([host]));
    expect(front.seen.length - before).toBeGreaterThan(10);
    expect(r.stderr).toMatch(new RegExp(`through the proxy ${proxy.url} \\(HTTPS_PROXY\\)`));
  });

  test('NO_PROXY matching the target: the run goes direct, nothing through the proxy', async () => {
    const tunnels = proxy.tunnels.length;
    const before = front.seen.length;
    const r = await runCli(
      [...RUN, '--target', front.url, '--ca', pki.caFile],
      userEnv(keys, { HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' }),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(proxy.tunnels.length).toBe(tunnels);
    expect(front.seen.length - before).toBeGreaterThan(10);
  });

  test('HTTP_PROXY for an http target: through the proxy as well', async () => {
    const tunnels = proxy.tunnels.length;
    const r = await runCli([...RUN, '--target', reference.url], userEnv(keys, { http_proxy: proxy.url }));
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(proxy.tunnels.length).toBeGreaterThan(tunnels);
    expect(proxy.tunnels.at(-1)).toBe(new URL(reference.url).host);
  });

  test('a proxy that cannot be reached: exit 3 naming the variable, not the target', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli([...RUN, '--target', front.url, '--ca', pki.caFile], userEnv(keys, { https_proxy: dead }));
    expect(r.status, r.stderr + r.stdout).toBe(3);
    expect(r.stderr).toMatch(/PSC_PROXY/);
    expect(r.stderr).toMatch(/could not be reached \(ECONNREFUSED/);
    expect(r.stderr).toMatch(/fix https_proxy/);
    expect(r.stdout).not.toMatch(/Violations/);
  });

  test('a proxy that wants credentials: 407 is exit 3 naming the variable; credentials in it pass, and stay secret', async () => {
    const refused = await runCli(
      [...RUN, '--target', front.url, '--ca', pki.caFile],
      userEnv(keys, { HTTPS_PROXY: authProxy.url }),
    );
    expect(refused.status, refused.stderr + refused.stdout).toBe(3);
    expect(refused.stderr).toMatch(/requires authentication \(407\)/);
    expect(refused.stderr).toMatch(/credentials in HTTPS_PROXY/);
    expect(authProxy.tunnels).toEqual([]);

    const withCredentials = authProxy.url.replace('http://', 'http://gate:s3cr3t-proxy-pw@');
    const ok = await runCli(
      [...RUN, '--target', front.url, '--ca', pki.caFile],
      userEnv(keys, { HTTPS_PROXY: withCredentials }),
    );
    expect(ok.status, ok.stderr + ok.stdout).toBe(0);
    expect(authProxy.tunnels.length).toBeGreaterThan(0);
    expect(ok.stdout + ok.stderr).not.toContain('s3cr3t-proxy-pw');
    expect(ok.stderr).toMatch(/through the proxy http:\/\/\*\*\*@127\.0\.0\.1/);
  });

  test('the embedded reference server is reached directly, whatever the proxy variables say', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const r = await runCli(
      ['run', '--embedded', '--suite', 'getPet', '--runs', '5', '--seed', '2'],
      userEnv([], { HTTP_PROXY: dead, HTTPS_PROXY: dead }),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
  });
});
