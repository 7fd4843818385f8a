/**
 * Validators for the files a run writes, from the libraries that define them: HAR 1.2 against har-schema (the JSON
 * Schemas of the HAR 1.2 spec, as har-validator uses them), XML well-formedness with fast-xml-parser's validator.
 */
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { XMLValidator } from 'fast-xml-parser';

const require = createRequire(import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let validateHar: ValidateFunction | null = null;

/** Problems of a document against the HAR 1.2 schema, as text; empty when valid. */
export function harProblems(doc: unknown): string[] {
  if (!validateHar) {
    const schemas = require('har-schema') as Record<string, object>;
    const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
    ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
    for (const schema of Object.values(schemas)) ajv.addSchema(schema);
    validateHar = ajv.getSchema('har.json#') as ValidateFunction;
  }
  if (validateHar(doc)) return [];
  return (validateHar.errors ?? []).slice(0, 5).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** Whether `text` is well-formed XML (true), or the parser's complaint. */
export function xmlProblem(text: string): string | null {
  const r = XMLValidator.validate(text);
  return r === true ? null : `${r.err.code} at line ${r.err.line}: ${r.err.msg}`;
}
