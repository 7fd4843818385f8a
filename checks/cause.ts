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
    }
  /** A header absent, malformed or wrong (`value` as received, null when absent). */
  | {
      readonly kind: 'header';
      readonly name: string;
      readonly problem: 'missing' | 'invalid' | 'wrong';
      readonly value: string | null;
    }
  /** A body served as another media type than the one documented. */
  | { readonly kind: 'media-type'; readonly received: string | null; readonly expected: string };
