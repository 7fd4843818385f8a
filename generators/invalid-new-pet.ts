/**
 * Invalid createPet request bodies, derived from contract.schemas.NewPet: each required property missing, each
 * property given every JSON type its schema refuses, integers outside their format's range, enum strings outside the
 * enum, and bodies that are not a JSON object at all. Each case mutates one thing of an otherwise valid body, so the
 * reason names the one defect the service must reject.
 */
import fc from 'fast-check';
import { contract as loaded, type Contract } from '../spec/contract.js';
import { type CaseFamily, caseRef, type CaseRef } from './case.js';
import { enumMember, notEnumMember } from './enum.js';
import { beyondDigits, integerDigits, nearIntegerText, nonIntegerText } from './integer.js';
import {
  acceptedTypes,
  componentSchema,
  enumOf,
  integerRange,
  jsonType,
  propertiesOf,
  type JsonType,
  type PropertySpec,
} from './schema.js';

export interface InvalidBody {
  /** The one defect, e.g. 'missing name', 'categoryId of type string', 'unknown status "lost"'. */
  readonly reason: string;
  /** Raw request body; null sends no body at all. */
  readonly body: string | null;
  /** The name string the body carries, so the store can be searched for it afterwards; null when it carries none. */
  readonly marker: string | null;
  /** The family of input it belongs to (generators/case.ts): what one cause in a target answers alike. */
  readonly family: CaseFamily;
  /** The Pet field it is about, when it is about one. */
  readonly field?: string;
}

/** A JSON value text; a function of the marker because string properties carry the marker as their value. */
type Text = (marker: string) => string;
type Entry = readonly [key: string, value: Text];
interface Mutation {
  readonly reason: string;
  readonly text: Text;
  readonly family: CaseFamily;
}
type Case = (marker: string) => {
  readonly reason: string;
  readonly body: string | null;
  readonly family: CaseFamily;
  readonly field?: string;
};

/** Unique-ish marker names. Unbiased and unshrunk: a shrunk marker would collide with one already sent. */
export function markerName(): fc.Arbitrary<string> {
  return fc
    .noShrink(fc.noBias(fc.bigInt(0n, 2n ** 64n - 1n)))
    .map((n) => `psc-marker-${n.toString(16).padStart(16, '0')}`);
}

function validValue(p: PropertySpec): fc.Arbitrary<Text> {
  const values = enumOf(p.schema);
  if (values) return enumMember(values).map((v) => () => JSON.stringify(v));
  switch (jsonType(p.schema)) {
    case 'string':
      return fc.constant((m: string) => JSON.stringify(m));
    case 'integer':
      return integerDigits(integerRange(p.schema)).map((d) => () => d);
    case 'boolean':
      return fc.constantFrom('true', 'false').map((t) => () => t);
    default:
      throw new Error(`generators: no valid value for NewPet.${p.name} of type ${String(p.schema.type)}`);
  }
}

function render(entries: readonly Entry[], m: string): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v(m)}`).join(',')}}`;
}

const constText =
  (t: string): Text =>
  () =>
    t;

/** One value per JSON type other than the schema's; `fraction` is a number that is no integer. */
function wrongTypes(p: PropertySpec, valid: fc.Arbitrary<Text>): fc.Arbitrary<Mutation>[] {
  const accepted = acceptedTypes(p.schema);
  const of = (label: string) => `${p.name} of type ${label}`;
  const family: CaseFamily = 'body-wrong-type';
  // A fraction for an integer field is a number, the right JSON type: what it breaks is the integer.
  const fraction: CaseFamily = accepted.has('integer') ? 'body-not-integer' : 'body-wrong-type';
  const kinds: { type: JsonType; arb: fc.Arbitrary<Mutation> }[] = [
    {
      type: 'string',
      // An integer written as a string is the classic mistake; other properties get the marker as a string.
      arb:
        jsonType(p.schema) === 'integer'
          ? integerDigits(integerRange(p.schema)).map((d) => ({
              reason: of('string'),
              text: constText(JSON.stringify(d)),
              family,
            }))
          : fc.constant({ reason: of('string'), text: (m: string) => JSON.stringify(m), family }),
    },
    {
      type: 'integer',
      arb: fc.constantFrom('0', '42', '-1').map((t) => ({ reason: of('number'), text: constText(t), family })),
    },
    {
      type: 'number',
      // For an integer property, first a fraction whose integer part is in range: a server that truncates it would
      // store it, while one beyond the range is refused anyway. A coverage phase samples the first arbitrary of a kind.
      arb: (jsonType(p.schema) === 'integer'
        ? nonIntegerText().filter((t) => {
            const { min, max } = integerRange(p.schema);
            return Number(t) > Number(min) && Number(t) < Number(max);
          })
        : nonIntegerText()
      ).map((t) => ({
        reason: accepted.has('integer') ? `${p.name} ${t}` : of(`number (${t})`),
        text: constText(t),
        family: fraction,
      })),
    },
    {
      type: 'number',
      arb: nonIntegerText().map((t) => ({
        reason: accepted.has('integer') ? `${p.name} ${t}` : of(`number (${t})`),
        text: constText(t),
        family: fraction,
      })),
    },
    {
      type: 'boolean',
      arb: fc.constantFrom('true', 'false').map((t) => ({ reason: of('boolean'), text: constText(t), family })),
    },
    { type: 'null', arb: fc.constant({ reason: of('null'), text: constText('null'), family }) },
    { type: 'array', arb: fc.constant({ reason: of('array'), text: constText('[]'), family }) },
    {
      // Its own kind: frameworks that coerce take [7] for 7, and a run must send it whatever the seed.
      type: 'array',
      arb: valid.map((v) => ({
        reason: `${p.name} as a one-element array`,
        text: (m: string) => `[${v(m)}]`,
        family,
      })),
    },
    {
      type: 'object',
      arb: fc
        .oneof(
          fc.constant(constText('{}')),
          valid.map(
            (v): Text =>
              (m) =>
                `{"value":${v(m)}}`,
          ),
        )
        .map((text) => ({ reason: of('object'), text, family })),
    },
  ];
  return kinds.filter((k) => !accepted.has(k.type)).map((k) => k.arb);
}

/** Every invalid value the property's schema lets us derive. */
function mutations(p: PropertySpec, valid: fc.Arbitrary<Text>): fc.Arbitrary<Mutation>[] {
  const out = wrongTypes(p, valid);
  const values = enumOf(p.schema);
  if (values) {
    out.push(
      notEnumMember(values).map((v) => ({
        reason: `unknown ${p.name} ${JSON.stringify(v)}`,
        text: constText(JSON.stringify(v)),
        family: 'body-enum' as const,
      })),
    );
  }
  if (values && jsonType(p.schema) === 'string' && !values.includes('')) {
    // Its own kind: a validator that takes a falsy value for an absent one stores "" (drawn by chance otherwise).
    out.push(fc.constant({ reason: `empty ${p.name}`, text: constText('""'), family: 'body-enum' }));
  }
  if (jsonType(p.schema) === 'integer') {
    // Its own kind: a validator that converts to a double and checks "integer" with a tolerance takes these.
    out.push(
      nearIntegerText().map((t) => ({
        reason: `${p.name} near an integer (${t})`,
        text: constText(t),
        family: 'body-not-integer' as const,
      })),
    );
    const beyond = String(p.schema.format ?? 'range');
    out.push(
      beyondDigits(integerRange(p.schema)).map((d) => ({
        reason: `${p.name} beyond ${beyond} (${d})`,
        text: constText(d),
        family: 'body-int64-edge' as const,
      })),
    );
  }
  return out;
}

/** Cases that break the body as a whole: not an object, not JSON, not there. */
function wholeBodyCases(base: fc.Arbitrary<readonly Entry[]>): fc.Arbitrary<Case>[] {
  // Not an object: every required field is missing. Not JSON (or no body): nothing the parser can read.
  const missing: CaseFamily = 'body-required-missing';
  const unreadable: CaseFamily = 'body-unreadable';
  const fixed = (reason: string, family: CaseFamily, body: string | null): fc.Arbitrary<Case> =>
    fc.constant(() => ({ reason, body, family }));
  const fromBase = (reason: string, family: CaseFamily, f: (valid: string) => string): fc.Arbitrary<Case> =>
    base.map((entries) => (m: string) => ({ reason, body: f(render(entries, m)), family }));
  return [
    fixed('null body', missing, 'null'),
    fixed('array body', missing, '[]'),
    fromBase('array body', missing, (b) => `[${b}]`),
    fc.constantFrom('42', '0', '-1.5').map(
      (b): Case =>
        () => ({ reason: 'number body', body: b, family: missing }),
    ),
    fromBase('string body', missing, (b) => JSON.stringify(b)),
    fixed('boolean body', missing, 'true'),
    fc.tuple(base, fc.nat()).map(
      ([entries, n]): Case =>
        (m) => {
          const b = render(entries, m);
          return {
            reason: 'malformed JSON (truncated)',
            body: b.slice(0, 1 + (n % (b.length - 1))),
            family: unreadable,
          };
        },
    ),
    fromBase('malformed JSON (trailing comma)', unreadable, (b) => `${b.slice(0, -1)},}`),
    fromBase('malformed JSON (single quotes)', unreadable, (b) => b.replace(/"/g, "'")),
    fromBase('malformed JSON (unquoted keys)', unreadable, (b) => b.replace(/"([A-Za-z_]\w*)":/g, '$1:')),
    fixed('empty body', unreadable, ''),
    fixed('no body', unreadable, null),
  ];
}

/** One arbitrary per kind of invalid body, in a fixed order. */
function invalidCases(c: Contract): fc.Arbitrary<Case>[] {
  const props = propertiesOf(componentSchema('NewPet', c));
  const valids = props.map((p) => validValue(p));
  const base: fc.Arbitrary<readonly Entry[]> = fc
    .tuple(...valids)
    .map((texts) => props.map((p, i): Entry => [p.name, texts[i]!]));
  const cases: fc.Arbitrary<Case>[] = [];
  for (const p of props) {
    if (p.required) {
      cases.push(
        base.map(
          (entries): Case =>
            (m) => ({
              reason: `missing ${p.name}`,
              family: 'body-required-missing',
              field: p.name,
              body: render(
                entries.filter(([k]) => k !== p.name),
                m,
              ),
            }),
        ),
      );
    }
    for (const mutation of mutations(p, valids[props.indexOf(p)]!)) {
      cases.push(
        fc.tuple(base, mutation).map(
          ([entries, mut]): Case =>
            (m) => ({
              reason: mut.reason,
              family: mut.family,
              field: p.name,
              body: render(
                entries.map(([k, v]): Entry => [k, k === p.name ? mut.text : v]),
                m,
              ),
            }),
        ),
      );
    }
  }
  cases.push(...wholeBodyCases(base));
  return cases;
}

function withMarker([m, make]: [string, Case]): InvalidBody {
  const { reason, body, family, field } = make(m);
  return { reason, body, marker: body?.includes(m) ? m : null, family, ...(field !== undefined && { field }) };
}

export function invalidNewPet(c: Contract = loaded): fc.Arbitrary<InvalidBody> {
  return fc.tuple(markerName(), fc.oneof(...invalidCases(c))).map(withMarker);
}

/**
 * The same bodies as invalidNewPet, one arbitrary per kind: sampling each once sends every kind whatever the seed
 * (a coverage phase before random generation).
 */
export function invalidNewPetKinds(c: Contract = loaded): fc.Arbitrary<InvalidBody>[] {
  return invalidCases(c).map((kind) => fc.tuple(markerName(), kind).map(withMarker));
}

/** The kind of an invalid body, its reason without the values: 'categoryId of type string', 'unknown status'. */
export function invalidKind(inv: Pick<InvalidBody, 'reason'>): string {
  return inv.reason
    .replace(/\(.*\)|".*"|-?\d+(\.\d+)?([eE][+-]?\d+)?/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An invalid body as the case its findings carry: printed `invalid body: <kind>`, its variant the kind. */
export function invalidBodyCase(inv: Pick<InvalidBody, 'reason' | 'family' | 'field'>): CaseRef {
  const kind = invalidKind(inv);
  return caseRef(`invalid body: ${kind}`, inv.family, kind, inv.field);
}
