/**
 * Each key's requests in flight, every request of the run counted (paced or not, a burst's included), and a wait
 * for the moment none is. A target counts a request when it handles it: while a request of the key is in flight,
 * the Remaining another answer reports may not include it yet. A Remaining read from a key with nothing in flight is
 * the only sound starting point for counting (issue 28), so the readings of the rate-limit suite wait for `quiet`.
 * A request is in flight from just before it is sent until its exchange is complete: answered, or failed.
 */

/** What identifies a key: its secret (held in memory only: two ApiKey objects of one secret are one key). */
export type FlightKey = string;

interface Flights {
  count: number;
  /** Waiters for the key to be quiet, woken when the count falls to zero. */
  readonly waiters: (() => void)[];
}

export class KeyFlights {
  private readonly keys = new Map<FlightKey, Flights>();

  private of(key: FlightKey): Flights {
    let f = this.keys.get(key);
    if (!f) {
      f = { count: 0, waiters: [] };
      this.keys.set(key, f);
    }
    return f;
  }

  /** A request of `key` is about to be sent. */
  enter(key: FlightKey): void {
    this.of(key).count++;
  }

  /** A request `enter` counted is over (its exchange answered or failed). */
  leave(key: FlightKey): void {
    const f = this.of(key);
    f.count = Math.max(0, f.count - 1);
    if (f.count === 0) for (const wake of f.waiters.splice(0)) wake();
  }

  /** Requests of `key` in flight now. */
  count(key: FlightKey): number {
    return this.keys.get(key)?.count ?? 0;
  }

  /** Resolves once no request of `key` is in flight (at once when none is). */
  quiet(key: FlightKey): Promise<void> {
    const f = this.keys.get(key);
    if (!f || f.count === 0) return Promise.resolve();
    return new Promise<void>((r) => f.waiters.push(r));
  }
}
