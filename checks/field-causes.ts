/**
 * Field causes (checks/cause.ts) from what a schema validator said of a body: one per failing path, with the schema's
 * name, the field, the problem, the value received and the run's markers of the item it belongs to. The checks that
 * validate bodies (body-schema, error-body-429) share it, so a field's failure is the same data whichever judged it.
 */
import type { SchemaError } from '../spec/validators.js';
import { show } from './check.js';
import { markersIn, type Cause, type FieldProblem } from './cause.js';

export type FieldCause = Extract<Cause, { kind: 'field' }>;

/** The keywords whose failure is a value out of the schema's range, length, pattern or enum. */
const VALUE_KEYWORDS = new Set([
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
]);

function problemOf(e: SchemaError): FieldProblem {
  if (e.keyword === 'required') return 'missing';
  if (e.keyword === 'type') return 'type';
  if (e.keyword === 'format') return e.params.format === 'int64' ? 'beyond-int64' : 'value';
  return VALUE_KEYWORDS.has(e.keyword) ? 'value' : 'schema';
}

const segmentsOf = (path: string): string[] =>
  path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The value at a JSON pointer, or undefined when there is none. */
export function valueAt(body: unknown, path: string): unknown {
  let v: unknown = body;
  for (const seg of segmentsOf(path)) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, seg)) return undefined;
    v = (v as Record<string, unknown>)[seg];
  }
  return v;
}

/** The last named (not array index) segment of a JSON pointer, or null. */
export function fieldOf(path: string): string | null {
  const named = segmentsOf(path).filter((s) => !/^\d+$/.test(s));
  return named[named.length - 1] ?? null;
}

/** A value as JSON text for a cause (its exact digits beyond 2^53; long texts cut as messages cut them). */
export const valueText = (v: unknown): string => show(v, 200);

/** The item of the body a path belongs to: an element of a top-level array, else the body. */
function itemOf(body: unknown, path: string): unknown {
  const first = segmentsOf(path)[0];
  return Array.isArray(body) && first !== undefined && /^\d+$/.test(first) ? body[Number(first)] : body;
}

/**
 * One field cause per failing path of `body` (the body as received, lossless: values keep their exact digits): the
 * validator's first error at a path speaks for it (a number that is no PetStatus fails its type and its enum).
 */
export function schemaCauses(schema: string, body: unknown, errors: readonly SchemaError[]): FieldCause[] {
  const out = new Map<string, FieldCause>();
  for (const e of errors) {
    const base = e.path === '/' ? '' : e.path;
    const missing = e.keyword === 'required' && typeof e.params.missingProperty === 'string';
    const path = missing
      ? `${base}/${String(e.params.missingProperty).replace(/~/g, '~0').replace(/\//g, '~1')}`
      : base;
    if (out.has(path)) continue;
    const value = missing ? undefined : valueAt(body, path);
    const markers = markersIn(itemOf(body, path));
    out.set(path, {
      kind: 'field',
      schema,
      path,
      field: missing ? String(e.params.missingProperty) : fieldOf(path),
      problem: problemOf(e),
      ...(value !== undefined && { value: valueText(value) }),
      ...(markers.length > 0 && { markers }),
      rule: e.rule,
    });
  }
  return [...out.values()];
}
