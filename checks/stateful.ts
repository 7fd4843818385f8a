/**
 * The model test's agreement with the target. The stateful scenario keeps a model of the pets this run created and
 * hands over, for each step, what the model expects; this check compares it with what the target answered.
 */
import type { Exchange } from '../http/exchange.js';
import { digits } from '../http/lossless.js';
import { defineCheck, finding, show, type Check, type Finding, type Said } from './check.js';
import { markersIn, type Cause } from './cause.js';
import { valueText, type FieldCause } from './field-causes.js';
import { isObject, jsonOf, opLabel, isAnswered, statusOf } from './facts.js';

/** A pet as the model knows it: the fields it was created with (status as the target answered it). */
export interface ModelPet {
  readonly name: unknown;
  /** Exact digits. */
  readonly categoryId: string | null;
  readonly status: unknown;
}

export type ModelEvidence =
  /** A 201: the model expects an id that none of the pets it holds has. */
  | { readonly kind: 'created'; readonly exchange: Exchange; readonly knownIds: readonly string[] }
  /** GET /pets/{id} of a pet the model holds: 200 with the model's fields. */
  | { readonly kind: 'fetched'; readonly exchange: Exchange; readonly id: string; readonly pet: ModelPet }
  /** A list: wherever it shows a pet the model holds, it shows the model's fields. */
  | { readonly kind: 'listed'; readonly exchange: Exchange; readonly pets: ReadonlyMap<string, ModelPet> };

interface Seen {
  readonly id: string | null;
  readonly name: unknown;
  readonly categoryId: string | null;
  readonly status: unknown;
}

function seen(value: unknown): Seen | null {
  if (!isObject(value)) return null;
  return { id: digits(value.id), name: value.name, categoryId: digits(value.categoryId), status: value.status };
}

const sameFields = (m: ModelPet, p: Seen): boolean =>
  p.name === m.name && p.categoryId === m.categoryId && p.status === m.status;

/** Digits the model keeps of a JSON number, shown as the number they are (exact beyond 2^53). */
const asNumber = (d: string | null): unknown => (d !== null && /^-?\d+$/.test(d) ? BigInt(d) : d);

const describe = (id: string, m: ModelPet): string =>
  show({
    id: asNumber(id),
    name: m.name,
    categoryId: asNumber(m.categoryId),
    ...(m.status !== undefined ? { status: m.status } : {}),
  });

/**
 * A finding of the target disagreeing with the model: its first line says the causes (`lead` and `on` around them),
 * its second what the model expects.
 */
function disagree(
  ex: Exchange,
  said: Omit<Said, 'because'>,
  expected: string,
  actual: string,
  causes: readonly Cause[],
): Finding {
  return finding(
    modelConsistency,
    ex,
    { ...said, because: `the model of the spec expects ${expected.slice(0, 200)}` },
    { expected, actual, causes },
  );
}

/** A value of a pet as a cause shows it: ids and categories by their digits, the rest as JSON text. */
const fieldValue = (field: string, v: unknown): string | undefined =>
  v === undefined || v === null
    ? v === null
      ? 'null'
      : undefined
    : field === 'categoryId' || field === 'id'
      ? String(v)
      : valueText(v);

/** One field cause per field the target shows otherwise than the model holds it (`sent`: the model's). */
function fieldCauses(at: string, got: Seen, model: ModelPet & { readonly id?: string }, item: unknown): FieldCause[] {
  const markers = markersIn(item);
  const out: FieldCause[] = [];
  const fields: [string, unknown, unknown][] = [
    ['id', got.id, model.id],
    ['name', got.name, model.name],
    ['categoryId', got.categoryId, model.categoryId],
    ['status', got.status, model.status],
  ];
  for (const [field, mine, theirs] of fields) {
    if (field === 'id' && model.id === undefined) continue;
    if (mine === theirs) continue;
    const value = fieldValue(field, mine);
    out.push({
      kind: 'field',
      schema: 'Pet',
      path: `${at}/${field}`,
      field,
      problem: 'changed',
      ...(value !== undefined && { value }),
      sent: fieldValue(field, theirs) ?? 'absent',
      ...(markers.length > 0 && { markers }),
    });
  }
  return out;
}

export const modelConsistency: Check<ModelEvidence, 'model-consistency'> = defineCheck({
  id: 'model-consistency',
  clauses: ['4.2-create-retrievable'],
  levels: ['violation'],
  causes: ['field', 'state'],
  area: 'stateful',
  title: 'The target agrees with a model of the catalogue across a sequence of operations.',
  appliesTo: {
    what: 'answers to creates, gets and lists compared with a model of the store',
    test: ({ exchange: ex }) => isAnswered(ex),
  },
  run: (ev) => {
    const ex = ev.exchange;
    const status = statusOf(ex);
    // 429 is documented everywhere: the model cannot know what the target would have answered.
    if (status === null || status === 429) return [];
    if (ev.kind === 'created') {
      // Anything but a 201 with an id is create-201's and the schema's business.
      const id = status === 201 ? (seen(jsonOf(ex))?.id ?? null) : null;
      if (id === null || !ev.knownIds.includes(id)) return [];
      return [
        disagree(
          ex,
          { on: `in the 201 for ${opLabel(ex)}` },
          `a new id, not one of the ${ev.knownIds.length} this run created`,
          `id ${id} (already assigned to another pet)`,
          [{ kind: 'state', problem: 'duplicate-id', field: 'id', id, value: id }],
        ),
      ];
    }
    if (ev.kind === 'fetched') {
      const body = jsonOf(ex);
      const got = status === 200 ? seen(body) : null;
      if (got !== null && got.id === ev.id && sameFields(ev.pet, got)) return [];
      // Not fetched back at all, or fetched with fields the model does not hold: one cause per such field.
      const causes: Cause[] =
        got === null
          ? [
              {
                kind: 'state',
                problem: 'not-retrievable',
                field: null,
                id: ev.id,
                value: String(status),
                expected: '200',
              },
            ]
          : fieldCauses('', got, { ...ev.pet, id: ev.id }, body);
      // A field cause says what it received; a 200 whose body is no object says so before its cause.
      const said =
        got !== null
          ? { lead: 'received', on: `for ${opLabel(ex)} of pet ${ev.id}` }
          : { ...(status === 200 && { lead: 'received a body that is no Pet object:' }), on: `for ${opLabel(ex)}` };
      return [
        disagree(ex, said, `200 with ${describe(ev.id, ev.pet)}`, `${status} with ${show(body ?? null)}`, causes),
      ];
    }
    const body = jsonOf(ex);
    if (status !== 200 || !Array.isArray(body)) return [];
    const out: Finding[] = [];
    for (const [i, item] of body.entries()) {
      const got = seen(item);
      if (got === null || got.id === null) continue;
      const mine = ev.pets.get(got.id);
      if (!mine || sameFields(mine, got)) continue;
      // The item as the target sent it (its numbers as numbers) is the actual; the message says the fields that differ.
      const causes = fieldCauses(`/${i}`, got, mine, item);
      out.push(
        disagree(
          ex,
          { lead: 'received', on: `for pet ${got.id}` },
          `pet ${got.id} listed as created: ${describe(got.id, mine)}`,
          show(item),
          causes,
        ),
      );
    }
    return out;
  },
});
