/**
 * Reading the contract's schemas for generation. Generators ask these questions (which properties, which are required,
 * which JSON type, which enum, which integer range) instead of repeating answers the YAML already holds. Anything a
 * generator cannot honour (a pattern, a union it does not model) throws at construction: a generator that silently
 * ignored a constraint would produce "valid" values the spec rejects.
 */
import { INT64_MAX, INT64_MIN } from '../http/lossless.js';
import {
  contract as loaded,
  type Contract,
  type JsonSchema,
  type OperationId,
  type ParameterSpec,
} from '../spec/contract.js';

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null' | 'array' | 'object';

export interface PropertySpec {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly required: boolean;
}

/** An inclusive integer range, in bigint so int64 bounds stay exact. */
export interface IntegerRange {
  readonly min: bigint;
  readonly max: bigint;
}

export const INT64_RANGE: IntegerRange = Object.freeze({ min: INT64_MIN, max: INT64_MAX });
const INT32_RANGE: IntegerRange = Object.freeze({ min: -(2n ** 31n), max: 2n ** 31n - 1n });

export function componentSchema(name: string, c: Contract = loaded): JsonSchema {
  const schema = c.schemas[name];
  if (!schema) throw new Error(`generators: the contract has no component schema ${name}`);
  return schema;
}

/** The object schema's properties in declared order (the order bodies are written in). */
export function propertiesOf(schema: JsonSchema): readonly PropertySpec[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const name of required) {
    if (!(name in props)) throw new Error(`generators: required property ${name} has no schema`);
  }
  return Object.entries(props).map(([name, s]) => ({ name, schema: s, required: required.has(name) }));
}

export function propertyOf(schema: JsonSchema, name: string): PropertySpec {
  const p = propertiesOf(schema).find((x) => x.name === name);
  if (!p) throw new Error(`generators: schema has no property ${name}`);
  return p;
}

/** The JSON types a schema accepts. An integer-typed value is also a number, so `number` implies `integer`. */
export function acceptedTypes(schema: JsonSchema): ReadonlySet<JsonType> {
  let types: JsonType[];
  if (typeof schema.type === 'string') types = [schema.type as JsonType];
  else if (Array.isArray(schema.type)) types = schema.type as JsonType[];
  else if (Array.isArray(schema.enum)) types = (schema.enum as unknown[]).map(jsonTypeOfValue);
  else throw new Error(`generators: schema without a type: ${JSON.stringify(schema)}`);
  const set = new Set(types);
  if (set.has('number')) set.add('integer');
  return set;
}

/** The single JSON type of a schema; throws for unions, which no generator here models. */
export function jsonType(schema: JsonSchema): JsonType {
  if (typeof schema.type !== 'string')
    throw new Error(`generators: expected one type, got ${JSON.stringify(schema.type)}`);
  return schema.type as JsonType;
}

function jsonTypeOfValue(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as JsonType;
}

/** The enum's string values, or null when the schema has no enum. */
export function enumOf(schema: JsonSchema): readonly string[] | null {
  if (!Array.isArray(schema.enum)) return null;
  const values = schema.enum as unknown[];
  if (values.length === 0 || !values.every((v) => typeof v === 'string')) {
    throw new Error(`generators: only non-empty string enums are supported, got ${JSON.stringify(values)}`);
  }
  return values as string[];
}

export function isInt64Schema(schema: JsonSchema): boolean {
  return schema.type === 'integer' && schema.format === 'int64';
}

/**
 * The integers an integer schema admits: its format's range (int32, int64) narrowed by minimum/maximum. A JSON integer
 * with neither is unbounded; int64 is used then, because no service is expected to store more.
 */
export function integerRange(schema: JsonSchema): IntegerRange {
  if (schema.type !== 'integer') throw new Error(`generators: not an integer schema: ${JSON.stringify(schema)}`);
  const base = schema.format === 'int32' ? INT32_RANGE : INT64_RANGE;
  let { min, max } = base;
  const bound = (k: string): number | null => (typeof schema[k] === 'number' ? (schema[k] as number) : null);
  const minimum = bound('minimum');
  const exclusiveMinimum = bound('exclusiveMinimum');
  const maximum = bound('maximum');
  const exclusiveMaximum = bound('exclusiveMaximum');
  if (minimum !== null) min = bigMax(min, BigInt(Math.ceil(minimum)));
  if (exclusiveMinimum !== null) min = bigMax(min, BigInt(Math.floor(exclusiveMinimum)) + 1n);
  if (maximum !== null) max = bigMin(max, BigInt(Math.floor(maximum)));
  if (exclusiveMaximum !== null) max = bigMin(max, BigInt(Math.ceil(exclusiveMaximum)) - 1n);
  if (min > max) throw new Error(`generators: empty integer range in ${JSON.stringify(schema)}`);
  return { min, max };
}

/** The schema's integer default, or null when it documents none. */
export function integerDefault(schema: JsonSchema): bigint | null {
  return typeof schema.default === 'number' && Number.isInteger(schema.default) ? BigInt(schema.default) : null;
}

export function parametersOf(op: OperationId, where: 'query' | 'path', c: Contract = loaded): readonly ParameterSpec[] {
  const spec = c.operations.get(op);
  if (!spec) throw new Error(`generators: the contract has no operation ${op}`);
  return spec.parameters.filter((p) => p.in === where);
}

export function parameterOf(op: OperationId, name: string, c: Contract = loaded): ParameterSpec {
  const spec = c.operations.get(op);
  const p = spec?.parameters.find((x) => x.name === name);
  if (!p) throw new Error(`generators: ${op} has no parameter ${name}`);
  return p;
}

/** Throws when the schema carries a string constraint no generator here honours. */
export function assertSupportedString(schema: JsonSchema, where: string): void {
  for (const k of ['pattern', 'format', 'const']) {
    if (k in schema) throw new Error(`generators: ${where}: string keyword ${k} is not supported`);
  }
}

function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
