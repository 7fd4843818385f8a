// Independent properties of a suite side by side (--concurrency): the suite records the same findings, with the same
// exchange numbers, whatever the interleaving, and no more requests are in flight than the run's lanes.
import { describe, expect, it } from 'vitest';
import type { SuiteName } from '../../config/config.js';
import { faults as catalogue, isCaught } from '../../reference/faults.js';
import { PART_SEQ_STRIDE } from '../../runner/context.js';
import { lanesOf } from '../../runner/lanes.js';
import { runAgainstReference } from './run-against.js';

/** Faults that the suites' properties (not only their coverage phases) report, several per suite. */
const FAULTS: Readonly<Record<string, readonly string[]>> = {
  getPet: ['get-odd-404', 'get-invalid-id-500', 'error-status-mismatch'],
  listPets: ['list-filter-leak', 'list-invalid-limit-500', 'list-limit-ignored'],
};

/**
 * Response headers that say when an answer came and what the key had left then: they follow the clock and the order
 * the lanes' requests reached the server, not the suite's findings.
 */
const CLOCK_HEADER = /^(date|retry-after|x-ratelimit-.*|ratelimit.*)$/i;

/** The findings as a report shows them (each server has its own port; the clock's headers masked). */
const recorded = (r: Awaited<ReturnType<typeof runAgainstReference>>) =>
  JSON.stringify(
    { findings: r.findings, stats: r.stats, occurrences: r.occurrences, exchanges: r.exchanges },
    (key, value) => (CLOCK_HEADER.test(key) && typeof value === 'string' ? '(clock)' : value),
  ).replace(/127\.0\.0\.1:\d+/g, 'HOST');

/** Whether exchanges of one part were recorded after a later part's: the parts ran side by side, not in turn. */
function interleaved(seqs: readonly number[]): boolean {
  const parts = seqs.map((seq) => Math.floor(seq / PART_SEQ_STRIDE)).filter((p) => p > 0);
  return parts.some((p, i) => i > 0 && p < parts[i - 1]!);
}

describe('properties side by side', () => {
  for (const [suite, faults] of Object.entries(FAULTS)) {
    it(`${suite}: one lane and four record the same findings; four interleave the properties`, async () => {
      const options = { faults, seed: 5, runs: 60 };
      const one = await runAgainstReference(suite as SuiteName, { ...options, lanes: 1 });
      const four = await runAgainstReference(suite as SuiteName, { ...options, lanes: 4 });
      // Each fault shows, caught by its own check, so the comparison is about findings, repro paths and exchange
      // numbers, not an empty log.
      for (const id of faults) expect(isCaught(catalogue.find((f) => f.id === id)!, one.findings), id).toBe(true);
      expect(recorded(four)).toBe(recorded(one));
      expect(interleaved(one.exchangeList.map((e) => e.seq))).toBe(false);
      expect(interleaved(four.exchangeList.map((e) => e.seq))).toBe(true);
    });
  }
});

describe('lanes', () => {
  it('run at most their size at once, in the order jobs came, and hand a freed lane to the first waiting', async () => {
    const lanes = lanesOf(3);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const job = (i: number) => async () => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 1 + (i % 3)));
      running--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => lanes.run(job(i))));
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(most).toBe(3);
    expect(started).toEqual([...started].sort((a, b) => a - b));
  });
});
