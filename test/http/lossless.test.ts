import fc from 'fast-check';
import { isLosslessNumber, LosslessNumber, parse } from 'lossless-json';
import { describe, expect, test } from 'vitest';
import { parseLossless, plain } from '../../http/lossless.js';

/** What parseLossless must give: the lossless parser with safe integers as numbers (its definition before the fast path). */
function reference(text: string): unknown {
  return parse(text, null, (d: string) => (/^-?\d{1,15}$/.test(d) ? Number(d) : new LosslessNumber(d)));
}

const normalise = (v: unknown): unknown =>
  isLosslessNumber(v)
    ? { lossless: (v as LosslessNumber).value }
    : Array.isArray(v)
      ? v.map(normalise)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x)]))
        : v;

function outcome(f: () => unknown): unknown {
  try {
    return { value: normalise(f()) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe('parseLossless (JSON.parse when it gives the same tree)', () => {
  test('gives what the lossless parser gives, for any JSON text and its corruptions', () => {
    const number = fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
    );
    const text = fc.oneof(
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .tuple(fc.json(), fc.nat(), fc.string())
        .map(([s, i, ins]) => s.slice(0, i % (s.length + 1)) + ins + s.slice(i % (s.length + 1))),
      fc.tuple(fc.string(), number, number).map(([k, a, b]) => `{"${k.replace(/["\\]/g, '')}":${a},"x":[${b}]}`),
      // Lists of objects whose numbers (some beyond 15 digits) sit under any keys, array indices among them.
      fc
        .array(fc.array(fc.tuple(fc.oneof(fc.string(), fc.nat(20).map(String)), number), { maxLength: 5 }), {
          maxLength: 4,
        })
        .map(
          (objects) =>
            `[${objects.map((o) => `{${o.map(([k, v]) => `${JSON.stringify(k)}:[${v},"${v}"]`).join(',')}}`).join(',')}]`,
        ),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(outcome(() => parseLossless(t))).toEqual(outcome(() => reference(t)));
      }),
      { numRuns: 2000 },
    );
  });

  test.each([
    ['repeated keys are refused as the lossless parser refuses them', '{"a":1,"a":1}'],
    ['a key __proto__', '{"__proto__":{"a":1}}'],
    ['integers beyond 15 digits keep their digits', '{"id":9223372036854775807}'],
    ['fractions and exponents keep their digits', '[1.5, 1e3, 2E-1, -0]'],
    ['digits inside strings do not count', '{"n":"12345678901234567890.5e3","m":"a\\"b:c"}'],
    ['escapes and odd strings', '["\\u0000","\\ud800","\\\\",""]'],
  ])('%s', (_why, t) => {
    expect(outcome(() => parseLossless(t))).toEqual(outcome(() => reference(t)));
  });
});

describe('parseLossless and plain: digits kept where a JS number would round them', () => {
  test.each([
    ['a list with big ids', '[{"id":9223372036854775807,"n":1},{"id":-9007199254740993,"x":[1.25,3e2]}]'],
    ['a string that looks like a marked number', '["\\u0000\\u0070sc-digits:5", 12345678901234567]'],
    ['a top-level big number', '123456789012345678901234567890'],
    ['array-index keys before a big number', '[{"b":12345678901234567890,"1":5,"0":1.5},{"id":9223372036854775807}]'],
    ['the same big number twice, and one shared by no copy', '[[1e400,1e400],{"a":{"b":1}},7]'],
  ])('%s', (_why, t) => {
    expect(outcome(() => parseLossless(t))).toEqual(outcome(() => reference(t)));
    // The plain view (what ajv validates) is JSON.parse's, as before.
    expect(plain(parseLossless(t))).toEqual(JSON.parse(t));
  });
});
