// A shared staging in miniature (issue 9): 5,000 pets the run did not create, ids from 2^53 + 1, newest first, and
// another client creating and listing pets throughout. The faultless server passes every functional suite over 20
// seeds, and every functional fault is still caught by the check it names.
import { describe, expect, test } from 'vitest';
import { type SuiteName, FUNCTIONAL_SUITES } from '../../config/config.js';
import { faults, isCaught } from '../../reference/faults.js';
import { startReferenceServer } from '../../reference/server.js';
import { startBackgroundWriter } from '../support/background-writer.js';
import { runShared, SHARED } from './shared-support.js';

const FUNCTIONAL: readonly SuiteName[] = FUNCTIONAL_SUITES;
const failing = (r: Awaited<ReturnType<typeof runShared>>) => r.findings.filter((f) => f.level !== 'observation');
const summary = (r: Awaited<ReturnType<typeof runShared>>) =>
  failing(r)
    .map((f) => `${f.checkId}: ${f.message.split('\n')[0]}`)
    .join('\n') || 'none';

/**
 * Faults that no sound check can see in this setting, and why. A pet missing from a list is evidence only when the
 * page is not full; with thousands of pets and no pagination in the spec, every page is full.
 */
const UNSEEN_ON_FULL_PAGES: Readonly<Record<string, string>> = {
  'create-not-listed':
    'a page full of older pets may hide a young one on a later page (order and pagination not shown)',
};

describe('the faultless server, shared with others, passes every functional suite', () => {
  for (let seed = 1; seed <= 20; seed++) {
    test(`seed ${seed}`, async () => {
      for (const suite of FUNCTIONAL) {
        const r = await runShared(suite, { seed });
        expect(failing(r), `${suite}, seed ${seed}: ${summary(r)}`).toEqual([]);
      }
    });
  }
});

describe('every functional fault is caught in that setting', () => {
  for (const fault of faults.filter((f) => (FUNCTIONAL as readonly string[]).includes(f.suite))) {
    const unseen = UNSEEN_ON_FULL_PAGES[fault.id];
    test(`${fault.id} → ${unseen ? 'not visible on full pages' : fault.catches}`, async () => {
      const r = await runShared(fault.suite as SuiteName, { seed: 42, faults: [fault.id] });
      const caught = isCaught(fault, r.findings);
      expect(caught, `${fault.description}; ${unseen ?? 'caught'}: findings were ${summary(r)}`).toBe(!unseen);
    });
  }
});

describe('the setting', () => {
  test('the other client creates pets during the run, with ids after the 5,000 existing ones', async () => {
    const r = await runShared('createPet', { seed: 7 });
    expect(r.writes.statuses.error ?? 0).toBe(0);
    expect(r.writes.created.length).toBeGreaterThan(1);
    for (const id of r.writes.created) expect(BigInt(id) >= SHARED.idStart + BigInt(SHARED.seedPets), id).toBe(true);
  });

  test('the writer stops by itself after its request cap, and talks to loopback only', async () => {
    const server = await startReferenceServer();
    try {
      const writer = startBackgroundWriter({
        url: server.url,
        key: server.keys[3]!.key,
        perSecond: 200,
        maxRequests: 6,
      });
      const done = await writer.finished;
      expect(done.sent).toBe(6);
      expect(done.statuses).toEqual({ 200: 3, 201: 3 });
      expect(done.created).toHaveLength(3);
    } finally {
      await server.close();
    }
    expect(() => startBackgroundWriter({ url: 'http://example.com/v1', key: 'k' })).toThrow(/not a loopback/);
  });
});
