/**
 * Query strings for listPets, derived from its query parameters: integer parameters at their minimum, default,
 * maximum and in between; enum parameters at each value; optional ones absent; order shuffled. Invalid queries break
 * exactly one parameter (outside the range, not an integer, not a number, empty, repeated, outside the enum).
 */
import fc from 'fast-check';
import { contract as loaded, type Contract, type ParameterSpec } from '../spec/contract.js';
import { type CaseFamily, caseRef, type CaseRef } from './case.js';
import { enumMember, notEnumMember } from './enum.js';
import { integerDigits } from './integer.js';
import { enumOf, integerDefault, integerRange, jsonType, parametersOf } from './schema.js';

export interface ListQuery {
  /** '' or '?limit=5&status=sold', already URL-encoded. */
  readonly raw: string;
  readonly limit?: number;
  readonly status?: string;
  /** Whether every parameter is within its schema. */
  readonly valid: boolean;
  /** 'valid', or the one defect: 'limit 0', 'limit 101', 'limit abc', 'limit empty', 'repeated limit', 'unknown status'. */
  readonly kind: string;
  /** For an invalid query, the parameter it breaks. */
  readonly param?: string;
}

/** One name=value pair; `value` is the typed value when the text denotes one. */
interface Pair {
  readonly name: string;
  readonly text: string;
  readonly value?: number | string;
}

function validValue(p: ParameterSpec): fc.Arbitrary<Pair> {
  const values = enumOf(p.schema);
  if (values) return enumMember(values).map((v) => ({ name: p.name, text: v, value: v }));
  if (jsonType(p.schema) === 'integer') {
    const range = integerRange(p.schema);
    const dflt = integerDefault(p.schema);
    const named = [range.min, range.max, ...(dflt === null ? [] : [dflt])];
    return fc
      .oneof(fc.constantFrom(...named).map(String), integerDigits(range))
      .map((d) => ({ name: p.name, text: d, value: Number(d) }));
  }
  throw new Error(`generators: listPets parameter ${p.name} has a schema no generator models`);
}

/** Pairs for every parameter: required ones always, optional ones present or absent, in a shuffled order. */
function pairs(params: readonly ParameterSpec[], fixed: readonly Pair[] = []): fc.Arbitrary<Pair[]> {
  const parts = params.map((p) =>
    p.required
      ? validValue(p).map((v) => [v])
      : fc.option(
          validValue(p).map((v) => [v]),
          { nil: [] as Pair[] },
        ),
  );
  return fc
    .tuple(...parts)
    .map((lists) => [...fixed, ...lists.flat()])
    .chain((all) => fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }));
}

function toQuery(list: readonly Pair[], valid: boolean, kind: string, param?: string): ListQuery {
  const raw =
    list.length === 0
      ? ''
      : `?${list.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p.text)}`).join('&')}`;
  const once = (name: string) => {
    const found = list.filter((p) => p.name === name);
    return found.length === 1 ? found[0]!.value : undefined;
  };
  const limit = once('limit');
  const status = once('status');
  return {
    raw,
    ...(typeof limit === 'number' ? { limit } : {}),
    ...(typeof status === 'string' ? { status } : {}),
    valid,
    kind,
    ...(param !== undefined && { param }),
  };
}

export function validListQuery(c: Contract = loaded): fc.Arbitrary<ListQuery> {
  const params = parametersOf('listPets', 'query', c);
  return pairs(params).map((list) => toQuery(list, true, 'valid'));
}

const numeric = (text: string): number | undefined => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : undefined);

/** The broken values of one parameter, each with its kind. */
function brokenValues(p: ParameterSpec): fc.Arbitrary<{ pairs: Pair[]; kind: string }>[] {
  const one = (text: string, kind = `${p.name} ${text}`, value: number | string | undefined = numeric(text)) => ({
    pairs: [{ name: p.name, text, ...(value === undefined ? {} : { value }) }],
    kind,
  });
  const out: fc.Arbitrary<{ pairs: Pair[]; kind: string }>[] = [
    fc.constant(one('', `${p.name} empty`, undefined)),
    fc.tuple(validValue(p), validValue(p)).map(([a, b]) => ({ pairs: [a, b], kind: `repeated ${p.name}` })),
  ];
  if (p.required) out.push(fc.constant({ pairs: [], kind: `missing ${p.name}` }));
  const values = enumOf(p.schema);
  if (values) {
    out.push(
      notEnumMember(values)
        .filter((v) => v !== '')
        .map((v) => one(v, `unknown ${p.name}`, v)),
    );
  } else if (jsonType(p.schema) === 'integer') {
    const { min, max } = integerRange(p.schema);
    const outside = [...new Set([min - 1n, max + 1n, -1n])].filter((n) => n < min || n > max).map(String);
    out.push(
      fc.constantFrom(...outside).map((t) => one(t)),
      // Fractions beside the bounds, small enough that `limit` still holds them exactly.
      fc.constantFrom('1.5', `${min}.5`, `${max - 1n}.5`, '-0.5').map((t) => one(t)),
      // 0x10 and 1e2 are numbers to Number() but not integer parameter values.
      fc.constantFrom('abc', 'ten', '1a', '0x10', '1e2', ' 5', '+5').map((t) => one(t)),
    );
  }
  return out;
}

/** One arbitrary per kind of invalid query (each parameter broken one way), in a fixed order. */
export function invalidListQueryKinds(c: Contract = loaded): fc.Arbitrary<ListQuery>[] {
  const params = parametersOf('listPets', 'query', c);
  return params.flatMap((p) => {
    const others = params.filter((o) => o !== p);
    return brokenValues(p).map((broken) =>
      broken.chain(({ pairs: bad, kind }) => pairs(others, bad).map((list) => toQuery(list, false, kind, p.name))),
    );
  });
}

export function invalidListQuery(c: Contract = loaded): fc.Arbitrary<ListQuery> {
  return fc.oneof(...invalidListQueryKinds(c));
}

/** The family of an invalid query, by the parameter it breaks (a parameter the spec adds needs its family here). */
export const QUERY_PARAM_FAMILIES: Readonly<Record<string, CaseFamily>> = Object.freeze({
  limit: 'query-invalid-limit',
  status: 'query-invalid-status',
});

/** The parameter an invalid query breaks: its own, or the listPets parameter its kind names. */
function brokenParam(q: ListQuery, c: Contract): string {
  if (q.param !== undefined) return q.param;
  const words = q.kind.split(' ');
  const named = parametersOf('listPets', 'query', c).find((p) => words.includes(p.name));
  if (named === undefined) throw new Error(`generators: query kind ${q.kind} names no listPets parameter`);
  return named.name;
}

/**
 * The case of a list query in a finding's signature: a valid one by which parameters it sets ('query: limit and
 * status', an ordinary request), an invalid one by what is wrong with its value, never the value ('query: limit a
 * fraction'), of the family of the parameter it breaks.
 */
export function listQueryCase(q: ListQuery, c: Contract = loaded): CaseRef {
  if (!q.valid) {
    const family = QUERY_PARAM_FAMILIES[brokenParam(q, c)];
    if (family === undefined) throw new Error(`generators: no family for an invalid ${brokenParam(q, c)}`);
    // The kind names the broken value ('limit 1.5', 'limit abc'): its class is what tells defects apart.
    const m = /^(\w+) (.*)$/.exec(q.kind);
    if (!m || /^(empty|repeated|missing|unknown)$/.test(m[1]!) || m[2] === 'empty')
      return caseRef(`query: ${q.kind}`, family, q.kind);
    const value = m[2]!;
    const cls = /^[+-]?\d+\.\d+$/.test(value) ? 'a fraction' : /^-?\d+$/.test(value) ? 'out of range' : 'not a number';
    return caseRef(`query: ${m[1]} ${cls}`, family, `${m[1]} ${cls}`);
  }
  const set = [q.limit !== undefined ? 'limit' : '', q.status !== undefined ? 'status' : ''].filter(Boolean);
  const variant = set.length ? set.join(' and ') : 'no parameters';
  return caseRef(`query: ${variant}`, 'ordinary', variant);
}
