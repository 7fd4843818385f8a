/**
 * The values derived from the latest few keys. Several readers of one exchange (the response checks, the pacer, the
 * ledger) ask the same question of it one after the other, lanes side by side interleave a few exchanges, and a target
 * repeats the same header values: the answer is remembered for a few keys, compared by identity (===, so strings by
 * value), and derived again for an older one. Not a Map or a WeakMap: an entry per exchange costs the garbage
 * collector more than a look through a few slots saves.
 */
const EMPTY = Symbol('empty');

export class Recent<K, V> {
  private readonly keys: unknown[];
  private readonly values: (V | undefined)[];
  private next = 0;

  constructor(size: number) {
    this.keys = new Array<unknown>(size).fill(EMPTY);
    this.values = new Array<V | undefined>(size).fill(undefined);
  }

  /** The value remembered for `key`, else `orElse(key)` (not remembered). */
  get(key: K, orElse: (key: K) => V): V {
    const i = this.keys.indexOf(key);
    return i >= 0 ? (this.values[i] as V) : orElse(key);
  }

  /** Remembers `value` for `key` in place of the oldest entry; returns it. */
  remember(key: K, value: V): V {
    this.keys[this.next] = key;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.keys.length;
    return value;
  }

  /** The value remembered for `key`, else `derive(key)`, remembered. */
  of(key: K, derive: (key: K) => V): V {
    const i = this.keys.indexOf(key);
    return i >= 0 ? (this.values[i] as V) : this.remember(key, derive(key));
  }
}
