/**
 * What a finding says went wrong, as data (issue 30). Grouping (reports/defects.ts) reads these, never a message, and
 * messages are rendered from them. A check declares in `defineCheck` the kinds of cause it reports, and `finding()`
 * refuses any other kind, as it refuses an undeclared clause. A finding may carry several causes (a create echoing two
 * changed fields): each is grouped on its own.
 */

/** How a field of a body fails. */
export type FieldProblem =
  /** Absent where the schema requires it. */
  | 'missing'
  /** Of another JSON type than the schema's. */
  | 'type'
  /** Outside the schema's range, length, format or enum. */
  | 'value'
  /** An integer beyond int64, or one the target could not keep exactly. */
  | 'beyond-int64'
  /** Different from what was sent (a create's echo, a stored pet read back). */
  | 'changed'
  /** Any other failure of the schema at this path. */
  | 'schema';

export type Cause =
  /** An answer with another status than the case calls for (`expected`: the statuses that would have passed). */
  | { readonly kind: 'status'; readonly status: number; readonly expected: readonly number[] }
  /** The target crashed on the request: a 5xx, or the connection dropped while it answered. */
  | { readonly kind: 'crash'; readonly status: number | null; readonly code?: string }
  /** No answer at all (refused, timed out). */
  | { readonly kind: 'transport'; readonly code: string }
  /**
   * A field of a body: `schema` is the body's (Pet, Error, NewPet…), `path` the JSON pointer of the failing value
   * ('' for the body itself), `field` its last named segment. `value` is the value received (JSON text), `sent` the
   * value sent when it was changed on the way; `markers` the run's markers of the pet it belongs to.
   */
  | {
      readonly kind: 'field';
      readonly schema: string;
      readonly path: string;
      readonly field: string | null;
      readonly problem: FieldProblem;
      readonly value?: string;
      readonly sent?: string;
      readonly markers?: readonly string[];
      /** What the schema asks of the value, in its validator's words ('must be string'), when a schema said so. */
      readonly rule?: string;
    }
  /** A header absent, malformed or wrong (`value` as received, null when absent). */
  | {
      readonly kind: 'header';
      readonly name: string;
      readonly problem: 'missing' | 'invalid' | 'wrong';
      readonly value: string | null;
      /**
       * The X-RateLimit-Limit the header was judged against, as received (Remaining above it): a wrong Limit's
       * consequences share its value.
       */
      readonly limit?: string;
    }
  /**
   * A body served as another media type than the one documented (`received`: its Content-Type, null when absent);
   * `body: 'not-json'` when the body itself is no JSON whatever its Content-Type says.
   */
  | {
      readonly kind: 'media-type';
      readonly received: string | null;
      readonly expected: string;
      readonly body?: 'not-json';
    }
  /**
   * A rate limit or quota counted or enforced against the plan wrongly. `plan` is the key's (its label when the run
   * holds two of a plan), `window` the limit's, `limit` the plan's number judged against, `observed` what the run
   * counted (requests accepted, a Remaining), `reported` the X-RateLimit-Limit the target sent, when one was read.
   */
  | {
      readonly kind: 'limit';
      readonly plan: string;
      readonly window: 'minute' | 'day';
      readonly problem: LimitProblem;
      readonly limit: number | null;
      readonly observed: number | null;
      readonly reported?: number | null;
    }
  /**
   * The store contradicts itself or what was sent: an animal created and not retrievable or not listed, a refused body
   * stored, an id given twice or taken from the client. `field` names the field when one is at fault, `id` the
   * animal's id, `value` what the target showed and `expected` what it should have.
   */
  | {
      readonly kind: 'state';
      readonly problem: StateProblem;
      readonly field: string | null;
      readonly id?: string;
      readonly value?: string;
      readonly expected?: string;
    }
  /** A list query parameter (`limit`, its default, `status`) the answer did not honour: `value` asked, `observed` got. */
  | {
      readonly kind: 'query';
      readonly parameter: string;
      readonly value: string;
      readonly observed: string;
    }
  /** Answers of one class of request that kept slowing down (a harness budget, no requirement of the spec). */
  | { readonly kind: 'latency'; readonly requestClass: string; readonly baselineMs: number; readonly latestMs: number }
  /**
   * What the target did where the spec is silent (`clause`, a gap's id): an observation's record, never a defect.
   * `finding()` allows it on observations only.
   */
  | { readonly kind: 'gap'; readonly clause: string; readonly answer: string };

/** How a rate limit or quota fails. */
export type LimitProblem =
  /** Refused before the plan's limit or the Remaining the target reported. */
  | 'stricter'
  /** Accepted beyond the limit (and what refill explains), or never refused. */
  | 'not-enforced'
  /** Two keys of different plans report one limit, or one key's requests counted against another. */
  | 'not-per-key'
  /** Another operation of a limited key shows a fresh allowance. */
  | 'per-operation'
  /** A request after waiting Retry-After still refused: Retry-After too short, or the window never reset. */
  | 'retry-after-short'
  /** Rejected requests consumed quota or extended the window. */
  | 'rejected-counted'
  /** A key that honoured Retry-After refused anyway (a ban). */
  | 'banned'
  /** The daily reset announced before the minute window's. */
  | 'reset'
  /** Requests in another accepted Authorization form not counted against the key (`observed`: Remaining after). */
  | 'form-not-counted';

/** How the store contradicts itself. */
export type StateProblem =
  /** A created animal is not fetched back (another status than 200). */
  | 'not-retrievable'
  /** A created animal is missing from a list that should show it. */
  | 'not-listed'
  /** A stored field differs from the one created or sent. */
  | 'changed'
  /** A body refused with 400 was stored anyway. */
  | 'refused-stored'
  /** One id given to two animals. */
  | 'duplicate-id'
  /** The id the client sent was taken instead of one assigned. */
  | 'client-id';

export type CauseKind = Cause['kind'];

/** Every kind of cause, for a catalogue or a test to read (the type check keeps it whole: see below). */
export const CAUSE_KINDS = [
  'status',
  'crash',
  'transport',
  'field',
  'header',
  'media-type',
  'limit',
  'state',
  'query',
  'latency',
  'gap',
] as const satisfies readonly CauseKind[];
/** A kind added to the union and not to CAUSE_KINDS fails the type check here. */
const causeKindsWhole: [Exclude<CauseKind, (typeof CAUSE_KINDS)[number]>] extends [never] ? true : never = true;
void causeKindsWhole;

/** A header's value as a message shows it: a target's header may be kilobytes long. */
const short = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max)}…` : text);

const ms = (n: number): string => `${Math.round(n * 10) / 10} ms`;

/** Where a field is, as the validator names it: its path, or `body` for the body itself. */
const where = (path: string): string => path || 'body';

/** The parent path of a JSON pointer ('' for a top-level member). */
const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

function fieldText(c: Extract<Cause, { kind: 'field' }>): string {
  const received = c.value !== undefined ? `: received ${c.value}` : '';
  const name = c.field ?? where(c.path);
  switch (c.problem) {
    case 'missing':
      return c.field !== null
        ? `${where(parentOf(c.path))} must have required property '${c.field}'`
        : `${where(c.path)} missing`;
    case 'changed':
      return `${name} ${c.value ?? 'absent'} (sent ${c.sent ?? 'nothing'})`;
    case 'beyond-int64':
      // As a validator said it (body-schema), or as the exact digits say it (int64-exact): the field and its digits.
      return c.rule !== undefined ? `${where(c.path)} ${c.rule}${received}` : `${name} ${c.value ?? '?'}`;
    case 'type':
      return `${where(c.path)} ${c.rule ?? 'is of another type'}${received}`;
    case 'value':
      return `${where(c.path)} ${c.rule ?? 'is out of range'}${received}`;
    case 'schema':
      return `${where(c.path)} ${c.rule ?? `fails ${c.schema}`}${received}`;
  }
}

function limitText(c: Extract<Cause, { kind: 'limit' }>): string {
  const of = `the ${c.plan} key's ${c.window === 'day' ? 'daily quota' : 'minute limit'}${c.limit !== null ? ` (${c.limit})` : ''}`;
  const got = c.observed !== null ? `: ${c.observed}` : '';
  switch (c.problem) {
    case 'stricter':
      return `${of} enforced before it was reached${got}`;
    case 'not-enforced':
      return `${of} not enforced${got}`;
    case 'not-per-key':
      return `${of} not kept per key${c.reported != null ? ` (X-RateLimit-Limit ${c.reported})` : ''}`;
    case 'per-operation':
      return `${of} counted per operation, not per key${got}`;
    case 'retry-after-short':
      return `${of}: refused after waiting Retry-After`;
    case 'rejected-counted':
      return `${of} charged with rejected requests${got}`;
    case 'form-not-counted':
      return `${of} not charged with requests in another accepted Authorization form${got}`;
    case 'banned':
      return `${of}: refused after Retry-After was honoured (a ban)`;
    case 'reset':
      return `${of} resets before the minute window${got}`;
  }
}

const STATE_WORDS: Record<StateProblem, string> = {
  'not-retrievable': 'a created animal is not retrievable',
  'not-listed': 'a created animal is not listed',
  changed: 'a stored animal differs from the one created',
  'refused-stored': 'a refused body was stored',
  'duplicate-id': 'one id was given to two animals',
  'client-id': "the client's id was taken",
};

/** What a state cause adds to its problem: the field and value shown, what was expected ('' when nothing). */
function stateDetail(c: Extract<Cause, { kind: 'state' }>): string {
  // An id field whose value is the animal's id says nothing the "(id …)" does not.
  const value = c.field === 'id' && c.value === c.id ? undefined : c.value;
  return [
    c.field !== null && value !== undefined ? `${c.field} ${value}` : c.field === 'id' ? undefined : (c.field ?? value),
    c.expected !== undefined ? `expected ${c.expected}` : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(', ');
}

/** One cause in short English (one line): what the messages of findings say first, so words and data agree. */
export function causeText(c: Cause): string {
  switch (c.kind) {
    // A message's second line says what is documented: the status and the crash say what was received, no more.
    case 'status':
      return `received ${c.status}`;
    case 'crash':
      return c.status !== null
        ? `received ${c.status}${c.code ? ` (${c.code})` : ''}`
        : `the connection dropped${c.code ? ` (${c.code})` : ''}`;
    case 'transport':
      return `received no HTTP answer (${c.code})`;
    case 'field':
      return fieldText(c);
    case 'header': {
      const what = c.problem === 'missing' ? 'missing' : `${c.problem} ${short(c.value ?? '')}`.trim();
      return `${c.name} ${what}${c.limit !== undefined ? ` (X-RateLimit-Limit ${c.limit})` : ''}`;
    }
    case 'media-type':
      // A body that is no JSON says so, whatever its Content-Type claims (application/json, often).
      return c.body === 'not-json'
        ? `a body that is not JSON (Content-Type ${c.received ?? 'absent'})`
        : `Content-Type ${c.received ?? 'absent'}, not ${c.expected}`;
    case 'limit':
      return limitText(c);
    case 'state': {
      const detail = stateDetail(c);
      return `${STATE_WORDS[c.problem]}${c.id !== undefined ? ` (id ${c.id})` : ''}${detail ? `: ${detail}` : ''}`;
    }
    case 'query':
      return `${c.parameter} ${c.value} not honoured: ${c.observed}`;
    case 'latency':
      return `${c.requestClass} slowed from ${ms(c.baselineMs)} to ${ms(c.latestMs)}`;
    case 'gap':
      return `${c.answer} (${c.clause}: the spec is silent)`;
  }
}

/** A finding's causes in their words, the first `shown` of them and how many more: a message's first line. */
export function causesText(causes: readonly Cause[], shown = 3): string {
  const more = causes.length > shown ? ` (+${causes.length - shown})` : '';
  const words = causes.slice(0, shown).map((c, i) => {
    const prev = causes[i - 1];
    // Two fields of one animal with one problem: the problem and the id are said once.
    return c.kind === 'state' && prev?.kind === 'state' && prev.problem === c.problem && prev.id === c.id
      ? stateDetail(c) || causeText(c)
      : causeText(c);
  });
  return `${short(words.join('; '), CAUSES_TEXT_MAX)}${more}`;
}

/** Characters of a message's first line the causes take at most (each cause's data is whole in `causes`). */
const CAUSES_TEXT_MAX = 400;

/** The run's markers (`psc-marker-<16 hex>`, generators/invalid-new-pet.ts) a value carries anywhere, each once. */
export function markersIn(value: unknown): readonly string[] {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? value
        : (JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) ?? '');
  } catch {
    return [];
  }
  return [...new Set(text.match(MARKER) ?? [])];
}

const MARKER = /psc-marker-[0-9a-f]{16}/g;
