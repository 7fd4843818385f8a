/**
 * Defects, not signatures: a pure function from a run's findings to the causes they show, in small passes over data
 * (ARCHITECTURE.md, "Defects: one per cause"): units (one per signature and cause, each cause of a finding on its
 * own), families (units of one check and operation whose inputs share a family and whose answers share a status
 * class), scope (server-wide, key-wide, one field on several operations, one wrong answer to several families, an
 * Error lacking several members) and consequences (echoes, stored pets, traced values, pairs) folded under the defect
 * that explains them, still listed. The passes read `Finding.causes` and `Finding.case`, never a message: nothing is
 * dropped, every signature with its count and findings stays under its defect.
 */
import type { Cause } from '../checks/cause.js';
import type { Finding, Level } from '../checks/check.js';
import type { CheckId } from '../checks/check-id.js';
import { CASE_FAMILIES, type CaseFamily } from '../generators/case.js';
import { checkById, signatureOf, signatureText } from '../checks/registry.js';
import { exampleRank, occurrenceKey } from '../runner/findings.js';
import { foldConsequences } from './defect-folds.js';
import {
  CHANGED_WORDS,
  CRASH_CHECKS,
  ERROR_MEMBERS,
  FIELD_WIDE,
  HEADERS_MISSING,
  ITEM_SCHEMAS,
  KEY_WIDE,
  ORDINARY_FAMILIES,
  PROBLEM_WORDS,
  SAME_ANSWER,
  SERVER_WIDE,
} from './defect-rules.js';

/** One signature's evidence under a defect (the part of it, when a finding carried several causes). */
export interface SignatureEvidence {
  /** The signature in words: `no-5xx · createPet · invalid body: categoryId of type null`. */
  readonly signature: string;
  readonly checkId: string;
  readonly operation: string | null;
  readonly caseClass: string | null;
  readonly level: Level;
  readonly clause: string;
  /** How many times the signature was seen in the run (kept findings or more). */
  readonly occurrences: number;
  /** Indexes into the report's findings. */
  readonly findings: readonly number[];
  /** For a signature split by cause: the cause this part is about (`Pet /name missing`). */
  readonly part?: string;
}

/** A signature folded under a defect: a consequence of its cause, with the rule that says so. */
export interface FoldedEvidence extends SignatureEvidence {
  readonly rule: string;
  readonly reason: string;
  /** The consequence in words, as it would read as a defect of its own (its signatures grouped). */
  readonly seenAs: string;
}

/** One defect: one cause, its own evidence and what it was also seen as. */
export interface Defect {
  /** The defect in words (the baseline's key): a lone signature's words, or check · scope · variant. */
  readonly signature: string;
  /** The grouping rules that joined its signatures (empty: one signature). */
  readonly rules: readonly string[];
  /** The head: the check whose finding names the cause. */
  readonly checkId: string;
  /** Its operation when it has one; null when seen on several (see `operations`). */
  readonly operation: string | null;
  /** Its case class, or the family's name when variants were grouped. */
  readonly caseClass: string | null;
  readonly level: Level;
  readonly clause: string;
  /** Occurrences of its own signatures. */
  readonly occurrences: number;
  /** Its own findings, the smallest failing example first. */
  readonly findings: readonly number[];
  readonly operations: readonly string[];
  readonly statuses: readonly number[];
  /** The case classes it was seen with. */
  readonly variants: readonly string[];
  /** Where it applies to every operation exercised. */
  readonly serverWide: boolean;
  readonly signatures: readonly SignatureEvidence[];
  /** Consequences folded under it. */
  readonly alsoSeenAs: readonly FoldedEvidence[];
}

export const SEVERITY: Record<Level, number> = { violation: 0, warning: 1, observation: 2 };

/** The exchanges a finding is about, as keys unique within the run (sequence numbers restart in each suite). */
export const exchangeKeys = (f: Finding): string[] => f.exchanges.map((e) => `${f.suite ?? ''}#${e.seq}`);

// --- Pass 1: units ---------------------------------------------------------------------------------------------

/** Which answers a unit is about: accepted (2xx), refused or crashed (any other status), or none came. */
export type StatusClass = '2xx' | 'not-2xx' | 'none';

/** Evidence in the making: the findings of one signature that show one cause. */
export interface Unit {
  readonly sigKey: string;
  readonly signature: string;
  readonly checkId: CheckId;
  readonly operation: string | null;
  readonly caseClass: string | null;
  readonly level: Level;
  readonly clause: string;
  /** The case's family ('ordinary' for an ordinary request or none), and its variant. */
  readonly family: string;
  readonly variant: string | null;
  readonly statusClass: StatusClass;
  /** The cause this unit is about (null: the finding carries none), its key and its words. */
  readonly cause: Cause | null;
  readonly causeKey: string;
  readonly part: string | null;
  occurrences: number;
  readonly findings: number[];
  /** The causes of this key each finding carried (a field on several pets of one list is one cause, several values). */
  readonly causes: Cause[];
}

export function statusClassOf(status: number | null | undefined): StatusClass {
  if (status === null || status === undefined) return 'none';
  return status >= 200 && status < 300 ? '2xx' : 'not-2xx';
}

/** A JSON pointer without its array indexes: `/0/name` and `/3/name` are one place of a list's pets. */
const placeOf = (path: string): string =>
  path
    .split('/')
    .filter((s) => s !== '' && ![...s].every((ch) => ch >= '0' && ch <= '9'))
    .map((s) => `/${s}`)
    .join('');

/** A cause's key (what tells two causes of one check apart) and its words as a part of the signature. */
export function causeKeyOf(checkId: CheckId, c: Cause): { key: string; part: string | null } {
  switch (c.kind) {
    case 'field': {
      const place = placeOf(c.path);
      const schema = ITEM_SCHEMAS[c.schema] ?? c.schema;
      if (c.problem === 'changed' || c.problem === 'beyond-int64') {
        const word = c.problem === 'changed' ? (CHANGED_WORDS[checkId] ?? 'changed') : PROBLEM_WORDS[c.problem];
        return { key: `field ${schema} ${place} ${c.problem}`, part: `${c.field ?? place} ${word}` };
      }
      const word = PROBLEM_WORDS[c.problem];
      const part = `${schema} ${place || '(body)'}${word ? ` ${word}` : ''}`;
      return { key: `field ${schema} ${place} ${word}`, part };
    }
    case 'crash':
      return { key: `crash ${c.status ?? 'dropped'}`, part: null };
    case 'header':
      return { key: `header ${c.name.toLowerCase()} ${c.problem}`, part: null };
    case 'state':
      return { key: `state ${c.problem} ${c.field ?? ''}`, part: null };
    case 'limit':
      return { key: `limit ${c.window} ${c.problem}`, part: null };
    case 'query':
      return { key: `query ${c.parameter}`, part: null };
    default:
      return { key: c.kind, part: null };
  }
}

/** A finding's causes: its own, or (a crash check's finding that carries none) the crash its first exchange shows. */
export function causesOf(f: Finding): readonly (Cause | null)[] {
  if (f.causes && f.causes.length > 0) return f.causes;
  if (f.checkId in CRASH_CHECKS) return [{ kind: 'crash', status: f.exchanges[0]?.status ?? null }];
  return [null];
}

/** The family of a finding's input: its case's, 'ordinary' for none, its printed class when it has no typed case. */
export function familyOf(f: Finding): { family: string; variant: string | null } {
  // A check whose signature is its operation (a header missing whatever was sent) judges every family alike.
  if (checkById(f.checkId).signature === 'operation') return { family: 'any', variant: f.case?.variant ?? null };
  if (f.case) return { family: f.case.family, variant: f.case.variant };
  return { family: f.caseClass ?? 'ordinary', variant: f.caseClass };
}

function newUnit(f: Finding, cause: Cause | null): Unit {
  const sig = signatureOf(f);
  const { key: causeKey, part } = cause ? causeKeyOf(f.checkId, cause) : { key: '', part: null };
  return {
    ...{ sigKey: occurrenceKey(f), signature: signatureText(sig), checkId: f.checkId, operation: sig.operation },
    ...{ caseClass: sig.caseClass, level: f.level, clause: f.clause, ...familyOf(f) },
    ...{ statusClass: statusClassOf(f.exchanges[0]?.status), cause, causeKey, part },
    ...{ occurrences: 0, findings: [], causes: [] },
  };
}

/** Pass 1: one unit per signature and cause; a finding with several causes is in as many units. */
export function unitsOf(findings: readonly Finding[], counts: ReadonlyMap<string, number>): Unit[] {
  const units = new Map<string, Unit>();
  findings.forEach((f, i) => {
    if (f.level === 'observation') return;
    for (const cause of causesOf(f)) {
      const key = `${occurrenceKey(f)}|${cause ? causeKeyOf(f.checkId, cause).key : ''}`;
      const u = units.get(key) ?? newUnit(f, cause);
      units.set(key, u);
      if (u.findings.at(-1) !== i) u.findings.push(i);
      if (cause) u.causes.push(cause);
    }
  });
  // A signature of one cause counts every occurrence the run counted; one split in parts, what each part kept.
  const parts = new Map<string, number>();
  for (const u of units.values()) parts.set(u.sigKey, (parts.get(u.sigKey) ?? 0) + 1);
  for (const u of units.values())
    u.occurrences =
      parts.get(u.sigKey) === 1 ? Math.max(counts.get(u.sigKey) ?? 0, u.findings.length) : u.findings.length;
  return [...units.values()];
}

// --- Pass 2: families ------------------------------------------------------------------------------------------

/** A defect in the making: units, the rules that joined them, where it was seen. */
export interface Group {
  readonly key: string;
  readonly units: Unit[];
  readonly rules: Set<string>;
  serverWide: boolean;
  scope: string | null;
}

export const isOrdinary = (family: string): boolean => family in ORDINARY_FAMILIES;

/**
 * What a unit's group is, operation aside: a crash by its status and family (whichever check and phase saw it), a
 * field by its check and cause, any other unit by its check, family, status class and cause.
 */
export function familyKeyOf(u: Unit): string {
  if (u.checkId in CRASH_CHECKS) return `crash|${u.causeKey}|${u.family}`;
  // A field of a body the target wrote fails alike whatever provoked the answer: one serializer (FIELD_WIDE).
  if (u.cause?.kind === 'field') return `${u.checkId}|${u.causeKey}`;
  // A check judged whatever was sent judges every answer alike: its status class tells nothing apart either.
  if (u.family === 'any') return `${u.checkId}|any|${u.causeKey}`;
  return `${u.checkId}|${u.family}|${u.statusClass}|${u.causeKey}`;
}

/** Pass 2: units of one operation and family key join; each group lists its units' variants. */
export function familiesOf(units: readonly Unit[]): Group[] {
  const groups = new Map<string, Group>();
  for (const u of units) {
    const key = `${familyKeyOf(u)}|${u.operation}`;
    const g = groups.get(key) ?? { key, units: [], rules: new Set<string>(), serverWide: false, scope: u.operation };
    g.units.push(u);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    g.units.sort((a, b) => SEVERITY[a.level] - SEVERITY[b.level] || b.occurrences - a.occurrences);
    if (new Set(g.units.map((u) => u.caseClass)).size > 1 && !isOrdinary(g.units[0]!.family))
      g.rules.add(`family:${g.units[0]!.family}`);
  }
  return [...groups.values()];
}

// --- Pass 3: scope ---------------------------------------------------------------------------------------------

const opsOf = (g: Group): string[] =>
  [...new Set(g.units.map((u) => u.operation).filter((o): o is string => o !== null))].sort();

function merged(groups: readonly Group[], key: string, rule: string | null): Group {
  const units = groups.flatMap((g) => g.units);
  units.sort((a, b) => SEVERITY[a.level] - SEVERITY[b.level] || b.occurrences - a.occurrences);
  const rules = new Set(groups.flatMap((g) => [...g.rules]));
  if (rule) rules.add(rule);
  const g: Group = { key, units, rules, serverWide: groups.some((x) => x.serverWide), scope: null };
  const ops = opsOf(g);
  g.scope = g.serverWide ? 'every operation' : ops.length ? ops.join(', ') : null;
  return g;
}

/** Joins the groups `keyOf` gives one key (null: left alone), with `rule` when more than one joined. */
function joinBy(groups: readonly Group[], keyOf: (g: Group) => string | null, rule: (gs: Group[]) => string | null) {
  const byKey = new Map<string, Group[]>();
  const out: Group[] = [];
  for (const g of groups) {
    const k = keyOf(g);
    if (k === null) out.push(g);
    else byKey.set(k, [...(byKey.get(k) ?? []), g]);
  }
  for (const [k, gs] of byKey) out.push(gs.length === 1 ? gs[0]! : merged(gs, k, rule(gs)));
  return out;
}

/** Across operations: server-wide (every operation exercised), key-wide (a key's counter), one field on several. */
export function acrossOperations(groups: readonly Group[], exercised: ReadonlySet<string>): Group[] {
  const byKey = new Map<string, Group[]>();
  for (const g of groups) {
    const k = familyKeyOf(g.units[0]!);
    byKey.set(k, [...(byKey.get(k) ?? []), g]);
  }
  return [...byKey.values()].flatMap((gs) => {
    const ops = new Set(gs.flatMap(opsOf));
    const head = gs[0]!.units[0]!;
    const everyOp =
      ops.size >= SERVER_WIDE.minOperations &&
      exercised.size >= SERVER_WIDE.minOperations &&
      [...exercised].every((o) => ops.has(o));
    const keyWide = KEY_WIDE.checks.includes(head.checkId);
    const fieldWide = head.cause?.kind === 'field';
    if (ops.size < 2 || !(everyOp || keyWide || fieldWide)) return gs;
    const rule = everyOp ? SERVER_WIDE.id : keyWide ? KEY_WIDE.id : FIELD_WIDE.id;
    const g = merged(gs, familyKeyOf(head), rule);
    g.serverWide = everyOp;
    if (everyOp) g.scope = 'every operation';
    return [g];
  });
}

/** The one status a group refused with, for a check that says so (SAME_ANSWER), else null. */
export function refusedWith(g: Group): number | null {
  const head = g.units[0]!;
  if (!(head.checkId in SAME_ANSWER) || head.statusClass !== 'not-2xx') return null;
  const statuses = new Set(g.units.flatMap((u) => u.causes.map((c) => (c.kind === 'status' ? c.status : -1))));
  const [only] = statuses;
  return statuses.size === 1 && only !== undefined && only >= 0 ? only : null;
}

/** The same wrong answer (one refusing status) to several families, on the same operations: one defect. */
export const sameAnswer = (groups: readonly Group[]): Group[] =>
  joinBy(
    groups,
    (g) => {
      const status = refusedWith(g);
      return status === null ? null : `${g.units[0]!.checkId}|refused ${status}|${g.scope}`;
    },
    () => 'same-answer',
  );

/** The rule by which a group's cause is missing alongside others on the same answers, if any. */
function missingRule(g: Group): string | null {
  const c = g.units[0]!.cause;
  if (c?.kind === 'field' && c.schema === ERROR_MEMBERS.schema && c.problem === ERROR_MEMBERS.problem)
    return ERROR_MEMBERS.id;
  return c?.kind === 'header' && c.problem === 'missing' ? HEADERS_MISSING.id : null;
}

/** Error members, or headers, missing together on the same answers (the same findings): one defect. */
export const missingTogether = (groups: readonly Group[]): Group[] =>
  joinBy(
    groups,
    (g) => {
      const rule = missingRule(g);
      if (rule === null) return null;
      const findings = [...new Set(g.units.flatMap((u) => u.findings))].sort((a, b) => a - b);
      return `${g.units[0]!.checkId}|${rule}|${findings.join(',')}`;
    },
    (gs) => missingRule(gs[0]!),
  );

/** Pass 3: where each group applies, and the joins across families and members. */
export function scopeOf(groups: readonly Group[], exercised: ReadonlySet<string>): Group[] {
  return missingTogether(sameAnswer(acrossOperations(groups, exercised)));
}

// --- Pass 5: defects -------------------------------------------------------------------------------------------

export function evidenceOf(u: Unit): SignatureEvidence {
  const { signature, checkId, operation, caseClass, level, clause, occurrences } = u;
  return {
    ...{ signature, checkId, operation, caseClass, level, clause, occurrences },
    findings: [...u.findings],
    ...(u.part ? { part: u.part } : {}),
  };
}

/** A group's variant in words: its family's title, its cause's part, or its one case class. */
export function variantOf(g: Group, familyTitle: (family: string) => string): string {
  const head = g.units[0]!;
  const classes = new Set(g.units.map((u) => u.caseClass));
  const families = new Set(g.units.map((u) => u.family));
  const parts = new Set(g.units.map((u) => u.part));
  if (g.rules.has('same-answer')) return `refused with ${refusedWith(g)}`;
  if (g.rules.has(HEADERS_MISSING.id))
    return `${[...new Set(g.units.flatMap((u) => (u.cause?.kind === 'header' ? [u.cause.name] : [])))].join(', ')} missing`;
  if (head.part && parts.size === 1) return head.part;
  if (parts.size > 1) return [...parts].join(', ');
  if (families.size > 1) return [...families].map(familyTitle).join(', ');
  if (classes.size === 1) return head.caseClass ?? '';
  return isOrdinary(head.family) ? 'ordinary requests' : familyTitle(head.family);
}

/** A group in words: a lone signature's own words, else check · where · variant. */
export function nameOf(g: Group, familyTitle: (family: string) => string): string {
  const head = g.units[0]!;
  if (g.units.length === 1 && !head.part) return head.signature;
  const variant = variantOf(g, familyTitle);
  return [head.checkId, g.scope ?? 'any operation', ...(variant ? [variant] : [])].join(' · ');
}

/** The example of a defect: the shrunk counterexample when there is one (the shortest), else the shortest request. */
function smallest(findings: readonly Finding[], indexes: readonly number[]): number {
  let best = indexes[0]!;
  for (const i of indexes) if (exampleRank(findings[i]!) < exampleRank(findings[best]!)) best = i;
  return best;
}

function defectOf(g: Group, findings: readonly Finding[], folded: readonly FoldedEvidence[], title: Title): Defect {
  const head = g.units[0]!;
  const unique = [...new Set(g.units.flatMap((u) => u.findings))];
  const example = smallest(findings, unique);
  const ops = opsOf(g);
  const variant = variantOf(g, title);
  const statuses = unique.map((i) => findings[i]!.exchanges[0]?.status).filter((s): s is number => !!s);
  return {
    signature: nameOf(g, title),
    rules: [...g.rules],
    checkId: head.checkId,
    operation: ops.length === 1 ? ops[0]! : null,
    caseClass: variant || null,
    level: head.level,
    clause: head.clause,
    occurrences: g.units.reduce((n, u) => n + u.occurrences, 0),
    findings: [example, ...unique.filter((i) => i !== example)],
    operations: ops,
    statuses: [...new Set(statuses)].sort((a, b) => a - b),
    variants: [...new Set(g.units.map((u) => u.caseClass ?? u.part).filter((v): v is string => !!v))],
    serverWide: g.serverWide,
    signatures: g.units.map(evidenceOf),
    alsoSeenAs: folded,
  };
}

type Title = (family: string) => string;

export interface GroupInput {
  readonly findings: readonly Finding[];
  /** Occurrences per occurrence key (signature and level), counted beyond the findings kept. */
  readonly counts?: ReadonlyMap<string, number>;
  /** The operations the run exercised (had exchanges): server-wide means all of them. */
  readonly operations?: readonly string[];
}

/** A family's title in words (the generators' record of families names them; 'any': a check judged whatever was sent). */
export const familyTitle: Title = (family) => CASE_FAMILIES[family as CaseFamily] ?? family;

/** Groups the violations and warnings of a run into defects, most severe and most frequent first. */
export function groupDefects(input: GroupInput): Defect[] {
  const { findings } = input;
  const exercised = new Set(input.operations ?? findings.flatMap((f) => (f.operation ? [f.operation] : [])));
  const units = unitsOf(findings, input.counts ?? new Map());
  const groups = scopeOf(familiesOf(units), exercised);
  const title = familyTitle;
  const { roots, folded } = foldConsequences(groups, findings, (g) => nameOf(g, title));
  const defects = roots.map((g) => defectOf(g, findings, folded.get(g) ?? [], title));
  return defects.sort(
    (a, b) =>
      SEVERITY[a.level] - SEVERITY[b.level] || b.occurrences - a.occurrences || a.signature.localeCompare(b.signature),
  );
}

/** Every signature of a defect, its own and folded, in words. */
export const signaturesOf = (d: Defect): string[] => [
  ...new Set([...d.signatures.map((s) => s.signature), ...d.alsoSeenAs.map((s) => s.signature)]),
];
