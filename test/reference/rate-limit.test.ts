import { describe, expect, test } from 'vitest';
import { generateKeys, startReferenceServer, type LimiterAlgorithm } from '../../reference/server.js';
import { validateSchema } from '../../spec/validators.js';
import { plain } from '../../http/lossless.js';
import { call, ManualClock, type Reply } from './support.js';

const ALGORITHMS: LimiterAlgorithm[] = ['fixed-window', 'fixed-window-aligned', 'sliding-window', 'token-bucket'];
const WINDOW = 6;

function expect429(r: Reply): number {
  expect(r.status).toBe(429);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(validateSchema('Error', plain(r.json))).toEqual([]);
  expect(r.json.code).toMatch(/^(rate_limited|banned)$/);
  expect(String(r.json.status)).toBe('429');
  expect(r.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(r.headers[h]).toMatch(/^\d+$/);
  expect(r.headers['x-ratelimit-remaining']).toBe('0');
  return Number(r.headers['retry-after']);
}

describe.concurrent('rate limiting over HTTP', () => {
  for (const algorithm of ALGORITHMS) {
    test(`${algorithm}: burst of Limit, 429, Retry-After honoured, keys independent`, async () => {
      // The server's time moves only when the test moves it: the burst falls in one window (and refills no token)
      // however slow the machine is between two requests.
      const clock = new ManualClock();
      const server = await startReferenceServer(
        {
          algorithm,
          windowSeconds: WINDOW,
          keys: generateKeys({ enterprise: { requestsPerMinute: 5, requestsPerDay: 1000 } }),
        },
        clock,
      );
      try {
        for (let i = 0; i < 5; i++) {
          const r = await call(server, 'GET', '/pets');
          expect(r.status).toBe(200);
          expect(r.headers['x-ratelimit-limit']).toBe('5');
        }
        const wait = expect429(await call(server, 'GET', '/pets'));
        // At most the window, or a little more for the sliding counter, which still weighs the burst in the next one.
        expect(wait).toBeGreaterThanOrEqual(1);
        expect(wait).toBeLessThanOrEqual(2 * WINDOW);
        // Another key, and the anonymous bucket of 401s, are untouched.
        expect((await call(server, 'GET', '/pets', { plan: 'free' })).status).toBe(200);
        expect((await call(server, 'GET', '/pets', { auth: null })).status).toBe(401);
        clock.advance(wait * 1000);
        const after = await call(server, 'GET', '/pets');
        expect(after.status).toBe(200);
      } finally {
        await server.close();
      }
    });
  }

  test('rejected requests do not consume quota (fixed window)', async () => {
    const clock = new ManualClock();
    const server = await startReferenceServer(
      { windowSeconds: 1, keys: generateKeys({ enterprise: { requestsPerMinute: 4, requestsPerDay: 1000 } }) },
      clock,
    );
    try {
      for (let i = 0; i < 4; i++) expect((await call(server, 'GET', '/pets')).status).toBe(200);
      let wait = 0;
      for (let i = 0; i < 3; i++) wait = expect429(await call(server, 'GET', '/pets'));
      clock.advance(wait * 1000);
      const first = await call(server, 'GET', '/pets');
      expect(first.status).toBe(200);
      expect(first.headers['x-ratelimit-remaining']).toBe('3');
    } finally {
      await server.close();
    }
  });

  test('day limit with tiny Enterprise limits binds and describes the headers', async () => {
    const clock = new ManualClock();
    const server = await startReferenceServer(
      {
        windowSeconds: 1,
        dayWindowSeconds: 3,
        keys: generateKeys({ enterprise: { requestsPerMinute: 3, requestsPerDay: 5 } }),
      },
      clock,
    );
    try {
      for (let i = 0; i < 3; i++) expect((await call(server, 'GET', '/pets')).status).toBe(200);
      const minute = await call(server, 'GET', '/pets');
      clock.advance(expect429(minute) * 1000);
      expect((await call(server, 'GET', '/pets')).status).toBe(200);
      const last = await call(server, 'GET', '/pets');
      expect(last.status).toBe(200);
      expect(last.headers['x-ratelimit-limit']).toBe('5');
      const day = await call(server, 'GET', '/pets');
      const wait = expect429(day);
      expect(day.headers['x-ratelimit-limit']).toBe('5');
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(3);
      expect(Number(day.headers['x-ratelimit-reset']) - clock.now() / 1000).toBeLessThanOrEqual(3 + 1);
      clock.advance(wait * 1000);
      expect((await call(server, 'GET', '/pets')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('a key that keeps sending while limited is banned for banSeconds', async () => {
    const clock = new ManualClock();
    const server = await startReferenceServer(
      {
        windowSeconds: 1,
        banAfter: 2,
        banSeconds: 2,
        keys: generateKeys({ enterprise: { requestsPerMinute: 2, requestsPerDay: 1000 } }),
      },
      clock,
    );
    try {
      for (let i = 0; i < 2; i++) expect((await call(server, 'GET', '/pets')).status).toBe(200);
      const first = await call(server, 'GET', '/pets');
      expect(first.json.code).toBe('rate_limited');
      expect429(first);
      for (let i = 0; i < 2; i++) expect((await call(server, 'GET', '/pets')).json.code).toBe('rate_limited');
      const ban = await call(server, 'GET', '/pets');
      expect(ban.json.code).toBe('banned');
      expect(expect429(ban)).toBe(2);
      clock.advance(1100); // the minute window has reset, the ban has not
      const still = await call(server, 'GET', '/pets');
      expect(still.json.code).toBe('banned');
      expect(expect429(still)).toBe(1);
      clock.advance(1000);
      expect((await call(server, 'GET', '/pets')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
