/**
 * A case: one class of request a scenario sends, typed (issue 30). `name` is the printed case class (what findings,
 * baselines and reports show: it stays as it was); `family` is the class of input one cause in a target answers alike
 * (bodies the parser cannot read, petIds that are not int64 decimals), `variant` which member of it this is. Grouping
 * reads family and variant, never the printed name.
 */

/** Families of input: what one cause in a target answers alike. */
export type CaseFamily = string;

export interface CaseRef {
  /** The printed case class: `invalid body: missing name`, `robustness: charset=utf-16`, `petId non-numeric`. */
  readonly name: string;
  readonly family: CaseFamily;
  readonly variant: string;
  /** The Pet field the case is about, when it is about one (what a stored pet's consequence is traced by). */
  readonly field?: string;
}
