// The transport's rules as data: which requests a proxy carries (undici's NO_PROXY rules), how failures are named,
// how bodies are decoded, what every request carries, and how the configuration reads and forwards it all.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCommand } from '../../cli/load-command.js';
import { functionalKey, keyVariable, loadConfig, type Env } from '../../config/config.js';
import { HttpClient } from '../../http/client.js';
import { toCurl } from '../../http/curl.js';
import { contentCodings, decodeBody } from '../../http/decode.js';
import { ApiKey } from '../../http/redact.js';
import {
  classifyReachFailure,
  displayProxy,
  NO_PROXY_SETTINGS,
  proxyFor,
  type ProxySettings,
} from '../../http/transport.js';
import { toolVersion } from '../../http/user-agent.js';
import { autocannonTransportWarnings } from '../../load/transport.js';
import * as req from '../../runner/requests.js';
import { toWorkerConfig, workerSettings } from '../../suites/worker-config.js';

const P = (http: string | null, https: string | null, noProxy: string | null): ProxySettings => ({
  http: http ? { variable: 'HTTP_PROXY', url: http } : null,
  https: https ? { variable: 'HTTPS_PROXY', url: https } : null,
  noProxy: noProxy === null ? null : { variable: 'NO_PROXY', value: noProxy },
});

describe('proxyFor (the rules of undici’s EnvHttpProxyAgent)', () => {
  const cases: [string, ProxySettings, string | null][] = [
    ['https://staging.example.com/v1', P(null, null, null), null],
    ['http://staging.example.com/v1', P('http://p:1', null, null), 'HTTP_PROXY'],
    ['https://staging.example.com/v1', P('http://p:1', null, null), 'HTTP_PROXY'],
    ['https://staging.example.com/v1', P('http://p:1', 'http://q:2', null), 'HTTPS_PROXY'],
    ['http://staging.example.com/v1', P(null, 'http://q:2', null), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', 'staging.example.com'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', 'example.com'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', '.example.com'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', '*.example.com'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', 'ample.com'), 'HTTPS_PROXY'],
    ['https://staging.example.com/v1', P(null, 'http://q:2', 'staging.example.com:8443'), 'HTTPS_PROXY'],
    ['https://staging.example.com:8443/v1', P(null, 'http://q:2', 'staging.example.com:8443'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', 'staging.example.com:443'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', 'other.org, STAGING.example.com'), null],
    ['https://staging.example.com/v1', P(null, 'http://q:2', '*'), null],
    ['http://[::1]:8080/v1', P('http://p:1', null, '[::1]'), null],
    ['http://127.0.0.1:8080/v1', P('http://p:1', null, 'localhost'), 'HTTP_PROXY'],
  ];
  test.each(cases)('%s with %j → %s', (target, proxy, expected) => {
    expect(proxyFor(target, proxy)?.variable ?? null).toBe(expected);
  });

  test('a proxy URL is shown with its credentials masked', () => {
    expect(displayProxy({ variable: 'HTTPS_PROXY', url: 'http://gate:pw@proxy.corp:3128' })).toBe(
      'http://***@proxy.corp:3128 (HTTPS_PROXY)',
    );
  });
});

describe('classifyReachFailure', () => {
  const direct = NO_PROXY_SETTINGS;
  const proxied = P(null, 'http://proxy.corp:3128', null);
  const t = 'https://staging.example.com/v1';
  test.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', direct, 'tls-untrusted'],
    ['SELF_SIGNED_CERT_IN_CHAIN', direct, 'tls-untrusted'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', proxied, 'tls-untrusted'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', direct, 'tls-untrusted'],
    ['CERT_HAS_EXPIRED', direct, 'tls-expired'],
    ['CERT_NOT_YET_VALID', direct, 'tls-expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', direct, 'tls-name'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', direct, 'tls-handshake'],
    ['EPROTO', direct, 'tls-handshake'],
    ['ECONNREFUSED', proxied, 'proxy'],
    ['ENOTFOUND', proxied, 'proxy'],
    ['UND_ERR_CONNECT_TIMEOUT', proxied, 'proxy'],
    ['PSC_PROXY_REFUSED', proxied, 'proxy'],
    ['ECONNREFUSED', direct, null],
    ['UND_ERR_HEADERS_TIMEOUT', proxied, null],
    ['ECONNRESET', proxied, null],
  ] as const)('%s (%#) → %s', (code, proxy, kind) => {
    expect(classifyReachFailure(code, t, proxy)?.kind ?? null).toBe(kind);
  });
});

describe('decodeBody', () => {
  const json = Buffer.from('{"code":"rate_limited","message":"slow down","status":429}');
  test.each([
    ['gzip', gzipSync(json)],
    ['x-gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['deflate', deflateRawSync(json)],
    ['br', brotliCompressSync(json)],
  ])('%s', async (coding, bytes) => {
    const out = await decodeBody(bytes, contentCodings(coding), 1 << 20);
    expect(out.bytes.toString()).toBe(json.toString());
    expect(out.truncated).toBe(false);
  });

  test('codings applied in turn are undone in reverse; identity is no coding', async () => {
    const codings = contentCodings(['gzip, identity', 'br']);
    expect(codings).toEqual(['gzip', 'br']);
    const out = await decodeBody(brotliCompressSync(gzipSync(json)), codings, 1 << 20);
    expect(out.bytes.equals(json)).toBe(true);
  });

  test.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ] as const)('a compression bomb (%s) costs at most the cap', async (coding, compress) => {
    const bomb = compress(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const out = await decodeBody(bomb, [coding], 64 * 1024);
    expect(out.truncated).toBe(true);
    expect(out.bytes.length).toBe(64 * 1024);
    expect(out.bytes.every((b) => b === 0x20)).toBe(true);
  });

  test('bytes that are not what the header says, or an unknown coding, fail naming the coding', async () => {
    await expect(decodeBody(json, ['gzip'], 1 << 20)).rejects.toThrow(/^gzip: /);
    await expect(decodeBody(json, ['zstd'], 1 << 20)).rejects.toThrow(/zstd/);
    // Only tokens of Content-Encoding name a coding: no other name reaches a decoder.
    for (const name of ['raw deflate', 'constructor', '__proto__', 'toString'])
      await expect(decodeBody(deflateRawSync(json), [name], 1 << 20)).rejects.toThrow(
        `unsupported content-coding "${name}"`,
      );
  });
});

describe('HttpClient on the wire', () => {
  let server: Server;
  let base: string;
  const seen: { url: string; ua?: string; ae?: string }[] = [];
  beforeAll(async () => {
    server = createServer((rq, rs) => {
      seen.push({ url: rq.url!, ua: rq.headers['user-agent'], ae: rq.headers['accept-encoding'] });
      const body = '{"code":"too_many","message":"wait","status":429}';
      if (rq.url!.endsWith('/pets/bad-gzip')) {
        rs.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(body);
        return;
      }
      rs.writeHead(429, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'retry-after': '1' });
      rs.end(gzipSync(body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const auth = { template: 'Bearer {key}', key: new ApiKey('psk_transport_test', 'free'), keyPlan: 'free' as const };

  test('a gzip-ed 429 is decoded and judged as JSON, and the coding is recorded', async () => {
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send(req.listPets(auth));
    await client.close();
    expect(ex.response?.status).toBe(429);
    expect(ex.response?.contentEncoding).toBe('gzip');
    expect(ex.response?.jsonError).toBeNull();
    expect(ex.response?.bodyText).toMatch(/"status":429/);
    expect(ex.response?.headers['content-encoding']).toBe('gzip');
  });

  test('a body that does not decode as its Content-Encoding says is a JSON error, not an exception', async () => {
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send({ operation: 'getPet', method: 'GET', path: '/pets/bad-gzip', auth });
    await client.close();
    expect(ex.error).toBeNull();
    expect(ex.response?.jsonError).toMatch(/does not decode as its Content-Encoding says \(gzip: /);
    expect(ex.response?.contentEncoding).toBeUndefined();
  });

  test('User-Agent and Accept-Encoding go on the wire and into the record; the path prefix is kept', async () => {
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send(req.listPets(auth, '?limit=5'));
    await client.close();
    expect(seen.at(-1)).toEqual({
      url: '/api/v1/pets?limit=5',
      ua: `petstore-conformance/${toolVersion()}`,
      ae: 'gzip',
    });
    expect(ex.request.url).toBe(`${base.replace(/\/$/, '')}/pets?limit=5`);
    expect(ex.request.headers['user-agent']).toBe(`petstore-conformance/${toolVersion()}`);
    expect(toCurl(ex.request)).toMatch(/^curl -sS -i --compressed -X GET '.*\/api\/v1\/pets\?limit=5'/);
  });

  test('a request that sets its own User-Agent or Accept-Encoding keeps them; none is sent when configured so', async () => {
    const client = new HttpClient({
      baseUrl: base,
      transport: { ca: [], caFiles: [], insecure: false, proxy: NO_PROXY_SETTINGS, acceptEncoding: null },
    });
    await client.send({ ...req.listPets(auth), headers: { 'User-Agent': 'custom/1' } });
    expect(seen.at(-1)).toEqual({ url: '/api/v1/pets', ua: 'custom/1', ae: undefined });
    await client.send({ ...req.listPets(auth), headers: { 'accept-encoding': 'br' } });
    expect(seen.at(-1)?.ae).toBe('br');
    await client.close();
  });
});

describe('configuration of the transport', () => {
  const env = (extra: Record<string, string>): Env => ({ [keyVariable('free')]: 'psk_cfg', ...extra });
  const target = 'https://staging.example.com/api/v1';

  test('proxy variables: lower case first, a bare host:port is http, other schemes are refused naming the variable', () => {
    const c = loadConfig({ target }, env({ https_proxy: 'proxy.corp:3128', HTTPS_PROXY: 'http://other:1' }));
    expect(c.transport.proxy.https).toEqual({ variable: 'https_proxy', url: 'http://proxy.corp:3128' });
    expect(() => loadConfig({ target }, env({ HTTP_PROXY: 'socks5://p:1080' }))).toThrow(
      /HTTP_PROXY: only http:\/\/ and https:\/\/ proxies/,
    );
    // Set but empty is unset (CI blanks variables that way).
    expect(loadConfig({ target }, env({ HTTPS_PROXY: ' ' })).transport.proxy.https).toBeNull();
  });

  test('--insecure, PETSTORE_INSECURE and PETSTORE_ACCEPT_ENCODING', () => {
    expect(loadConfig({ target }, env({})).transport).toMatchObject({ insecure: false, acceptEncoding: 'gzip' });
    expect(loadConfig({ target, insecure: true }, env({})).transport.insecure).toBe(true);
    expect(loadConfig({ target }, env({ PETSTORE_INSECURE: '1' })).transport.insecure).toBe(true);
    expect(loadConfig({ target }, env({ PETSTORE_ACCEPT_ENCODING: 'none' })).transport.acceptEncoding).toBeNull();
  });

  test('a --ca that is missing is a configuration error naming the flag', () => {
    expect(() => loadConfig({ target, ca: 'no/such/ca.pem' }, env({}))).toThrow(/--ca: cannot read no\/such\/ca\.pem/);
  });

  test('the suite workers get the same transport, across the structured clone of vitest’s provide', () => {
    const c = loadConfig(
      { target, insecure: true },
      env({ HTTP_PROXY: 'http://p:1', no_proxy: 'internal', PETSTORE_ACCEPT_ENCODING: 'none' }),
    );
    const provided = structuredClone(
      toWorkerConfig({
        target,
        keys: c.keys,
        functionalKey: functionalKey(c)!,
        seed: 1,
        runs: 1,
        strict: false,
        windowSeconds: 60,
        recordExchanges: false,
        transport: c.transport,
      }),
    );
    const worker = workerSettings(provided).transport!;
    expect(worker).toEqual(c.transport);
    expect(worker.insecure).toBe(true);
    expect(worker.acceptEncoding).toBeNull();
    expect(proxyFor(target, worker.proxy)?.url).toBe('http://p:1');
    expect(proxyFor('https://internal/v1', worker.proxy)).toBeNull();
  });
});

describe('load (autocannon) and proxies or TLS', () => {
  const env = (extra: Record<string, string>): Env => ({ [keyVariable('pro')]: 'psk_load', ...extra });

  test('a proxy that would apply is refused naming its variable; NO_PROXY lets the run go direct', () => {
    const proxied = loadConfig({ target: 'http://10.0.0.5:8080/v1' }, env({ HTTP_PROXY: 'http://proxy.corp:3128' }));
    expect(() => autocannonTransportWarnings(proxied)).toThrow(/HTTP_PROXY .*autocannon cannot use a proxy/);
    const bypassed = loadConfig(
      { target: 'http://10.0.0.5:8080/v1' },
      env({ HTTP_PROXY: 'http://proxy.corp:3128', NO_PROXY: '10.0.0.5' }),
    );
    expect(autocannonTransportWarnings(bypassed)).toEqual([]);
  });

  test('an https target gets a warning that certificates are not verified', () => {
    const c = loadConfig({ target: 'https://staging.example.com/v1' }, env({}));
    expect(autocannonTransportWarnings(c).join()).toMatch(/autocannon does not verify TLS certificates/);
  });

  test('the load command exits 2 before sending anything', async () => {
    let err = '';
    const code = await loadCommand(['--target', 'http://127.0.0.1:9/v1'], {
      env: env({ https_proxy: 'http://proxy.corp:3128', http_proxy: 'http://proxy.corp:3128' }),
      stderr: {
        isTTY: false,
        write: (t: string) => {
          err += t;
        },
      } as never,
      stdout: { write: () => true },
    });
    expect(code).toBe(2);
    expect(err).toMatch(
      /^petstore-conformance: load: http_proxy sends requests to 127\.0\.0\.1:9 through the proxy.*\[PSC_CONFIG\]$/m,
    );
  });
});
