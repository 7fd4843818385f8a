import { SUITES } from '../../config/config.js';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { allChecks, canFail } from '../../checks/registry.js';
import { INT64_MAX } from '../../http/lossless.js';
import { type FaultId, faultSeams, faults, selectFaults } from '../../reference/faults.js';
import { conformantSeams } from '../../reference/seams.js';
import {
  generateKeys,
  type ReferenceOptions,
  type ReferenceServer,
  startReferenceServer,
} from '../../reference/server.js';
import { call, createBody, keyOf, ManualClock, text, type Json } from './support.js';
import { request } from 'undici';
import { deeplyNested } from '../../generators/robustness.js';

/** The checks a fault may name: every check of the registry that can fail a run (violation or warning). */
const CHECK_IDS = allChecks.filter(canFail).map((c) => c.id);

describe('catalogue', () => {
  test('ids unique, each fault names a check that can fail, a suite, and one seam', () => {
    expect(faults.length).toBeGreaterThanOrEqual(45);
    expect(new Set(faults.map((f) => f.id)).size).toBe(faults.length);
    for (const f of faults) {
      expect(f.id).toMatch(/^[a-z0-9]+(-[a-z0-9A-Z]+)*$/);
      expect(f.description.length, f.id).toBeGreaterThan(10);
      expect(CHECK_IDS, f.id).toContain(f.catches);
      // A suite, or the preflight (the run's first request, which every run sends).
      expect([...SUITES, 'preflight'], f.id).toContain(f.suite);
      expect(Object.keys(conformantSeams), f.id).toContain(f.apply.seam);
    }
  });

  test('the handlers hold only conformant behaviour: no fault id appears in them', () => {
    const source = readFileSync(new URL('../../reference/handlers.ts', import.meta.url), 'utf8');
    for (const f of faults) expect(source, f.id).not.toContain(`'${f.id}'`);
  });

  test('unknown ids are refused', () => {
    expect(() => faultSeams(['create-200', 'nope'])).toThrow(/unknown fault id "nope"/);
    expect(faultSeams(['create-200']).createdStatus).toBe(200);
    expect(faultSeams([])).toEqual(conformantSeams);
  });

  test('faults apply in catalogue order, whatever order they are asked in, once each', () => {
    const ids = selectFaults(['list-wrapped', 'list-truncated-json', 'list-wrapped']).map((f) => f.id);
    expect(ids).toEqual(['list-truncated-json', 'list-wrapped']);
  });

  test('a fault that replaces a seam cannot be combined with another fault of that seam', () => {
    expect(() => faultSeams(['create-202', 'create-200'])).toThrow(
      /faults create-202, create-200 cannot be combined: create-202 replaces the "createdStatus" seam, which create-200 also changes/,
    );
    expect(() => faultSeams(['rl-off-by-one', 'rl-stricter'])).toThrow(/"minuteSlack" seam/);
    expect(() => faultSeams(['get-not-retrievable', 'get-odd-404', 'get-wrong-name'])).toThrow(
      /get-odd-404, get-wrong-name also change$/,
    );
  });

  test('faults of different seams, and wraps of one seam, combine', () => {
    const seams = faultSeams(['create-200', 'rl-off-by-one', 'create-name-nfc', 'create-name-trimmed']);
    expect(seams.createdStatus).toBe(200);
    expect(seams.minuteSlack).toBe(1);
  });
});

describe('combined faults', () => {
  test('wraps of one seam compose: names trimmed and normalised, the 401 a bodiless 403', async () => {
    const s = await startReferenceServer({
      faults: ['create-name-trimmed', 'create-name-nfc', 'auth-403', 'auth-401-no-body'],
    });
    try {
      expect((await call(s, 'POST', '/pets', { body: createBody(' e\u0301 ', 1) })).json.name).toBe('\u00e9');
      const denied = await call(s, 'GET', '/pets', { auth: null });
      expect([denied.status, denied.text]).toEqual([403, '']);
    } finally {
      await s.close();
    }
  });

  test('faults of different seams each show: a 200 for creates and Remaining above Limit', async () => {
    const s = await startReferenceServer({ faults: ['create-200', 'rl-remaining-above-limit'] });
    try {
      const r = await call(s, 'POST', '/pets', { body: createBody('x', 1) });
      expect(r.status).toBe(200);
      expect(Number(r.headers['x-ratelimit-remaining'])).toBeGreaterThan(Number(r.headers['x-ratelimit-limit']));
    } finally {
      await s.close();
    }
  });

  test('the server refuses faults that cannot be combined', async () => {
    await expect(startReferenceServer({ faults: ['get-absent-500', 'get-absent-200-null'] })).rejects.toThrow(
      /cannot be combined: get-absent-500 replaces the "notFound" seam/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Every fault changes behaviour: a probe that is false on the faultless server and true with the fault on.

/** A probe asks the server, whose time is `clock`: a window passes when the probe moves it (no sleep, no race). */
type Probe = (s: ReferenceServer, clock: ManualClock) => Promise<boolean>;
interface Case {
  readonly options?: ReferenceOptions;
  readonly probe: Probe;
}

const tight = (perMinute: number, perDay = 1000, more: ReferenceOptions = {}): ReferenceOptions => ({
  windowSeconds: 1,
  keys: generateKeys({ enterprise: { requestsPerMinute: perMinute, requestsPerDay: perDay } }),
  ...more,
});

const post = (s: ReferenceServer, body: string) => call(s, 'POST', '/pets', { body });
const get = (s: ReferenceServer, path: string) => call(s, 'GET', path);
const created = async (s: ReferenceServer, name = 'x', cat = '1', status?: string) =>
  post(s, createBody(name, cat, status));
async function seed(s: ReferenceServer, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await created(s, `p${i}`, String(i), ['available', 'pending', 'sold'][i % 3]);
}
async function admitted(s: ReferenceServer, max: number, plan: 'enterprise' | 'pro' = 'enterprise'): Promise<number> {
  for (let i = 0; i < max; i++) if ((await call(s, 'GET', '/pets', { plan })).status !== 200) return i;
  return max;
}
async function first429(s: ReferenceServer) {
  for (let i = 0; i < 20; i++) {
    const r = await get(s, '/pets');
    if (r.status !== 200) return r;
  }
  throw new Error('no 429 in 20 requests');
}
const invalidAccepted =
  (body: string): Probe =>
  async (s) =>
    (await post(s, body)).status < 300;

const cases: Record<FaultId, Case> = {
  'auth-any-token': { probe: async (s) => (await call(s, 'GET', '/pets', { auth: 'Bearer nope' })).status === 200 },
  'auth-wrong-scheme': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: `Basic ${keyOf(s)}` })).status === 200,
  },
  'auth-create-open': {
    probe: async (s) => (await call(s, 'POST', '/pets', { auth: null, body: createBody('x', 1) })).status === 201,
  },
  'auth-403': { probe: async (s) => (await call(s, 'GET', '/pets', { auth: null })).status === 403 },
  'auth-401-no-body': { probe: async (s) => (await call(s, 'GET', '/pets', { auth: null })).text === '' },
  'auth-bearer-case-sensitive': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: `bearer ${keyOf(s)}` })).status === 401,
  },
  'auth-no-www-authenticate': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: null })).headers['www-authenticate'] === undefined,
  },
  'error-status-mismatch': { probe: async (s) => text((await get(s, '/pets/42')).json.status) !== '404' },
  'error-text-plain': { probe: async (s) => (await post(s, '{}')).headers['content-type']!.startsWith('text/plain') },
  'success-text-html': { probe: async (s) => (await get(s, '/pets')).headers['content-type']!.startsWith('text/html') },
  'list-truncated-json': { probe: async (s) => (await get(s, '/pets')).json === undefined },
  'list-wrapped': { probe: async (s) => !Array.isArray((await get(s, '/pets')).json) },
  // A fresh server's store is empty: its first list is the one the fault answers with null.
  'list-empty-null': { probe: async (s) => (await get(s, '/pets')).json === null },
  'pet-missing-categoryId': { probe: async (s) => !('categoryId' in (await created(s)).json) },
  'pet-id-string': { probe: async (s) => typeof (await created(s)).json.id === 'string' },
  'ids-beyond-int64': { probe: async (s) => BigInt(text((await created(s)).json.id)) > INT64_MAX },
  'create-202': { probe: async (s) => (await created(s)).status === 202 },
  'list-limit-ignored': {
    probe: async (s) => {
      await seed(s, 3);
      return (await get(s, '/pets?limit=1')).json.length > 1;
    },
  },
  'list-default-50': {
    probe: async (s) => {
      await seed(s, 25);
      return (await get(s, '/pets')).json.length > 20;
    },
  },
  'list-filter-leak': {
    probe: async (s) => {
      await seed(s, 3);
      return (await get(s, '/pets?status=sold')).json.some((p: Json) => p.status !== 'sold');
    },
  },
  'list-limit-100-rejected': { probe: async (s) => (await get(s, '/pets?limit=100')).status !== 200 },
  'list-limit-1-rejected': { probe: async (s) => (await get(s, '/pets?limit=1')).status !== 200 },
  'list-invalid-limit-500': { probe: async (s) => (await get(s, '/pets?limit=abc')).status >= 500 },
  'create-200': { probe: async (s) => (await created(s)).status === 200 },
  'create-missing-field-accepted': { probe: invalidAccepted('{"name":"x"}') },
  'create-categoryid-string-accepted': { probe: invalidAccepted('{"name":"x","categoryId":"42"}') },
  'create-fractional-accepted': { probe: invalidAccepted('{"name":"x","categoryId":1.5}') },
  'create-coerce-boolean': { probe: invalidAccepted('{"name":"x","categoryId":true}') },
  'create-coerce-null': { probe: invalidAccepted('{"name":"x","categoryId":null}') },
  'create-coerce-array': { probe: invalidAccepted('{"name":"x","categoryId":[7]}') },
  'create-coerce-number-name': { probe: invalidAccepted('{"name":123,"categoryId":1}') },
  'create-invalid-status-accepted': { probe: invalidAccepted('{"name":"x","categoryId":1,"status":"bogus"}') },
  'create-400-still-created': {
    probe: async (s) => {
      expect((await post(s, '{"name":"marker","categoryId":"nope","status":"sold"}')).status).toBe(400);
      return (await get(s, '/pets?status=sold&limit=100')).json.some((p: Json) => p.name === 'marker');
    },
  },
  'create-big-categoryid-rejected': { probe: async (s) => (await created(s, 'x', '9007199254740993')).status === 400 },
  'create-int64-rounded': {
    probe: async (s) => text((await created(s, 'x', '9223372036854775807')).json.categoryId) !== '9223372036854775807',
  },
  'create-name-nfc': { probe: async (s) => (await created(s, 'e\u0301')).json.name !== 'e\u0301' },
  'create-name-emoji-stripped': { probe: async (s) => (await created(s, 'dog 🐶')).json.name !== 'dog 🐶' },
  'create-name-trimmed': { probe: async (s) => (await created(s, ' x ')).json.name !== ' x ' },
  'create-status-not-persisted': { probe: async (s) => (await created(s, 'x', '1', 'sold')).json.status !== 'sold' },
  'create-status-echo-only': {
    probe: async (s) => {
      const c = await created(s, 'x', '1', 'pending');
      expect(c.json.status).toBe('pending');
      return (await get(s, `/pets/${text(c.json.id)}`)).json.status !== 'pending';
    },
  },
  'create-malformed-500': { probe: async (s) => (await post(s, '{"name":')).status >= 500 },
  'create-client-id-honoured': {
    probe: async (s) => text((await post(s, '{"name":"x","categoryId":1,"id":777}')).json.id) === '777',
  },
  'create-duplicate-ids': {
    probe: async (s) => {
      const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => created(s, `c${i}`)));
      return new Set(rs.map((r) => text(r.json.id))).size < 10;
    },
  },
  'create-not-listed': {
    probe: async (s) => {
      const c = await created(s, 'fresh', '1', 'pending');
      return !(await get(s, '/pets?status=pending')).json.some((p: Json) => text(p.id) === text(c.json.id));
    },
  },
  'get-odd-404': { probe: async (s) => (await get(s, `/pets/${text((await created(s)).json.id)}`)).status === 404 },
  'slows-down': {
    // 30 answers: without the fault none is held back, with it the last by 29 lags of 8 ms (232 ms), in the server's
    // own time (how long a busy machine takes to answer is no part of it; latency-trend meets the real delay).
    probe: async (s, clock) => {
      for (let i = 0; i < 30; i++) await call(s, 'GET', '/pets?limit=1');
      return clock.held.length === 30 && clock.held.at(-1)! > 100;
    },
  },
  'list-reset-at-max': {
    probe: async (s) =>
      await call(s, 'GET', '/pets?limit=100').then(
        () => false,
        () => true,
      ),
  },
  'list-marks-sold': {
    probe: async (s) => {
      const id = text((await created(s, 'x', '1', 'pending')).json.id);
      await get(s, '/pets?status=pending');
      return (await get(s, `/pets/${id}`)).json.status === 'sold';
    },
  },
  'get-absent-500': { probe: async (s) => (await get(s, '/pets/42')).status >= 500 },
  'get-absent-200-null': { probe: async (s) => (await get(s, '/pets/42')).status === 200 },
  'get-invalid-id-500': { probe: async (s) => (await get(s, '/pets/abc')).status >= 500 },
  'get-not-retrievable': {
    probe: async (s) => (await get(s, `/pets/${text((await created(s)).json.id)}`)).status !== 200,
  },
  'get-wrong-name': {
    probe: async (s) => (await get(s, `/pets/${text((await created(s, 'Rex')).json.id)}`)).json.name !== 'Rex',
  },
  'rl-headers-missing': { probe: async (s) => (await get(s, '/pets')).headers['x-ratelimit-limit'] === undefined },
  'rl-headers-missing-4xx': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: null })).headers['x-ratelimit-reset'] === undefined,
  },
  'rl-headers-missing-429': {
    options: tight(1),
    probe: async (s) => (await first429(s)).headers['x-ratelimit-remaining'] === undefined,
  },
  'rl-reset-ms': { probe: async (s) => Number((await get(s, '/pets')).headers['x-ratelimit-reset']) > 1e11 },
  'rl-reset-relative': { probe: async (s) => Number((await get(s, '/pets')).headers['x-ratelimit-reset']) < 1e9 },
  'rl-reset-fractional': { probe: async (s) => (await get(s, '/pets')).headers['x-ratelimit-reset']!.includes('.') },
  'rl-remaining-above-limit': {
    probe: async (s) => {
      const r = await get(s, '/pets');
      return Number(r.headers['x-ratelimit-remaining']) > Number(r.headers['x-ratelimit-limit']);
    },
  },
  'rl-remaining-negative': {
    options: tight(1),
    probe: async (s) => (await first429(s)).headers['x-ratelimit-remaining'] === '-1',
  },
  'rl-limit-constant': { probe: async (s) => (await get(s, '/pets')).headers['x-ratelimit-limit'] === '100' },
  'rl-no-retry-after': {
    options: tight(1),
    probe: async (s) => (await first429(s)).headers['retry-after'] === undefined,
  },
  'rl-retry-after-fractional': {
    options: tight(1),
    probe: async (s) => !/^\d+$/.test((await first429(s)).headers['retry-after']!),
  },
  'rl-503': { options: tight(1), probe: async (s) => (await first429(s)).status === 503 },
  'rl-429-text-plain': { options: tight(1), probe: async (s) => (await first429(s)).json === undefined },
  'rl-429-not-error': {
    options: tight(1),
    probe: async (s) => (await first429(s)).text.includes('"statusCode":429'),
  },
  'rl-429-error-status': {
    options: tight(1),
    probe: async (s) => {
      const r = await first429(s);
      return typeof r.json?.message === 'string' && text(r.json.status) === '400';
    },
  },
  'auth-prototype-key-500': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: 'Bearer constructor' })).status === 500,
  },
  'auth-prototype-key-accepted': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: 'Bearer toString' })).status === 200,
  },
  'deep-nesting-500': {
    probe: async (s) => (await post(s, createBody('x', 1, undefined, `,"extra":${deeplyNested(3000)}`))).status === 500,
  },
  'create-form-decoded': {
    probe: async (s) =>
      (
        await call(s, 'POST', '/pets', {
          body: 'name=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status === 201,
  },
  'create-members-case-insensitive': { probe: invalidAccepted('{"name":"x","categoryid":1}') },
  'create-proto-member': { probe: invalidAccepted('{"name":"x","__proto__":{"categoryId":1}}') },
  'html-error-page': {
    probe: async (s) =>
      (await call(s, 'GET', '/pets', { auth: null, headers: { accept: 'text/html' } })).headers[
        'content-type'
      ]!.startsWith('text/html'),
  },
  'router-case-insensitive': {
    probe: async (s) => {
      const res = await request(`${s.url.replace(/\/v1$/, '')}/V1/PETS`);
      await res.body.dump();
      return res.statusCode === 200;
    },
  },
  'create-name-truncated-64k': {
    probe: async (s) => String((await created(s, 'n'.repeat(70_000))).json.name).length < 70_000,
  },
  'create-large-body-dropped': {
    probe: async (s) => {
      try {
        await post(s, createBody('x', 1, undefined, `,"padding":"${'x'.repeat(2 * 1024 * 1024)}"`));
        return false;
      } catch (e) {
        // The connection dropped under the body; any other error is the probe's own failure.
        if ((e as { code?: string }).code === 'UND_ERR_SOCKET' || /ECONNRESET|EPIPE/.test(String(e))) return true;
        throw e;
      }
    },
  },
  'auth-key-case-insensitive': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: `Bearer ${keyOf(s).toUpperCase()}` })).status === 200,
  },
  'auth-key-trimmed': {
    probe: async (s) => (await call(s, 'GET', '/pets', { auth: `Bearer ${keyOf(s)}\u00a0` })).status === 200,
  },
  'auth-key-accent-insensitive': {
    probe: async (s) =>
      (await call(s, 'GET', '/pets', { auth: `Bearer ${keyOf(s).replace('e', '\u00e9')}` })).status === 200,
  },
  'auth-first-header-wins': {
    probe: async (s) => {
      const res = await request(`${s.url}/pets`, {
        headers: { authorization: [`Bearer ${keyOf(s)}`, 'Bearer other'] },
      });
      await res.body.dump();
      return res.statusCode === 200;
    },
  },
  'create-query-merged': {
    probe: async (s) => (await call(s, 'POST', '/pets?name=Q&categoryId=7', { body: '{}' })).status < 300,
  },
  'create-near-integer-accepted': { probe: invalidAccepted('{"name":"x","categoryId":1.00000000000001}') },
  'router-version-case-insensitive': {
    probe: async (s) => {
      const res = await request(`${s.url.replace(/\/v1$/, '')}/V1/pets`);
      await res.body.dump();
      return res.statusCode === 200;
    },
  },
  'success-html-for-accept': {
    probe: async (s) =>
      (await call(s, 'GET', '/pets', { headers: { accept: 'text/html' } })).headers['content-type']!.startsWith(
        'text/html',
      ),
  },
  'create-empty-status-stored': { probe: invalidAccepted('{"name":"x","categoryId":1,"status":""}') },
  'rl-off-by-one': { options: tight(3), probe: async (s) => (await admitted(s, 10)) > 3 },
  'rl-stricter': { options: tight(3), probe: async (s) => (await admitted(s, 10)) < 3 },
  'rl-not-enforced': { options: tight(3), probe: async (s) => (await admitted(s, 10)) === 10 },
  'rl-retry-after-short': {
    options: { ...tight(1), windowSeconds: 4 },
    probe: async (s) => Number((await first429(s)).headers['retry-after']) < 3,
  },
  'rl-window-never-resets': {
    options: tight(1),
    probe: async (s, clock) => {
      clock.advance(Number((await first429(s)).headers['retry-after']) * 1000);
      return (await get(s, '/pets')).status !== 200;
    },
  },
  'rl-rejected-counted': {
    options: tight(2),
    probe: async (s, clock) => {
      let wait = Number((await first429(s)).headers['retry-after']);
      wait = Number((await get(s, '/pets')).headers['retry-after'] ?? wait);
      clock.advance(wait * 1000);
      return (await get(s, '/pets')).headers['x-ratelimit-remaining'] !== '1';
    },
  },
  'rl-shared-limits': {
    options: tight(2),
    probe: async (s) => {
      await first429(s);
      return (await call(s, 'GET', '/pets', { plan: 'pro' })).status !== 200;
    },
  },
  'rl-shared-counter': {
    probe: async (s) => {
      await get(s, '/pets');
      return (await call(s, 'GET', '/pets', { plan: 'pro' })).headers['x-ratelimit-remaining'] !== '299';
    },
  },
  'rl-per-route': {
    options: tight(1),
    probe: async (s) => {
      await first429(s);
      return (await created(s)).status === 201;
    },
  },
  'rl-form-counted-apart': {
    options: tight(3),
    // The key's window used up in the plain form: the lower-case scheme (valid, RFC 9110 §11.1) is refused too.
    probe: async (s) => {
      await first429(s);
      return (await call(s, 'GET', '/pets', { auth: `bearer ${keyOf(s)}` })).status === 200;
    },
  },
  'rl-lost-increments': {
    options: tight(3),
    // Ten requests of the key at once (ten connections): the clean limiter admits its 3, the faulty one more.
    probe: async (s) =>
      (await Promise.all(Array.from({ length: 10 }, () => get(s, '/pets')))).filter((r) => r.status === 200).length > 3,
  },
  'rl-ban-honoured': {
    options: tight(1),
    probe: async (s, clock) => {
      clock.advance(Number((await first429(s)).headers['retry-after']) * 1000);
      return (await get(s, '/pets')).status !== 200;
    },
  },
  'rl-free-numbers': {
    probe: async (s) => (await call(s, 'GET', '/pets', { plan: 'pro' })).headers['x-ratelimit-limit'] !== '300',
  },
  'rl-ban-403': {
    options: tight(1),
    probe: async (s) => {
      await first429(s);
      return (await get(s, '/pets')).status === 403;
    },
  },
  'rl-daily-not-enforced': { options: tight(10, 2), probe: async (s) => (await admitted(s, 5)) > 2 },
  'quota-lost-increments': {
    options: tight(20, 3),
    // Ten requests of the key at once, within its minute limit: the clean limiter admits its day's 3, the faulty one more.
    probe: async (s) =>
      (await Promise.all(Array.from({ length: 10 }, () => get(s, '/pets')))).filter((r) => r.status === 200).length > 3,
  },
};

describe.concurrent('each fault changes behaviour', () => {
  test('every catalogued fault has a probe', () => {
    expect(Object.keys(cases).sort()).toEqual(faults.map((f) => f.id).sort());
  });
  for (const [id, c] of Object.entries(cases) as Array<[FaultId, Case]>) {
    test(id, async () => {
      const [cleanClock, faultyClock] = [new ManualClock(), new ManualClock()];
      const clean = await startReferenceServer(c.options, cleanClock);
      const faulty = await startReferenceServer({ ...c.options, faults: [id] }, faultyClock);
      try {
        const [without, withFault] = await Promise.all([c.probe(clean, cleanClock), c.probe(faulty, faultyClock)]);
        expect(without, 'faultless server').toBe(false);
        expect(withFault, 'with the fault').toBe(true);
      } finally {
        await Promise.all([clean.close(), faulty.close()]);
      }
    });
  }
});
