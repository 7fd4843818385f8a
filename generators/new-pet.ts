/**
 * Valid NewPet request bodies, derived from contract.schemas.NewPet: the status values are the PetStatus enum, the
 * categoryId range is its integer format, required properties are always present and optional ones sometimes absent.
 */
import fc from 'fast-check';
import { contract as loaded, type Contract, type JsonSchema } from '../spec/contract.js';
import { enumMember } from './enum.js';
import { integerDigits } from './integer.js';
import { isEdgeName, petName, prefixedName } from './names.js';
import {
  assertSupportedString,
  componentSchema,
  enumOf,
  integerRange,
  jsonType,
  propertiesOf,
  type PropertySpec,
} from './schema.js';

export interface GeneratedPet {
  readonly name: string;
  /** Exact decimal digits; may be beyond 2^53. */
  readonly categoryId: string;
  readonly status?: string;
  /** The name is an edge the spec leaves open (empty, whitespace-only or padded, long, control characters). */
  readonly nameEdge: boolean;
}

/** The properties validNewPet writes; a required property outside this set makes the generator refuse to build. */
const MODELLED = ['name', 'categoryId', 'status'] as const;

interface NewPetShape {
  readonly name: PropertySpec;
  readonly categoryId: PropertySpec;
  readonly status: PropertySpec;
}

/** The NewPet properties, checked against what GeneratedPet can carry. */
export function newPetShape(c: Contract = loaded): NewPetShape {
  const props = propertiesOf(componentSchema('NewPet', c));
  const byName = new Map(props.map((p) => [p.name, p]));
  for (const p of props) {
    if (p.required && !(MODELLED as readonly string[]).includes(p.name)) {
      throw new Error(`generators: NewPet requires ${p.name}, which GeneratedPet does not model`);
    }
  }
  const get = (name: string): PropertySpec => {
    const p = byName.get(name);
    if (!p) throw new Error(`generators: NewPet has no property ${name}`);
    return p;
  };
  const shape = { name: get('name'), categoryId: get('categoryId'), status: get('status') };
  if (jsonType(shape.name.schema) !== 'string') throw new Error('generators: NewPet.name is no longer a string');
  assertSupportedString(shape.name.schema, 'NewPet.name');
  if (jsonType(shape.categoryId.schema) !== 'integer')
    throw new Error('generators: NewPet.categoryId is no longer an integer');
  if (!enumOf(shape.status.schema)) throw new Error('generators: NewPet.status is no longer an enum');
  return shape;
}

/** Names within the schema's minLength/maxLength (JSON Schema counts code points), when it states any. */
function nameFor(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if (min === 0 && max === Infinity) return petName();
  return petName().filter((n) => {
    const length = [...n].length;
    return length >= min && length <= max;
  });
}

/** `namePrefix` marks plain names as the run's (see prefixedName); edge names are left as the case needs them. */
function withinSchema(name: string, schema: JsonSchema): string | null {
  const length = [...name].length;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  return length >= min && length <= max ? name : null;
}

export function validNewPet(c: Contract = loaded, options: { namePrefix?: string } = {}): fc.Arbitrary<GeneratedPet> {
  const shape = newPetShape(c);
  const statuses = enumMember(enumOf(shape.status.schema)!);
  const status = shape.status.required ? statuses : fc.option(statuses, { nil: undefined });
  return fc
    .record({
      name: nameFor(shape.name.schema),
      categoryId: integerDigits(integerRange(shape.categoryId.schema)),
      status,
    })
    .map(({ name: generated, categoryId, status }): GeneratedPet => {
      const name = withinSchema(prefixedName(options.namePrefix ?? '', generated), shape.name.schema) ?? generated;
      // Key order matches the body; an absent status is left out rather than printed as undefined.
      const base = { name, categoryId };
      const nameEdge = isEdgeName(name);
      return status === undefined ? { ...base, nameEdge } : { ...base, status, nameEdge };
    });
}

/** The raw JSON body: categoryId written as its digits, so no JS number ever rounds it. */
export function newPetBody(p: GeneratedPet): string {
  if (!/^-?(0|[1-9]\d*)$/.test(p.categoryId))
    throw new Error(`generators: categoryId is not integer digits: ${p.categoryId}`);
  const status = p.status === undefined ? '' : `,"status":${JSON.stringify(p.status)}`;
  return `{"name":${JSON.stringify(p.name)},"categoryId":${p.categoryId}${status}}`;
}
