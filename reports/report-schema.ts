/**
 * The report's own JSON Schema (report.schema.json), compiled once. Reports are validated before they are written: an
 * invalid report is a bug of the harness, caught where it happens rather than by whoever reads the file next night.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const reportSchemaPath = fileURLToPath(new URL('./report.schema.json', import.meta.url));
const schema = JSON.parse(readFileSync(reportSchemaPath, 'utf8')) as object;
const validate = addFormats(new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true })).compile(schema);

/** Problems of a report against report.schema.json, as "path message" lines; empty when valid. */
export function reportSchemaErrors(report: unknown): string[] {
  return validate(report)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
}
