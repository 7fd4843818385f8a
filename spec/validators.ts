/**
 * One ajv validator compiled per (operation, status) and per request body, at load. Validation returns errors as data.
 * A schema that fails to compile throws at start: the harness never runs with a check silently disabled.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { contract, type JsonSchema, type OperationId } from './contract.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface SchemaError {
  readonly path: string;
  readonly keyword: string;
  readonly message: string;
  /** The validator's words without the path ('must be string'). */
  readonly rule: string;
  /** The validator's parameters (a `required` error's `missingProperty`, a `format` error's `format`). */
  readonly params: Readonly<Record<string, unknown>>;
}

const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true, validateFormats: true }));

function compile(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}

/** By operation, then status: asked for on every exchange, without building a key string each time. */
const responseValidators = new Map<OperationId, Map<number, ValidateFunction>>();
for (const op of contract.operations.values()) {
  const byStatus = new Map<number, ValidateFunction>();
  for (const r of op.responses.values()) {
    if (r.schema) byStatus.set(r.status, compile(r.schema));
  }
  responseValidators.set(op.id, byStatus);
}
const schemaValidators = new Map<string, ValidateFunction>(
  Object.entries(contract.schemas).map(([name, schema]) => [name, compile(schema)]),
);

function toErrors(errors: ErrorObject[] | null | undefined): SchemaError[] {
  return (errors ?? []).map((e) => ({
    path: e.instancePath || '/',
    keyword: e.keyword,
    message: `${e.instancePath || 'body'} ${e.message ?? e.keyword}`,
    rule: e.message ?? e.keyword,
    params: e.params as Record<string, unknown>,
  }));
}

/** Whether the operation documents a JSON body schema for this status. */
export function hasResponseSchema(op: OperationId, status: number): boolean {
  return responseValidators.get(op)?.has(status) ?? false;
}

/** Validates a parsed response body against the schema documented for (operation, status). */
export function validateResponseBody(op: OperationId, status: number, body: unknown): SchemaError[] {
  const v = responseValidators.get(op)?.get(status);
  if (!v) throw new Error(`spec: no schema for ${op} ${status}`);
  return v(body) ? [] : toErrors(v.errors);
}

/** Validates a value against a named component schema (Pet, NewPet, Error, ...). */
export function validateSchema(name: string, value: unknown): SchemaError[] {
  const v = schemaValidators.get(name);
  if (!v) throw new Error(`spec: no component schema ${name}`);
  return v(value) ? [] : toErrors(v.errors);
}
