/** The spec's clauses as data (clauses.yaml), loaded once. Checks cite these ids. */
import { readYamlData } from './yaml-data.js';

/**
 * must / should / gap are the spec's; harness is a rule of this tool (a run always ends), not of the spec: a finding
 * on it is a warning at most.
 */
export type ClauseLevel = 'must' | 'should' | 'gap' | 'harness';
export interface Clause {
  readonly id: string;
  readonly section: string;
  readonly level: ClauseLevel;
  readonly text: string;
  /** How a clause no check cites is covered: by the contract document, the configuration, or why it cannot be. */
  readonly coverage?: { readonly by: 'contract' | 'config' | 'not-observable' | 'never-assumed'; readonly why: string };
}

const LEVELS: readonly ClauseLevel[] = ['must', 'should', 'gap', 'harness'];
const COVERAGE: readonly string[] = ['contract', 'config', 'not-observable', 'never-assumed'];

/** The YAML is only cast to a type: a misspelt level or coverage would pass unnoticed, so it is checked at load. */
function validated(c: Clause): Clause {
  if (!LEVELS.includes(c.level)) throw new Error(`spec: clause ${c.id} has level ${c.level}, not one of ${LEVELS}`);
  if (c.coverage && !COVERAGE.includes(c.coverage.by))
    throw new Error(`spec: clause ${c.id} is covered by ${c.coverage.by}, not one of ${COVERAGE}`);
  return Object.freeze(c);
}

export const clauses: readonly Clause[] = Object.freeze(
  (readYamlData(new URL('./clauses.yaml', import.meta.url)) as Clause[]).map(validated),
);

const byId = new Map(clauses.map((c) => [c.id, c]));

export function clause(id: string): Clause {
  const c = byId.get(id);
  if (!c) throw new Error(`spec: unknown clause id ${id}`);
  return c;
}
