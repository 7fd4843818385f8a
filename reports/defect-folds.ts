/**
 * The last pass of grouping (ARCHITECTURE.md, "Defects: one per cause"): consequences folded under the defect that
 * explains them, still listed. Each rule of `defect-rules.ts` is one small function of two groups (the consequence,
 * the root), reading exchanges, statuses, headers, request bodies as data and the findings' causes, never a message.
 */
import { type Cause, markersIn } from '../checks/cause.js';
import type { Finding } from '../checks/check.js';
import type { CheckId } from '../checks/check-id.js';
import { allChecks } from '../checks/registry.js';
import { parseLossless, stringifyLossless } from '../http/lossless.js';
import { EXPLAINS_RULES, type ExplainsRule, PAIR_RULES, type PairRule, STATUS_CHECKS } from './defect-rules.js';
import { STORED_PET, TRACED_VALUE } from './defect-rules.js';
import { evidenceOf, exchangeKeys, type FoldedEvidence, type Group, SEVERITY } from './defects.js';

const checkArea = new Map(allChecks.map((c) => [c.id, c.area]));

/** The order in which groups may explain others: no answer, a 5xx, a wrong status, the rest. */
export function rank(checkId: CheckId): number {
  if (checkId === 'transport-ok') return 0;
  if (checkId === 'no-5xx') return 1;
  if (checkId === 'status-documented') return 3;
  return STATUS_CHECKS.includes(checkId) ? 2 : 4;
}

/** The rule by which the root's check explains the echo's on the same exchanges, if any. */
export function explainsBy(root: CheckId, echo: CheckId): ExplainsRule | null {
  const response = checkArea.get(echo) === 'response';
  const explains = (r: ExplainsRule) =>
    r.explains === '*' || (r.explains === 'response' ? response : r.explains.includes(echo));
  return EXPLAINS_RULES.find((r) => r.roots.includes(root) && explains(r)) ?? null;
}

/** A value as text without its JSON quotes: `"Rex"` and `Rex` are one value. */
const bare = (v: string): string => (v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v);

const fieldCauses = (causes: readonly Cause[]) => causes.flatMap((c) => (c.kind === 'field' ? [c] : []));

/** A finding's request body as sent (its text) and as JSON (undefined when it is none). */
function requestBody(f: Finding): { readonly text: string; readonly json: unknown } {
  const b64 = f.exchanges[0]?.request.bodyBase64;
  const text = b64 ? Buffer.from(b64, 'base64').toString('utf8') : '';
  try {
    return { text, json: text ? parseLossless(text) : undefined };
  } catch {
    return { text, json: undefined };
  }
}

/** What a root group says the target stored: field=value facts, the run's markers and the fields. */
export interface Stored {
  readonly facts: Set<string>;
  readonly markers: Set<string>;
  readonly fields: Set<string>;
}

export function storedBy(g: Group, findings: readonly Finding[]): Stored {
  const s: Stored = { facts: new Set(), markers: new Set(), fields: new Set() };
  for (const u of g.units) {
    for (const c of fieldCauses(u.causes)) {
      if (c.field) s.fields.add(c.field);
      if (c.field && c.value !== undefined && c.problem === 'changed') s.facts.add(`${c.field}=${bare(c.value)}`);
      for (const m of c.markers ?? []) s.markers.add(m);
    }
    for (const i of u.findings) {
      const f = findings[i]!;
      if (f.case?.field) s.fields.add(f.case.field);
      if (f.checkId !== 'create-invalid-rejected' && f.checkId !== 'create-invalid-no-effect') continue;
      if (f.checkId === 'create-invalid-rejected' && u.statusClass !== '2xx') continue;
      const { text, json: body } = requestBody(f);
      for (const m of markersIn(text)) s.markers.add(m);
      if (body && typeof body === 'object' && !Array.isArray(body))
        for (const [k, v] of Object.entries(body)) s.facts.add(`${k}=${bare(stringifyLossless(v))}`);
    }
  }
  return s;
}

/** The context the fold rules share: the run's findings and what is worked out once per group. */
export class FoldContext {
  private readonly exchanges = new Map<Group, Set<string>>();
  private readonly bounds = new Map<Group, Map<string, number>>();
  private readonly stored = new Map<Group, Stored>();
  constructor(readonly findings: readonly Finding[]) {}

  exchangesOf(g: Group): Set<string> {
    let x = this.exchanges.get(g);
    if (!x) {
      x = new Set(g.units.flatMap((u) => u.findings.flatMap((i) => exchangeKeys(this.findings[i]!))));
      this.exchanges.set(g, x);
    }
    return x;
  }

  /** Per suite, the last exchange every sampled unit of the root kept: beyond it, absence proves nothing. */
  boundsOf(r: Group): Map<string, number> {
    let b = this.bounds.get(r);
    if (b) return b;
    b = new Map();
    for (const u of r.units) {
      if (u.occurrences <= u.findings.length) continue;
      const last = new Map<string, number>();
      for (const i of u.findings)
        for (const e of this.findings[i]!.exchanges) {
          const suite = this.findings[i]!.suite ?? '';
          last.set(suite, Math.max(last.get(suite) ?? -1, e.seq));
        }
      for (const [suite, seq] of last) b.set(suite, Math.min(b.get(suite) ?? Number.POSITIVE_INFINITY, seq));
    }
    this.bounds.set(r, b);
    return b;
  }

  /** Whether the root shows on these exchanges (judged within its sample, when the log kept a sample of it). */
  covers(r: Group, keys: readonly string[]): boolean {
    const theirs = this.exchangesOf(r);
    const b = this.boundsOf(r);
    const judged = keys.filter((k) => {
      const at = k.lastIndexOf('#');
      return Number(k.slice(at + 1)) <= (b.get(k.slice(0, at)) ?? Number.POSITIVE_INFINITY);
    });
    return judged.length > 0 && judged.every((k) => theirs.has(k));
  }

  /** The create exchange of each finding of the group (null where a finding has none). */
  createKeys(g: Group): (string | null)[] {
    return g.units.flatMap((u) =>
      u.findings.map((i) => {
        const f = this.findings[i]!;
        const idx = f.exchanges.findIndex((e) => e.method === 'POST');
        return idx < 0 ? null : exchangeKeys(f)[idx]!;
      }),
    );
  }

  storedBy(g: Group): Stored {
    let s = this.stored.get(g);
    if (!s) {
      s = storedBy(g, this.findings);
      this.stored.set(g, s);
    }
    return s;
  }
}

export interface Fold {
  readonly rule: string;
  readonly reason: string;
}

/** Echo: the same exchanges, judged by a check that names the cause. */
export function echoFold(x: FoldContext, c: Group, r: Group): Fold | null {
  const [ch, rh] = [c.units[0]!, r.units[0]!];
  const mine = x.exchangesOf(c);
  if (rank(rh.checkId) > rank(ch.checkId) || mine.size === 0 || !x.covers(r, [...mine])) return null;
  const rule = explainsBy(rh.checkId, ch.checkId);
  return rule && { rule: rule.id, reason: rule.reason };
}

/** The fields a finding about a created pet names, by its causes (none: it is about the pet as a whole). */
const namedFields = (f: Finding): string[] =>
  f.causes.flatMap((c) => ((c.kind === 'field' || c.kind === 'state') && c.field ? [c.field] : []));

/** A stored pet whose create request the root already judged, on the same field. */
export function storedPetFold(x: FoldContext, c: Group, r: Group): Fold | null {
  const [ch, rh] = [c.units[0]!, r.units[0]!];
  if (!(STORED_PET.consequences as readonly string[]).includes(ch.checkId)) return null;
  if (!(STORED_PET.roots as readonly string[]).includes(rh.checkId)) return null;
  const creates = x.createKeys(c);
  if (creates.length === 0 || creates.some((k) => k === null) || !x.covers(r, creates as string[])) return null;
  const rootFields = x.storedBy(r).fields;
  const ok = c.units.every((u) =>
    u.findings.every((i) => {
      const fields = namedFields(x.findings[i]!);
      return fields.length === 0 ? rootFields.has('id') : fields.every((fl) => rootFields.has(fl));
    }),
  );
  return ok ? { rule: STORED_PET.id, reason: STORED_PET.reason } : null;
}

/** A value on a stored pet that the root stored: its field and value, or the run's marker, or the field alone. */
export function tracedValueFold(x: FoldContext, c: Group, r: Group): Fold | null {
  const [ch, rh] = [c.units[0]!, r.units[0]!];
  const cause = ch.cause;
  if (cause?.kind !== 'field' || !cause.field) return null;
  if (!(TRACED_VALUE.consequences as readonly string[]).includes(ch.checkId)) return null;
  if (!(TRACED_VALUE.roots as readonly string[]).includes(rh.checkId)) return null;
  const field = cause.field;
  const stored = x.storedBy(r);
  const causes = fieldCauses(c.units.flatMap((u) => u.causes));
  const values = causes.flatMap((k) => (k.value === undefined ? [] : [bare(k.value)]));
  const markers = causes.flatMap((k) => k.markers ?? []);
  const traced = { rule: TRACED_VALUE.id, reason: TRACED_VALUE.reason };
  // Every value it failed on is one the root stored: traced, wherever it was seen.
  if (values.length > 0 && values.every((v) => stored.facts.has(`${field}=${v}`))) return traced;
  // The model finds changed the very field the root saw changed on the way in.
  if (ch.checkId === 'model-consistency' && rh.checkId !== 'create-invalid-rejected' && stored.fields.has(field))
    return traced;
  // By the marker or the field alone, only when what it saw on the create side are the root's own requests.
  const createSide = c.units.filter((u) => u.operation === 'createPet').flatMap((u) => u.findings);
  if (
    createSide.length > 0 &&
    !x.covers(
      r,
      createSide.flatMap((i) => exchangeKeys(x.findings[i]!)),
    )
  )
    return null;
  const byMarker = stored.fields.has(field) && markers.some((m) => stored.markers.has(m));
  const byField = values.length === 0 && markers.length === 0 && stored.fields.has(field);
  return byMarker || byField ? traced : null;
}

/** The operation and status of every answer of a group (the creates that set a case up aside). */
function statusesOf(x: FoldContext, g: Group): Set<string> {
  return new Set(
    g.units.flatMap((u) =>
      u.findings.flatMap((i) =>
        x.findings[i]!.exchanges.filter((e) => !(e.method === 'POST' && e.status === 201)).map(
          (e) => `${u.operation} ${e.status}`,
        ),
      ),
    ),
  );
}

/**
 * The X-RateLimit-Limit values a group's causes name: the header itself when it is the one at fault, the Limit a
 * Remaining was judged against, the Limit a key's counter reported.
 */
function limitsOf(g: Group): string[] {
  return g.units.flatMap((u) =>
    u.causes.flatMap((c) => {
      if (c.kind === 'header' && c.name.toLowerCase() === 'x-ratelimit-limit' && c.value !== null) return [c.value];
      if (c.kind === 'header' && c.limit !== undefined) return [c.limit];
      if (c.kind === 'limit' && c.reported !== undefined && c.reported !== null) return [String(c.reported)];
      return [];
    }),
  );
}

/** Whether the pair's link holds between consequence c and root r. */
export function pairLinks(x: FoldContext, p: PairRule, c: Group, r: Group): boolean {
  switch (p.link) {
    case 'operation':
      return c.units.every((u) => r.units.some((v) => v.operation === u.operation));
    case 'status': {
      const theirs = statusesOf(x, r);
      return [...statusesOf(x, c)].every((s) => theirs.has(s));
    }
    case 'part': {
      const theirs = new Set(r.units.map((u) => u.causeKey));
      return c.units.every((u) => u.part !== null && theirs.has(u.causeKey));
    }
    case 'limit-value': {
      const theirs = new Set(limitsOf(r));
      const mine = limitsOf(c);
      return mine.length > 0 && mine.every((l) => theirs.has(l));
    }
    case 'create-status': {
      const creates = x.createKeys(c);
      const named = r.units.some((u) => u.findings.some((i) => namedFields(x.findings[i]!).includes('status')));
      return named && creates.length > 0 && creates.every((k) => k !== null) && x.covers(r, creates as string[]);
    }
  }
}

export function pairFold(x: FoldContext, c: Group, r: Group): Fold | null {
  const [ch, rh] = [c.units[0]!, r.units[0]!];
  const hit = PAIR_RULES.find(
    (p) => p.roots.includes(rh.checkId) && p.consequence === ch.checkId && pairLinks(x, p, c, r),
  );
  return hit ? { rule: hit.id, reason: hit.reason } : null;
}

/** The first rule by which r explains c, if any (never a root of lower severity than its consequence). */
export function foldRule(x: FoldContext, c: Group, r: Group): Fold | null {
  if (SEVERITY[r.units[0]!.level] > SEVERITY[c.units[0]!.level]) return null;
  return echoFold(x, c, r) ?? storedPetFold(x, c, r) ?? tracedValueFold(x, c, r) ?? pairFold(x, c, r);
}

const occurrences = (g: Group) => g.units.reduce((n, u) => n + u.occurrences, 0);

/** Each group's parent (the root that explains it), the groups that rank first tried first, never both ways. */
export function parentsOf(x: FoldContext, groups: readonly Group[]): Map<Group, { root: Group } & Fold> {
  const order = [...groups].sort(
    (a, b) =>
      rank(a.units[0]!.checkId) - rank(b.units[0]!.checkId) ||
      occurrences(b) - occurrences(a) ||
      a.key.localeCompare(b.key),
  );
  const parent = new Map<Group, { root: Group } & Fold>();
  for (const c of order)
    for (const r of order) {
      if (r === c || parent.get(r)?.root === c) continue;
      const hit = foldRule(x, c, r);
      if (!hit) continue;
      parent.set(c, { root: r, ...hit });
      break;
    }
  return parent;
}

/** Pass 4: the roots, and under each the evidence of what it explains (through chains of consequences). */
export function foldConsequences(
  groups: readonly Group[],
  findings: readonly Finding[],
  nameOf: (g: Group) => string,
): { roots: Group[]; folded: Map<Group, FoldedEvidence[]> } {
  const parent = parentsOf(new FoldContext(findings), groups);
  const rootOf = (g: Group): Group => {
    const seen = new Set<Group>([g]);
    let at = g;
    for (let p = parent.get(at); p && !seen.has(p.root); p = parent.get(at)) {
      at = p.root;
      seen.add(at);
    }
    return at;
  };
  const folded = new Map<Group, FoldedEvidence[]>();
  for (const g of groups) {
    const root = rootOf(g);
    if (root === g) continue;
    const p = parent.get(g)!;
    const list = folded.get(root) ?? [];
    for (const u of g.units) list.push({ ...evidenceOf(u), rule: p.rule, reason: p.reason, seenAs: nameOf(g) });
    folded.set(root, list);
  }
  return { roots: groups.filter((g) => rootOf(g) === g), folded };
}
