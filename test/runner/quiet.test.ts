/**
 * A key is quiet for the rate-limit readings only when no request of the run on it is in flight, whichever suite sent
 * it and whether or not it was paced (issue 28): RunContext.quiet waits on the request path's count. The server's
 * answers are held until the test releases them, so what is in flight is chosen, never raced.
 */
import { describe, expect, test } from 'vitest';
import { planKeys, startReferenceServer, type ReferenceClock } from '../../reference/server.js';
import { Run } from '../../runner/run.js';
import * as req from '../../runner/requests.js';
import { ManualClock } from '../reference/support.js';

class HoldingClock extends ManualClock implements ReferenceClock {
  readonly queue: (() => void)[] = [];
  override later(_ms: number, fn: () => void): void {
    this.queue.push(fn);
  }
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

describe('RunContext.quiet', () => {
  test("waits for every request in flight on the key, a functional suite's or an unpaced one, and for no other key's", async () => {
    const clock = new HoldingClock();
    const server = await startReferenceServer({ windowSeconds: 60, answerJitterMs: 1000 }, clock);
    try {
      const keys = planKeys(server.keys);
      const pro = keys.find((k) => k.plan === 'pro')!;
      const free = keys.find((k) => k.plan === 'free')!;
      const run = new Run({ target: server.url, keys, key: pro, seed: 1, runs: 1, strict: false });
      const functional = run.context('listPets');
      const rateLimit = run.context('rate-limit');
      let quiet = false;
      // A functional suite's request (paced) and an unpaced one, both held at the server.
      const a = functional.send(req.listPets(functional.auth('Bearer {key}', pro), '?limit=1'));
      const b = rateLimit.send(req.listPets(rateLimit.auth('Bearer {key}', pro), '?limit=1'), { pace: false });
      await until(() => clock.queue.length === 2);
      const other = rateLimit.quiet(rateLimit.auth('Bearer {key}', free));
      const waiting = rateLimit.quiet(rateLimit.auth('Bearer {key}', pro)).then(() => {
        quiet = true;
      });
      await other; // another key's requests are not this one's
      // Either one answered (the server holds them in its own order): the other is still in flight.
      clock.queue.shift()!();
      const first = await Promise.race([a.then(() => 'a'), b.then(() => 'b')]);
      await new Promise((r) => setTimeout(r, 20));
      expect(quiet, `after ${first} only`).toBe(false);
      clock.queue.shift()!();
      await Promise.all([a, b, waiting]);
      expect(quiet).toBe(true);
      await Promise.all([functional.close(), rateLimit.close()]);
    } finally {
      await server.close();
    }
  });
});
