/**
 * The request mix: static requests (autocannon builds each once), gets of seeded pets, and the hook-free copy that
 * plain autocannon sends when the harness is benchmarked against it.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../http/redact.js';
import { ConformanceTally } from '../../load/conformance.js';
import { listQueries, mixGetCount, mixRequests, seedPets, withoutHooks } from '../../load/mix.js';
import { startReferenceServer } from '../../reference/server.js';

const key = new ApiKey('k-test', 'enterprise');

describe('the load mix', () => {
  it('is static: two lists, a create and a get of a seeded pet per group, every request with a hook', () => {
    const requests = mixRequests('/v1', key, new ConformanceTally(1), ['7', '8', '9']);
    expect(requests).toHaveLength(4 * mixGetCount());
    expect(requests.every((r) => r.setupRequest === undefined && typeof r.onResponse === 'function')).toBe(true);
    expect(requests.filter((r) => r.method === 'GET' && /^\/v1\/pets\/\d+$/.test(r.path!)).map((r) => r.path)).toEqual([
      '/v1/pets/7',
      '/v1/pets/8',
      '/v1/pets/9',
    ]);
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(mixGetCount());
    const lists = requests.filter(
      (r) => r.method === 'GET' && r.path!.startsWith('/v1/pets') && !/\/pets\/\d/.test(r.path!),
    );
    expect(new Set(lists.map((r) => r.path!.slice('/v1/pets'.length)))).toEqual(new Set(listQueries()));
  });

  it('without hooks, sends byte-for-byte the same requests', () => {
    const hooked = mixRequests('/v1', key, new ConformanceTally(1), ['1', '2', '3']);
    const plain = withoutHooks(hooked);
    expect(plain.every((r) => !('onResponse' in r) && !('setupRequest' in r))).toBe(true);
    expect(plain).toEqual(
      hooked.map(({ method, path, headers, body }) => ({
        method,
        path,
        headers,
        ...(body === undefined ? {} : { body }),
      })),
    );
  });

  it('seeds pets that exist, and falls back to id 1 when the target refuses the key', async () => {
    const s = await startReferenceServer({ port: 0, windowSeconds: 60 });
    try {
      const ref = s.keys.find((k) => k.plan === 'enterprise')!;
      const ids = await seedPets(s.url, new ApiKey(ref.key, ref.plan), 3, 5);
      expect(ids).toHaveLength(3);
      expect(new Set(ids).size).toBe(3);
      for (const id of ids)
        expect((await fetch(`${s.url}/pets/${id}`, { headers: { authorization: `Bearer ${ref.key}` } })).status).toBe(
          200,
        );
      expect(await seedPets(s.url, new ApiKey('not-a-key', 'free'), 2, 5)).toEqual(['1', '1']);
    } finally {
      await s.close();
    }
  });

  it('seeding a dead target stops at the first error', async () => {
    const s = await startReferenceServer({ port: 0 });
    const url = s.url;
    await s.close();
    // Given an hour, a set-up that kept trying would hold the test until its timeout; it ends at once instead, long
    // before that (no clock read here: how soon is the machine's, the bound is the hour).
    expect(await seedPets(url, key, 3, 3_600)).toEqual(['1', '1', '1']);
  });
});
