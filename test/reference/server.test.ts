import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateKeys, startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { validateSchema } from '../../spec/validators.js';
import { plain } from '../../http/lossless.js';
import { call, createBody, keyOf, text, type Reply, type Json } from './support.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer();
});
afterAll(() => server.close());

const JSON_TYPE = /^application\/json; charset=utf-8$/;

function expectRateHeaders(r: Reply, limit: number): void {
  expect(r.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(r.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(Number(r.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(limit);
  const reset = r.headers['x-ratelimit-reset'];
  expect(reset).toMatch(/^\d+$/);
  const now = Date.now() / 1000;
  expect(Number(reset)).toBeGreaterThanOrEqual(Math.floor(now) - 1);
  expect(Number(reset)).toBeLessThanOrEqual(now + 60 + 1);
}

function expectError(r: Reply, status: number): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(JSON_TYPE);
  expect(validateSchema('Error', plain(r.json))).toEqual([]);
  expect(text(r.json.status)).toBe(String(status));
}

async function create(name: string, categoryId: string, status?: string): Promise<Reply> {
  const r = await call(server, 'POST', '/pets', { body: createBody(name, categoryId, status) });
  expect(r.status, r.text).toBe(201);
  return r;
}

describe('server', () => {
  test('options and keys', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.keys.map((k) => k.plan)).toEqual(['free', 'pro', 'business', 'enterprise']);
    for (const k of server.keys) expect(k.key).toMatch(new RegExp(`^psk_${k.plan}_[0-9a-f]{32}$`));
    expect(server.keys.find((k) => k.plan === 'pro')?.limits).toEqual({
      requestsPerMinute: 300,
      requestsPerDay: 10000,
    });
    expect(generateKeys({ enterprise: { requestsPerMinute: 3, requestsPerDay: 5 } })[3]?.limits.requestsPerDay).toBe(5);
    expect(server.options.algorithm).toBe('fixed-window');
    expect(server.options.banSeconds).toBe(120);
  });

  test('unknown fault ids and bad options are refused', async () => {
    await expect(startReferenceServer({ faults: ['no-such-fault'] })).rejects.toThrow(/unknown fault/);
    await expect(startReferenceServer({ windowSeconds: 0 })).rejects.toThrow(/windowSeconds/);
  });
});

describe('authentication', () => {
  const bad: Array<[string, string | null, boolean]> = [
    ['missing', null, false],
    ['empty', '', false],
    ['wrong scheme', 'Basic KEY', false],
    ['no scheme', 'KEY', false],
    ['empty token', 'Bearer ', false],
    ['unknown key', 'Bearer psk_free_00000000000000000000000000000000', true],
    // Only HTTP's optional whitespace is trimmed: a no-break space after the key is part of the token.
    ['the key and a trailing no-break space', 'Bearer KEY\u00a0', true],
  ];
  for (const [name, auth, tokenGiven] of bad) {
    test(`401 for ${name}`, async () => {
      const header = auth?.replace('KEY', keyOf(server, 'free')) ?? null;
      for (const [method, path] of [
        ['GET', '/pets'],
        ['POST', '/pets'],
        ['GET', '/pets/1'],
      ] as const) {
        const r = await call(server, method, path, {
          auth: header,
          body: method === 'POST' ? createBody('x', 1) : undefined,
        });
        expectError(r, 401);
        expect(r.headers['www-authenticate']).toBe(
          tokenGiven ? 'Bearer realm="petstore", error="invalid_token"' : 'Bearer realm="petstore"',
        );
        expectRateHeaders(r, 60); // the anonymous bucket reports the Free plan
      }
    });
  }

  test('near misses of the key get 401: another case, and the key in the first of two Authorization headers', async () => {
    const key = keyOf(server, 'free');
    const upper = await call(server, 'GET', '/pets', { auth: `Bearer ${key.toUpperCase()}` });
    expectError(upper, 401);
    // Two header lines are one field combined (RFC 9110 §5.3), "Bearer KEY, Bearer other": no key.
    const res = await request(`${server.url}/pets`, {
      headers: { authorization: [`Bearer ${key}`, 'Bearer other'] },
    });
    await res.body.dump();
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="petstore", error="invalid_token"');
  });

  test('the scheme is case-insensitive', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'beArer']) {
      const r = await call(server, 'GET', '/pets', { auth: `${scheme} ${keyOf(server)}` });
      expect(r.status, scheme).toBe(200);
    }
  });

  test('each plan key reports its own minute limit', async () => {
    for (const k of server.keys) {
      const r = await call(server, 'GET', '/pets?limit=1', { plan: k.plan });
      expect(r.status).toBe(200);
      expectRateHeaders(r, k.limits.requestsPerMinute);
    }
  });
});

describe('createPet and getPet', () => {
  test('int64 extremes round-trip exactly', async () => {
    for (const cat of ['9223372036854775807', '-9223372036854775808', '9007199254740993', '0']) {
      const r = await create('edge', cat, 'pending');
      expect(r.headers['content-type']).toMatch(JSON_TYPE);
      expect(r.text).toContain(`"categoryId":${cat}`);
      expect(validateSchema('Pet', plain(r.json))).toEqual([]);
      const got = await call(server, 'GET', `/pets/${text(r.json.id)}`);
      expect(got.status).toBe(200);
      expect(got.text).toBe(r.text);
      expect(got.headers.sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    }
  });

  test('names come back code unit for code unit', async () => {
    const names = [
      '',
      ' ',
      '  padded  ',
      'e\u0301',
      '\u00e9',
      '🐶🏳️‍🌈',
      '\u202Eevil',
      '漢字',
      'tab\tnew\nline',
      '\u0000nul',
      '\ud800lone',
      '"quoted" \\ slash',
    ];
    for (const name of names) {
      const r = await create(name, '1', 'sold');
      expect(r.json.name).toBe(name);
      const got = await call(server, 'GET', `/pets/${text(r.json.id)}`);
      expect(got.json.name).toBe(name);
    }
  });

  test('status omitted is stored as available; 1.0 counts as the integer 1; id and extras ignored', async () => {
    const r = await call(server, 'POST', '/pets', { body: '{"name":"a","categoryId":1.0,"id":424242,"extra":[1]}' });
    expect(r.status).toBe(201);
    expect(r.text).toMatch(/"categoryId":1,/);
    expect(r.json.status).toBe('available');
    expect(text(r.json.id)).not.toBe('424242');
  });

  test('any content type is accepted when the body is JSON', async () => {
    const r = await call(server, 'POST', '/pets', {
      body: createBody('plain', 2),
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(201);
  });

  test('ids are sequential and unique under concurrency', async () => {
    const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => create(`c${i}`, String(i))));
    const ids = rs.map((r) => BigInt(text(r.json.id)));
    expect(new Set(ids).size).toBe(10);
    const sorted = [...ids].sort((a, b) => (a < b ? -1 : 1));
    expect(sorted.at(-1)! - sorted[0]!).toBe(9n);
  });

  test('invalid bodies get 400 and create nothing', async () => {
    const marker = `marker-${Date.now()}`;
    const m = JSON.stringify(marker);
    const bodies = [
      `{"categoryId":1}`,
      `{"name":${m}}`,
      `{"name":${m},"categoryId":"42"}`,
      `{"name":${m},"categoryId":1.5}`,
      `{"name":${m},"categoryId":9223372036854775808}`,
      `{"name":${m},"categoryId":-9223372036854775809}`,
      `{"name":${m},"categoryId":null}`,
      `{"name":null,"categoryId":1}`,
      `{"name":42,"categoryId":1}`,
      `{"name":${m},"categoryId":1,"status":"bogus"}`,
      `{"name":${m},"categoryId":1,"status":null}`,
      `{"name":${m},"categoryId":1,"status":"Available"}`,
      `[{"name":${m},"categoryId":1}]`,
      `"just a string"`,
      `null`,
      `{"name":${m},"categoryId":1`,
      `{"name":${m},"categoryId":1}trailing`,
      ``,
    ];
    for (const body of bodies) {
      const r = await call(server, 'POST', '/pets', { body });
      expectError(r, 400);
      expectRateHeaders(r, 1_000_000);
    }
    const invalidUtf8 = Buffer.concat([
      Buffer.from(`{"name":"`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`","categoryId":1}`),
    ]);
    expectError(await call(server, 'POST', '/pets', { body: invalidUtf8 }), 400);
    const huge = `{"name":"${'x'.repeat(1024 * 1024)}","categoryId":1}`;
    expectError(await call(server, 'POST', '/pets', { body: huge }), 400);
    for (const status of ['available', 'pending', 'sold']) {
      const list = await call(server, 'GET', `/pets?status=${status}&limit=100`);
      expect(list.json.some((p: Json) => p.name === marker)).toBe(false);
    }
  });

  test('getPet: 404 for an absent int64, 400 for what is not an int64', async () => {
    for (const id of ['999999999', '0', '-1', '9223372036854775807', '-9223372036854775808']) {
      const r = await call(server, 'GET', `/pets/${id}`);
      expectError(r, 404);
      expectRateHeaders(r, 1_000_000);
    }
    for (const id of ['abc', '1.5', '9223372036854775808', '-9223372036854775809', '%FF', '1e3', ' 1']) {
      expectError(await call(server, 'GET', `/pets/${encodeURI(id).replace('%25FF', '%FF')}`), 400);
    }
  });

  test('unknown routes and methods get 404 Error JSON', async () => {
    for (const [method, path] of [
      ['DELETE', '/pets'],
      ['PUT', '/pets/1'],
      ['GET', '/pets/1/x'],
      ['GET', '/store'],
    ] as const) {
      const r = await call(server, method, path);
      expectError(r, 404);
      expectRateHeaders(r, 1_000_000);
    }
  });
});

describe('listPets', () => {
  let own: ReferenceServer;
  beforeAll(async () => {
    own = await startReferenceServer();
    const statuses = ['available', 'pending', 'sold'];
    for (let i = 0; i < 30; i++) {
      const r = await call(own, 'POST', '/pets', { body: createBody(`pet${i}`, i, statuses[i % 3]) });
      expect(r.status).toBe(201);
    }
  });
  afterAll(() => own.close());

  test('default page of 20, oldest first', async () => {
    const r = await call(own, 'GET', '/pets');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(JSON_TYPE);
    expect(validateSchema('Pets', plain(r.json))).toEqual([]);
    expect(r.json.map((p: Json) => p.name)).toEqual(Array.from({ length: 20 }, (_, i) => `pet${i}`));
  });

  test('limit 1, 5, 100 and the status filter', async () => {
    expect((await call(own, 'GET', '/pets?limit=1')).json).toHaveLength(1);
    expect((await call(own, 'GET', '/pets?limit=5')).json).toHaveLength(5);
    expect((await call(own, 'GET', '/pets?limit=100')).json).toHaveLength(30);
    const sold = await call(own, 'GET', '/pets?status=sold&limit=100&unknown=1');
    expect(sold.json).toHaveLength(10);
    expect(sold.json.every((p: Json) => p.status === 'sold')).toBe(true);
    expect((await call(own, 'GET', '/pets?status=pending&limit=3')).json.map((p: Json) => p.name)).toEqual([
      'pet1',
      'pet4',
      'pet7',
    ]);
  });

  test('invalid queries get 400', async () => {
    for (const q of [
      'limit=0',
      'limit=101',
      'limit=-1',
      'limit=1.5',
      'limit=abc',
      'limit=',
      'limit=1&limit=2',
      'status=bogus',
      'status=',
      'status=sold&status=pending',
    ]) {
      const r = await call(own, 'GET', `/pets?${q}`);
      expectError(r, 400);
      expectRateHeaders(r, 1_000_000);
    }
  });
});

describe('existing pets and where ids start', () => {
  test('seeded pets are listed and retrievable with ids from idStart; created pets take the next ids', async () => {
    const s = await startReferenceServer({ seedPets: 5, idStart: '9007199254740993' });
    try {
      const listed = await call(s, 'GET', '/pets');
      expect(listed.json.map((p: { id: unknown }) => text(p.id))).toEqual([
        '9007199254740993',
        '9007199254740994',
        '9007199254740995',
        '9007199254740996',
        '9007199254740997',
      ]);
      expect(new Set(listed.json.map((p: { status: string }) => p.status))).toEqual(
        new Set(['available', 'pending', 'sold']),
      );
      const got = await call(s, 'GET', '/pets/9007199254740995');
      expect(got.status).toBe(200);
      expect(text(got.json.id)).toBe('9007199254740995');
      const made = await call(s, 'POST', '/pets', { body: createBody('new', 1) });
      expect(text(made.json.id)).toBe('9007199254740998');
      expect(s.options).toMatchObject({ seedPets: 5, idStart: '9007199254740993' });
    } finally {
      await s.close();
    }
  });

  test('idStart takes any int64 with room after it, as a bigint, a safe number or digits', async () => {
    const s = await startReferenceServer({ idStart: -(2n ** 63n) });
    try {
      const made = await call(s, 'POST', '/pets', { body: createBody('low', 1) });
      expect(text(made.json.id)).toBe('-9223372036854775808');
    } finally {
      await s.close();
    }
    await expect(startReferenceServer({ idStart: '9223372036854775807' })).rejects.toThrow(/no room/);
    await expect(startReferenceServer({ idStart: '9223372036854775808' })).rejects.toThrow(/idStart must be an int64/);
    await expect(startReferenceServer({ idStart: 2 ** 60 })).rejects.toThrow(/idStart must be an int64/);
    await expect(startReferenceServer({ seedPets: -1 })).rejects.toThrow(/seedPets/);
  });
});
