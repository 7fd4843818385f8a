// The small cache of the values derived from the latest keys (http/recent.ts), behind the per-exchange readers.
import { describe, expect, test } from 'vitest';
import { Recent } from '../../http/recent.js';

describe('Recent', () => {
  test('derives a key once while it is among the latest, and again once older ones have pushed it out', () => {
    const recent = new Recent<object, number>(2);
    const [a, b, c] = [{}, {}, {}];
    let derived = 0;
    const derive = () => ++derived;
    expect([recent.of(a, derive), recent.of(b, derive), recent.of(a, derive), recent.of(b, derive)]).toEqual([
      1, 2, 1, 2,
    ]);
    expect(recent.of(c, derive)).toBe(3);
    // c took the oldest slot (a's): a is derived anew.
    expect(recent.of(a, derive)).toBe(4);
    expect(recent.of(c, derive)).toBe(3);
    expect(derived).toBe(4);
  });

  test('compares keys by identity: an equal object is another key, an equal string the same one', () => {
    const objects = new Recent<object, string>(4);
    objects.remember({ x: 1 }, 'first');
    expect(objects.get({ x: 1 }, () => 'not remembered')).toBe('not remembered');
    const strings = new Recent<string, string>(1);
    strings.remember(['a', 'b'].join(''), 'first');
    expect(strings.get('ab', () => 'not remembered')).toBe('first');
  });

  test('remembers null and undefined answers as answers, and get remembers nothing', () => {
    const recent = new Recent<string, number | null | undefined>(2);
    let calls = 0;
    const counted = (answer: number | null | undefined) => () => {
      calls++;
      return answer;
    };
    expect([recent.of('x', counted(null)), recent.of('x', counted(null))]).toEqual([null, null]);
    expect(recent.of('y', counted(undefined))).toBeUndefined();
    expect(recent.of('y', counted(5))).toBeUndefined();
    expect(recent.get('z', () => 7)).toBe(7);
    expect(recent.of('z', () => 8)).toBe(8);
    expect(calls).toBe(2);
  });
});
