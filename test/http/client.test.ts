// The HTTP layer: exact bytes out, int64 ids round-trip from a body into the next URL, no redirects followed, curl.
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { HttpClient, requestTarget } from '../../http/client.js';
import { toCurl } from '../../http/curl.js';
import { ApiKey, changedKey, scrub } from '../../http/redact.js';
import { NEAR_MISSES } from '../../generators/auth.js';
import { returnedPet, usableId } from '../../runner/pets.js';
import * as req from '../../runner/requests.js';

const BIG = '9007199254740993'; // 2^53 + 1: JSON.parse would read 9007199254740992
let server: Server;
let base: string;
const seen: {
  method: string;
  url: string;
  auth: string | undefined;
  lines: string[] | undefined;
  type?: string;
  body: string;
}[] = [];

beforeAll(async () => {
  server = createServer((rq, rs) => {
    let body = '';
    rq.on('data', (c) => (body += c));
    rq.on('end', () => {
      const type = rq.headers['content-type'];
      const lines = rq.headersDistinct.authorization;
      seen.push({
        method: rq.method!,
        url: rq.url!,
        auth: rq.headers.authorization,
        lines,
        body,
        ...(type && { type }),
      });
      if (rq.url === '/v1/redirect') {
        rs.writeHead(302, { location: 'http://127.0.0.2:1/elsewhere' }).end();
        return;
      }
      rs.writeHead(rq.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      rs.end(`{"id":${BIG},"name":"Rex","categoryId":${BIG}}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('HttpClient', () => {
  const key = new ApiKey('psk_test_secret_value', 'free');
  const auth = { template: 'Bearer {key}', key, keyPlan: 'free' as const };

  test('an id beyond 2^53 round-trips from a body into the next request URL exactly', async () => {
    const client = new HttpClient({ baseUrl: base });
    const created = await client.send(req.createPet(auth, '{"name":"Rex","categoryId":1}'));
    const id = usableId(returnedPet(created)?.id ?? null);
    expect(id).toBe(BIG);
    await client.send(req.getPet(auth, id!));
    expect(seen.at(-1)!.url).toBe(`/v1/pets/${BIG}`);
    await client.close();
  });

  test('sends the key on the wire but records only its placeholder', async () => {
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send(req.listPets(auth, '?limit=5'));
    expect(seen.at(-1)!.auth).toBe('Bearer psk_test_secret_value');
    expect(ex.request.headers.authorization).toBe('Bearer $PETSTORE_API_KEY_FREE');
    expect(JSON.stringify(ex)).not.toContain('psk_test_secret_value');
    await client.close();
  });

  test('never follows a redirect', async () => {
    const client = new HttpClient({ baseUrl: base });
    const before = seen.length;
    const ex = await client.send({ operation: null, method: 'GET', path: '/redirect', auth });
    expect(ex.response?.status).toBe(302);
    expect(seen.length).toBe(before + 1);
    await client.close();
  });

  test('a raw target is sent as given (no dot segment resolved), recorded, and kept by curl', async () => {
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send({ operation: null, method: 'GET', path: '/./pets', rawTarget: '/v1/./pets', auth });
    expect(seen.at(-1)!.url).toBe('/v1/./pets');
    expect(ex.request.url).toBe(`${base}/./pets`);
    expect(ex.request.rawTarget).toBe('/v1/./pets');
    expect(toCurl(ex.request)).toMatch(/--path-as-is .*\/v1\/\.\/pets/);
    // Without it, the URL rules resolve the dot segment, as any client would.
    await client.send({ operation: null, method: 'GET', path: '/./pets', auth });
    expect(seen.at(-1)!.url).toBe('/v1/pets');
    await client.close();
  });

  test('an empty Content-Type sends a body with none', async () => {
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send({ ...req.createPet(auth, '{}'), headers: { 'content-type': '' } });
    expect(ex.request.headers['content-type']).toBeUndefined();
    expect(seen.at(-1)).toMatchObject({ body: '{}' });
    expect(seen.at(-1)!.type).toBeUndefined();
    await client.close();
  });

  test('a refused connection is data on the exchange, not an exception', async () => {
    const client = new HttpClient({ baseUrl: 'http://127.0.0.1:1/v1', connectTimeoutMs: 500 });
    const ex = await client.send(req.listPets(auth));
    expect(ex.response).toBeNull();
    expect(ex.error?.code).toBe('ECONNREFUSED');
    await client.close();
  });
});

describe('requestTarget', () => {
  // The target undici is given must be what `new URL` makes of base + path, whether or not the parser is skipped.
  const viaUrl = (b: string, path: string) => {
    const u = new URL(b + path);
    return u.search ? `${u.pathname}${u.search}` : u.pathname;
  };
  const piece = fc.constantFrom(
    ...'aZ09-._~!$&()*+,;=:@/?%#\\ \'"<>^`{}|[]\t\n\u00e9\u0000'.split(''),
    ...['%2e', '%2E', '..', '/./', '/../', '%41', '%zz', '?', '//'],
  );

  test('is what the URL parser makes of the path, parsed or not, under a prefix or none', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          ['http://127.0.0.1:8080/v1', '/v1'],
          ['https://h.example/api/v1', '/api/v1'],
          ['http://h:1', ''],
        ),
        fc.array(piece, { maxLength: 12 }).map((a) => `/${a.join('')}`),
        ([b, prefix], path) => {
          expect(requestTarget(b, prefix, path)).toBe(viaUrl(b, path));
        },
      ),
      { numRuns: 5000 },
    );
  });

  test.each([
    ['a plain path with a query', '/pets?limit=5&x=%20'],
    ['a dot segment', '/pets/../pets'],
    ['an encoded dot segment', '/pets/%2E%2e?x'],
    ['a lone question mark', '/pets?'],
    ['a space, a quote and a non-ASCII letter', "/pets/a b'é"],
  ])('%s', (_why, path) => {
    expect(requestTarget(base, '/v1', path)).toBe(viaUrl(base, path));
  });
});

describe('toCurl', () => {
  test('renders a runnable command whose key comes from the environment and whose body bytes are exact', async () => {
    const client = new HttpClient({ baseUrl: base });
    const body = `{"name":"it's \u0001 🐶","categoryId":${BIG}}`;
    const ex = await client.send(
      req.createPet({ template: 'Bearer {key}', key: new ApiKey('psk_x_secret', 'pro'), keyPlan: 'pro' }, body),
    );
    await client.close();
    const curl = toCurl(ex.request);
    expect(curl).toContain('"authorization: Bearer $PETSTORE_API_KEY_PRO"');
    expect(curl).not.toContain('psk_x_secret');
    // Run it through bash with the key in the environment: the server must get the same bytes.
    const before = seen.length;
    // Asynchronously: the server answering curl lives in this process.
    await promisify(execFile)('bash', ['-c', curl.replace(/^curl /, 'curl -o /dev/null ')], {
      env: { ...process.env, PETSTORE_API_KEY_PRO: 'psk_from_env' },
      timeout: 10_000,
    });
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)!.body).toBe(body);
    expect(seen.at(-1)!.auth).toBe('Bearer psk_from_env');
  });
});

describe('near misses of the key and a repeated Authorization', () => {
  test('a near miss is sent, recorded as a shell expression of the variable, scrubbed, and replayed by curl', async () => {
    const key = new ApiKey('psk_near_secret', 'pro');
    const upper = changedKey(key, NEAR_MISSES.case)!;
    expect(changedKey(key, NEAR_MISSES.case)).toBe(upper);
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send(req.listPets({ template: 'Bearer {key}', key: upper, keyPlan: 'invalid' }));
    await client.close();
    expect(seen.at(-1)!.auth).toBe('Bearer PSK_NEAR_SECRET');
    expect(ex.request.headers.authorization).toBe(`Bearer \${PETSTORE_API_KEY_PRO~~}`);
    expect(JSON.stringify(ex).toLowerCase()).not.toContain('psk_near_secret');
    // A target that echoes the near miss back is scrubbed as it would be for the key.
    expect(scrub('got PSK_NEAR_SECRET')).toBe(`got \${PETSTORE_API_KEY_PRO~~}`);
    const curl = toCurl(ex.request);
    await promisify(execFile)('bash', ['-c', curl.replace(/^curl /, 'curl -o /dev/null ')], {
      env: { ...process.env, PETSTORE_API_KEY_PRO: 'psk_from_env' },
      timeout: 10_000,
    });
    expect(seen.at(-1)!.auth).toBe('Bearer PSK_FROM_ENV');
  });

  test('a second Authorization is sent as a second line, recorded, and kept by curl', async () => {
    const key = new ApiKey('psk_twice_secret', 'free');
    const client = new HttpClient({ baseUrl: base });
    const ex = await client.send(
      req.listPets({ template: 'Bearer {key}', key, keyPlan: 'invalid', repeated: 'Bearer other' }),
    );
    await client.close();
    expect(seen.at(-1)!.lines).toEqual(['Bearer psk_twice_secret', 'Bearer other']);
    expect(ex.request.headers.authorization).toBe('Bearer $PETSTORE_API_KEY_FREE');
    expect(ex.request.laterLines).toEqual([['authorization', 'Bearer other']]);
    const curl = toCurl(ex.request);
    await promisify(execFile)('bash', ['-c', curl.replace(/^curl /, 'curl -o /dev/null ')], {
      env: { ...process.env, PETSTORE_API_KEY_FREE: 'psk_from_env' },
      timeout: 10_000,
    });
    expect(seen.at(-1)!.lines).toEqual(['Bearer psk_from_env', 'Bearer other']);
  });
});

describe("the run's stop", () => {
  test('a closed client no longer listens to it: a run makes a client per suite on one signal', async () => {
    const stop = new AbortController();
    for (let i = 0; i < 20; i++) {
      const client = new HttpClient({ baseUrl: 'http://127.0.0.1:9/v1', stop: stop.signal });
      expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
      await client.close();
    }
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });
});
