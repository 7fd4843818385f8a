import { describe, expect, test } from 'vitest';
import { KeyFlights } from '../../http/in-flight.js';

/** Whether `p` has settled by the time the microtasks queued now have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
}

describe('KeyFlights: a key is quiet when none of its requests is in flight', () => {
  test('quiet at once with nothing in flight; after the last of its requests otherwise; other keys apart', async () => {
    const f = new KeyFlights();
    expect(await settled(f.quiet('a'))).toBe(true);
    f.enter('a');
    f.enter('a');
    f.enter('b');
    const quietA = f.quiet('a');
    expect(f.count('a')).toBe(2);
    f.leave('a');
    expect(await settled(quietA)).toBe(false);
    // Another key's request ending changes nothing for this one.
    f.leave('b');
    expect(await settled(quietA)).toBe(false);
    f.leave('a');
    expect(await settled(quietA)).toBe(true);
    expect(f.count('a')).toBe(0);
    // A new request makes the key busy again: a later wait waits for it.
    f.enter('a');
    const again = f.quiet('a');
    expect(await settled(again)).toBe(false);
    f.leave('a');
    expect(await settled(again)).toBe(true);
  });
});
