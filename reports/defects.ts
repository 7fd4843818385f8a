/**
 * Defects, not signatures: a pure function from a run's findings to the causes they show. Signatures (check,
 * operation, case class) are split where one finding mixes causes, grouped by the families and the server-wide rule
 * of `defect-rules.ts`, and consequences (echoes, stored pets, traced values, known pairs) are folded under the
 * defect that explains them, still listed. Nothing is dropped: every signature with its count and findings stays
 * under its defect, as its own evidence or as what it was also seen as.
 */
import type { Finding, Level } from '../checks/check.js';
import { allChecks, signatureOf, signatureText } from '../checks/registry.js';
import { exampleRank, occurrenceKey } from '../runner/findings.js';
import {
  EXPLAINS_RULES,
  type ExplainsRule,
  FAMILY_RULES,
  KEY_WIDE,
  type FamilyRule,
  ORDINARY_CASES,
  PAIR_RULES,
  SERVER_WIDE,
  SPLIT_BY_FIELD,
  STATUS_CHECKS,
  STORED_PET,
  type StatusClass,
  TRACED_VALUE,
} from './defect-rules.js';

/** One signature's evidence under a defect (the part of it, when a finding mixed causes and was split). */
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
  /** For a signature split by cause: the failing field this part is about. */
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

const SEVERITY: Record<Level, number> = { violation: 0, warning: 1, observation: 2 };
const PET_FIELDS = new Set(['id', 'name', 'categoryId', 'status', 'code', 'message']);
const MARKER = /psc-marker-[0-9a-f]{16}/g;
/** The part of a finding whose differing field was cut from its sample (a long name before it). */
const BEYOND_SAMPLE = 'a field beyond the sample differs';

/** The exchanges a finding is about, as keys unique within the run (sequence numbers restart in each suite). */
export const exchangeKeys = (f: Finding): string[] => f.exchanges.map((e) => `${f.suite ?? ''}#${e.seq}`);

const unquote = (v: string): string => (/^".*"$/.test(v) ? v.slice(1, -1) : v);
const valueText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function statusMatches(want: StatusClass, status: number | null | undefined): boolean {
  if (want === 'any') return true;
  const ok = status !== null && status !== undefined && status >= 200 && status < 300;
  return want === '2xx' ? ok : !ok;
}

function familyOf(f: Finding, caseClass: string | null): FamilyRule | null {
  if (caseClass === null) return null;
  const status = f.exchanges[0]?.status;
  return (
    FAMILY_RULES.find(
      (r) =>
        r.checks.includes(f.checkId) &&
        (r.cases === undefined || r.cases.test(caseClass)) &&
        statusMatches(r.status, status),
    ) ?? null
  );
}

/** A failing field of one finding of a split check, with the values it was seen with. */
interface Part {
  readonly part: string;
  readonly field: string | null;
  readonly values: ReadonlySet<string>;
  readonly markers: ReadonlySet<string>;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The failing fields of a finding of a split check, read from its message (the first errors it names) and its
 * sample of the body. A finding these words do not fit stays whole.
 */
function partsOf(f: Finding): Part[] {
  const first = f.message.split('\n')[0] ?? '';
  if (f.checkId === 'create-echo') {
    const m = /^received (\w+) (.+?) \(sent /.exec(first);
    if (!m) return [];
    return [{ part: `${m[1]} changed`, field: m[1]!, values: new Set([unquote(m[2]!)]), markers: new Set() }];
  }
  if (f.checkId === 'model-consistency') {
    // "200 with {…}" expected and received: each field that differs, with the value received.
    // A different status (an Error where a Pet was expected) is one finding, not a field of it.
    const status = (t: string | undefined) => /^(\d+) with /.exec(t ?? '')?.[1];
    if (status(f.expected) !== status(f.actual)) return [];
    // A sample cut short (a long name) is read as far as it goes: the pairs it shows.
    const body = (t: string | undefined): Record<string, unknown> | undefined => {
      const text = /\{.*$/s.exec(t ?? '')?.[0] ?? '';
      const whole = parseJson(/\{.*\}/s.exec(text)?.[0]);
      if (whole && typeof whole === 'object') return whole as Record<string, unknown>;
      const pairs = [...text.matchAll(/"(\w+)":("(?:[^"\\]|\\.)*"|[-\w.]+)(?=[,}])/g)];
      return pairs.length ? Object.fromEntries(pairs.map((m) => [m[1]!, parseJson(m[2]!)])) : undefined;
    };
    const want = body(f.expected);
    const got = body(f.actual);
    if (!want || !got) return [];
    const shown = Object.keys({ ...want, ...got }).filter((k) => k in want && k in got);
    if (shown.every((k) => valueText(want[k]) === valueText(got[k])))
      return [{ part: BEYOND_SAMPLE, field: null, values: new Set(), markers: new Set() }];
    return shown
      .filter((k) => valueText(want[k]) !== valueText(got[k]))
      .map((field) => ({
        part: `${field} differs`,
        field,
        values: new Set(field in got ? [valueText(got[field])] : []),
        markers: new Set(JSON.stringify(got).match(MARKER) ?? []),
      }));
  }
  if (f.checkId === 'int64-exact') {
    const m = /^received (.*?)(?: \(\+\d+\))? on \d+ for /.exec(first);
    if (!m) return [];
    const byField = new Map<string, Set<string>>();
    for (const item of m[1]!.split(', ')) {
      const [field, digits] = item.split(' ');
      if (!field || !digits) continue;
      const set = byField.get(field) ?? new Set();
      set.add(digits);
      byField.set(field, set);
    }
    return [...byField].map(([field, values]) => ({
      part: `${field} beyond int64`,
      field,
      values,
      markers: new Set(f.actual?.match(MARKER) ?? []),
    }));
  }
  // body-schema, and error-body-429 (the 429's body judged as an Error, a warning: the spec shows no 429 body).
  const m =
    /^received a body that is not (\w+|the documented schema) on \d+ for [^:]*: (.*?)(?: \(\+\d+\))?$/.exec(first) ??
    /^received JSON that is not an (Error) on 429 for [^:]*: (.*)$/.exec(first);
  if (!m) return [];
  const schema = m[1] === 'Pets' ? 'Pet' : m[1]!;
  const body = parseJson(f.actual);
  const parts = new Map<string, { field: string | null; values: Set<string>; markers: Set<string> }>();
  for (const error of m[2]!.split('; ')) {
    const e = /^(body|\/\S*) (.*)$/.exec(error);
    if (!e) continue;
    const segments = e[1] === 'body' ? [] : e[1]!.split('/').filter(Boolean);
    const required = /^must have required property '(\w+)'$/.exec(e[2]!);
    if (required) segments.push(required[1]!);
    const named = segments.filter((s) => !/^\d+$/.test(s));
    const field = named.at(-1) ?? null;
    // The path is the cause's place; ajv may say several things of one value (not an integer, not int64).
    const part = `${schema} ${named.length ? `/${named.join('/')}` : '(body)'}${required ? ' missing' : ''}`;
    const entry = parts.get(part) ?? { field, values: new Set<string>(), markers: new Set<string>() };
    // The value and the pet's marker, when the sample of the body shows them.
    let at: unknown = body;
    for (const s of segments.slice(0, -1)) at = (at as Record<string, unknown> | undefined)?.[s];
    const item = at as Record<string, unknown> | undefined;
    if (item && typeof item === 'object') {
      if (!required && field && field in item) entry.values.add(valueText(item[field]));
      for (const mk of JSON.stringify(item).match(MARKER) ?? []) entry.markers.add(mk);
    } else if (body === undefined) {
      for (const mk of f.actual?.match(MARKER) ?? []) entry.markers.add(mk);
    }
    parts.set(part, entry);
  }
  return [...parts].map(([part, p]) => ({ part, ...p }));
}

/** Evidence in the making: the findings of one signature (one part, one family). */
interface Unit {
  readonly sigKey: string;
  readonly signature: string;
  readonly checkId: string;
  readonly operation: string | null;
  readonly caseClass: string | null;
  readonly level: Level;
  readonly clause: string;
  readonly occurrences: number;
  readonly part: Part | null;
  readonly family: FamilyRule | null;
  readonly findings: number[];
}

/** A defect in the making. */
interface Candidate {
  key: string;
  units: Unit[];
  rules: Set<string>;
  serverWide: boolean;
  scope: string | null;
}

const checkArea = new Map(allChecks.map((c) => [c.id, c.area]));
function rank(checkId: string): number {
  if (checkId === 'transport-ok') return 0;
  if (checkId === 'no-5xx') return 1;
  if (checkId === 'status-documented') return 3;
  if (STATUS_CHECKS.includes(checkId)) return 2;
  return 4;
}

/** The rule by which the root's check explains the echo's on the same exchanges, if any. */
function explainsBy(root: string, echo: string): ExplainsRule | null {
  const response = checkArea.get(echo) === 'response';
  const hit = EXPLAINS_RULES.find(
    (r) =>
      r.roots.includes(root) &&
      (r.explains === '*' ||
        (r.explains === 'response'
          ? response
          : r.explains.includes(echo) || (response && r.explains.includes('response')))),
  );
  return hit ?? null;
}

export interface GroupInput {
  readonly findings: readonly Finding[];
  /** Occurrences per occurrence key (signature and level), counted beyond the findings kept. */
  readonly counts?: ReadonlyMap<string, number>;
  /** The operations the run exercised (had exchanges): server-wide means all of them. */
  readonly operations?: readonly string[];
}

/** Groups the violations and warnings of a run into defects, most severe and most frequent first. */
export function groupDefects(input: GroupInput): Defect[] {
  const { findings } = input;
  const counts = input.counts ?? new Map<string, number>();
  // 1. Signatures, split by cause and variant family.
  const units = new Map<string, Unit>();
  const rawClasses = new Map<Unit, Set<string | null>>();
  findings.forEach((f, i) => {
    if (f.level === 'observation') return;
    const sig = signatureOf(f);
    const sigKey = occurrenceKey(f);
    const family = familyOf(f, sig.caseClass);
    const parts: (Part | null)[] = f.checkId in SPLIT_BY_FIELD ? partsOf(f) : [];
    for (const part of parts.length ? parts : [null]) {
      const key = `${sigKey}|${part?.part ?? ''}|${family?.id ?? ''}`;
      let u = units.get(key);
      if (!u) {
        u = {
          sigKey,
          signature: signatureText(sig),
          checkId: f.checkId,
          operation: sig.operation,
          caseClass: sig.caseClass,
          level: f.level,
          clause: f.clause,
          occurrences: 0,
          part: part ? { ...part, values: new Set(), markers: new Set() } : null,
          family,
          findings: [],
        };
        units.set(key, u);
        rawClasses.set(u, new Set());
      }
      if (part && u.part) {
        for (const v of part.values) (u.part.values as Set<string>).add(v);
        for (const mk of part.markers) (u.part.markers as Set<string>).add(mk);
      }
      u.findings.push(i);
      rawClasses.get(u)!.add(f.caseClass);
    }
  });
  // A signature split in parts counts what each part kept; a whole one, every occurrence the run counted.
  const partsPerSignature = new Map<string, number>();
  for (const u of units.values()) partsPerSignature.set(u.sigKey, (partsPerSignature.get(u.sigKey) ?? 0) + 1);
  for (const u of units.values())
    (u as { occurrences: number }).occurrences =
      partsPerSignature.get(u.sigKey) === 1
        ? Math.max(counts.get(u.sigKey) ?? 0, u.findings.length)
        : u.findings.length;

  // 2. One candidate per check, part, variant and operation (levels together); then across operations.
  const ordinary = (u: Unit) => u.caseClass === null || ORDINARY_CASES.test(u.caseClass);
  const variantOf = (u: Unit) =>
    u.family?.family ??
    u.part?.part ??
    (u.caseClass !== null && ordinary(u) ? 'ordinary requests' : (u.caseClass ?? ''));
  const byVariant = new Map<string, Unit[]>();
  for (const u of units.values()) {
    // Levels apart: the same check and variant as a violation (on a 2xx) and a warning (on a 401) is one defect.
    const k = `${u.checkId}|${u.part?.part ?? ''}|${u.family?.id ?? (ordinary(u) ? '' : u.caseClass)}`;
    const list = byVariant.get(k) ?? [];
    list.push(u);
    byVariant.set(k, list);
  }
  const exercised = new Set(input.operations ?? findings.map((f) => f.operation).filter((o) => o !== null));
  const kindOf = (raw: string | null) => {
    if (raw === null || ORDINARY_CASES.test(raw)) return 'ordinary';
    return FAMILY_RULES.find((r) => r.cases?.test(raw))?.id ?? raw;
  };
  const candidates: Candidate[] = [];
  const bySeverity = (a: Unit, b: Unit) => SEVERITY[a.level] - SEVERITY[b.level] || b.occurrences - a.occurrences;
  for (const [k, list] of byVariant) {
    list.sort(bySeverity);
    const ops = new Map<string | null, Unit[]>();
    for (const u of list) ops.set(u.operation, [...(ops.get(u.operation) ?? []), u]);
    const named = [...ops.keys()].filter((o): o is string => o !== null);
    const keyWide = (KEY_WIDE.checks as readonly string[]).includes(list[0]!.checkId) && named.length > 1;
    const fieldWide = (list[0]!.part !== null || keyWide) && named.length > 1;
    const everyOp =
      named.length >= SERVER_WIDE.minOperations &&
      exercised.size >= SERVER_WIDE.minOperations &&
      [...exercised].every((o) => ops.has(o)) &&
      // The same kind of request provoked it on every operation.
      sharedKind(named.map((o) => new Set(ops.get(o)!.flatMap((u) => [...rawClasses.get(u)!].map(kindOf)))));
    const rules = (u: Unit[]) => new Set(u.flatMap((x) => (x.family ? [x.family.id] : [])));
    if (everyOp || fieldWide) {
      const r = rules(list);
      if (everyOp) r.add(SERVER_WIDE.id);
      if (fieldWide && !everyOp) r.add(keyWide ? KEY_WIDE.id : 'same-field');
      if (list[0]!.part) r.add('split-by-field');
      candidates.push({
        key: k,
        units: list,
        rules: r,
        serverWide: everyOp,
        scope: everyOp ? 'every operation' : named.sort().join(', '),
      });
    } else {
      for (const [op, us] of ops) {
        const r = rules(us);
        if (us[0]!.part) r.add('split-by-field');
        candidates.push({ key: `${k}|${op}`, units: us, rules: r, serverWide: false, scope: op });
      }
    }
  }

  // 3. Consequences folded under the defect that explains them.
  const exchangesOf = new Map(
    candidates.map((c) => [c, new Set(c.units.flatMap((u) => u.findings.flatMap((i) => exchangeKeys(findings[i]!))))]),
  );
  const headOf = (c: Candidate) => c.units[0]!;
  /**
   * Whether the root shows on these exchanges. A root seen more often than its findings kept (the log keeps a sample
   * per signature) is judged within its sample: up to the last exchange it kept in each suite.
   */
  const bounds = new Map<Candidate, Map<string, number>>();
  /** Per suite, the last exchange every sampled signature of the root kept: beyond it, absence proves nothing. */
  const boundsOf = (r: Candidate): Map<string, number> => {
    let b = bounds.get(r);
    if (b) return b;
    b = new Map();
    for (const u of r.units) {
      if (u.occurrences <= u.findings.length) continue;
      const last = new Map<string, number>();
      for (const i of u.findings)
        for (const k of exchangeKeys(findings[i]!)) {
          const [suite, seq] = k.split('#') as [string, string];
          last.set(suite, Math.max(last.get(suite) ?? -1, Number(seq)));
        }
      for (const [suite, seq] of last) b.set(suite, Math.min(b.get(suite) ?? Number.POSITIVE_INFINITY, seq));
    }
    bounds.set(r, b);
    return b;
  };
  const covers = (r: Candidate, keys: readonly string[]): boolean => {
    const theirs = exchangesOf.get(r)!;
    const b = boundsOf(r);
    const judged = keys.filter((k) => {
      const [suite, seq] = k.split('#') as [string, string];
      return Number(seq) <= (b.get(suite) ?? Number.POSITIVE_INFINITY);
    });
    return judged.length > 0 && judged.every((k) => theirs.has(k));
  };
  const createKeys = (c: Candidate) =>
    c.units.flatMap((u) =>
      u.findings.map((i) => {
        const f = findings[i]!;
        const idx = f.exchanges.findIndex((e) => e.method === 'POST');
        return idx < 0 ? null : exchangeKeys(f)[idx]!;
      }),
    );
  /** The fields a finding about a created pet names ("received status "available" (created …)"), or none. */
  const namedField = (f: Finding): string | null => {
    const m = /^received (\w+) /.exec(f.message);
    return m && PET_FIELDS.has(m[1]!) ? m[1]! : null;
  };
  const caseFields = (c: Candidate): Set<string> =>
    new Set(
      c.units.flatMap((u) =>
        [...new Set(u.findings.map((i) => findings[i]!.caseClass))].flatMap((cc) =>
          (cc?.match(/\b(id|name|categoryId|status)\b/g) ?? []).slice(0, 1),
        ),
      ),
    );
  /** What a root candidate says the target stored: field=value facts, markers and fields. */
  const storedFacts = (c: Candidate) => {
    const facts = new Set<string>();
    const markers = new Set<string>();
    const fields = new Set<string>();
    for (const u of c.units) {
      if (u.part?.field) fields.add(u.part.field);
      for (const i of u.findings) {
        const f = findings[i]!;
        if (f.checkId === 'create-echo') {
          const m = /^received (\w+) (.+?) \(sent /.exec(f.message);
          if (m) {
            facts.add(`${m[1]}=${unquote(m[2]!)}`);
            fields.add(m[1]!);
          }
        }
        if (f.checkId === 'create-invalid-rejected' || f.checkId === 'create-invalid-no-effect') {
          const ex = f.exchanges[0];
          const accepted = ex?.status !== null && ex?.status !== undefined && ex.status < 300;
          if (f.checkId === 'create-invalid-rejected' && !accepted) continue;
          const b64 = ex?.request.bodyBase64;
          const text = b64 ? Buffer.from(b64, 'base64').toString('utf8') : '';
          for (const mk of text.match(MARKER) ?? []) markers.add(mk);
          const body = parseJson(text);
          if (body && typeof body === 'object' && !Array.isArray(body))
            for (const [k, v] of Object.entries(body)) facts.add(`${k}=${valueText(v)}`);
        }
      }
    }
    for (const fld of caseFields(c)) fields.add(fld);
    return { facts, markers, fields };
  };
  const facts = new Map<Candidate, ReturnType<typeof storedFacts>>();
  const factsOf = (c: Candidate) => {
    let x = facts.get(c);
    if (!x) {
      x = storedFacts(c);
      facts.set(c, x);
    }
    return x;
  };

  const foldRule = (c: Candidate, r: Candidate): { rule: string; reason: string } | null => {
    const ch = headOf(c);
    const rh = headOf(r);
    if (SEVERITY[rh.level] > SEVERITY[ch.level]) return null;
    const mine = exchangesOf.get(c)!;
    // Echo: the same exchanges, judged by a check that names the cause.
    if (rank(rh.checkId) <= rank(ch.checkId) && mine.size > 0 && covers(r, [...mine])) {
      const rule = explainsBy(rh.checkId, ch.checkId);
      if (rule) return { rule: rule.id, reason: rule.reason };
    }
    // A stored pet whose create request the root already judged, on the same field.
    if (
      (STORED_PET.consequences as readonly string[]).includes(ch.checkId) &&
      (STORED_PET.roots as readonly string[]).includes(rh.checkId)
    ) {
      const creates = createKeys(c);
      if (creates.length > 0 && creates.every((k) => k !== null) && covers(r, creates as string[])) {
        const fields = c.units.flatMap((u) => u.findings.map((i) => namedField(findings[i]!)));
        const rootFields = factsOf(r).fields;
        if (fields.every((fl) => (fl === null ? rootFields.has('id') : rootFields.has(fl))))
          return { rule: STORED_PET.id, reason: STORED_PET.reason };
      }
    }
    // A value on a stored pet that the root stored: its field and value, or the run's marker.
    const part = ch.part;
    if (
      part?.field &&
      (TRACED_VALUE.consequences as readonly string[]).includes(ch.checkId) &&
      (TRACED_VALUE.roots as readonly string[]).includes(rh.checkId)
    ) {
      const f = factsOf(r);
      const values = c.units.flatMap((u) => [...(u.part?.values ?? [])]);
      const markers = c.units.flatMap((u) => [...(u.part?.markers ?? [])]);
      // Every value it failed on is one the root stored: traced, wherever it was seen.
      if (values.length > 0 && values.every((v) => f.facts.has(`${part.field}=${v}`)))
        return { rule: TRACED_VALUE.id, reason: TRACED_VALUE.reason };
      // The model finds changed the very field the root saw changed on the way in (the pet may come from another
      // suite, whose create nothing compared).
      if (ch.checkId === 'model-consistency' && rh.checkId !== 'create-invalid-rejected' && f.fields.has(part.field))
        return { rule: TRACED_VALUE.id, reason: TRACED_VALUE.reason };
      // Without the values, by the run's marker or the field alone, and only when what it saw on the create side are
      // the root's own requests (a server that drops a field from every Pet is a cause of its own).
      const createSide = c.units.filter((u) => u.operation === 'createPet').flatMap((u) => u.findings);
      if (
        covers(
          r,
          createSide.flatMap((i) => exchangeKeys(findings[i]!)),
        ) ||
        createSide.length === 0
      ) {
        const byMarker = f.fields.has(part.field) && markers.some((m) => f.markers.has(m));
        const byField = values.length === 0 && markers.length === 0 && f.fields.has(part.field);
        if (byMarker || byField) return { rule: TRACED_VALUE.id, reason: TRACED_VALUE.reason };
      }
    }
    for (const p of PAIR_RULES) {
      if (!p.roots.includes(rh.checkId) || p.consequence !== ch.checkId) continue;
      if (p.link === 'operation' && c.units.every((u) => r.units.some((x) => x.operation === u.operation)))
        return { rule: p.id, reason: p.reason };
      if (p.link === 'status') {
        const statuses = (x: Candidate) =>
          new Set(
            x.units.flatMap((u) =>
              u.findings.flatMap((i) =>
                findings[i]!.exchanges.filter((e) => !(e.method === 'POST' && e.status === 201)).map(
                  (e) => `${u.operation} ${e.status}`,
                ),
              ),
            ),
          );
        const theirStatuses = statuses(r);
        if ([...statuses(c)].every((s) => theirStatuses.has(s))) return { rule: p.id, reason: p.reason };
      }
      if (p.link === 'part') {
        const parts = (x: Candidate) => x.units.map((u) => u.part?.part);
        const theirParts = new Set(parts(r));
        if (parts(c).every((pt) => pt !== undefined && theirParts.has(pt))) return { rule: p.id, reason: p.reason };
      }
      if (p.link === 'limit-value') {
        const limits = (x: Candidate) =>
          x.units.flatMap((u) =>
            u.findings.flatMap((i) => [...findings[i]!.message.matchAll(/X-RateLimit-Limit (\d+)/g)].map((m) => m[1]!)),
          );
        const theirLimits = new Set(limits(r));
        const mineLimits = limits(c);
        if (mineLimits.length > 0 && mineLimits.every((l) => theirLimits.has(l)))
          return { rule: p.id, reason: p.reason };
      }
      if (p.link === 'create-status') {
        const creates = createKeys(c);
        const statusNamed = r.units.some((u) => u.findings.some((i) => namedField(findings[i]!) === 'status'));
        if (statusNamed && creates.length > 0 && creates.every((k) => k !== null) && covers(r, creates as string[]))
          return { rule: p.id, reason: p.reason };
      }
    }
    return null;
  };

  const occurrences = (c: Candidate) => c.units.reduce((n, u) => n + u.occurrences, 0);
  const order = [...candidates].sort(
    (a, b) =>
      rank(headOf(a).checkId) - rank(headOf(b).checkId) ||
      occurrences(b) - occurrences(a) ||
      a.key.localeCompare(b.key),
  );
  const parent = new Map<Candidate, { root: Candidate; rule: string; reason: string }>();
  for (const c of order) {
    for (const r of order) {
      if (r === c) continue;
      const hit = foldRule(c, r);
      if (!hit) continue;
      // Never both ways: the one that ranks first (or came first) stays the root.
      const back = parent.get(r);
      if (back?.root === c) continue;
      parent.set(c, { root: r, ...hit });
      break;
    }
  }
  // A finding whose differing field was cut from its sample goes where the others of its check and operation went,
  // when they all went under one cause.
  for (const c of candidates) {
    if (parent.has(c) || headOf(c).part?.part !== BEYOND_SAMPLE) continue;
    const ops = new Set(c.units.map((u) => u.operation));
    const siblings = candidates.filter(
      (x) => x !== c && headOf(x).checkId === headOf(c).checkId && x.units.some((u) => ops.has(u.operation)),
    );
    const roots = new Set(siblings.map((x) => parent.get(x)?.root ?? null));
    const [root] = roots;
    if (siblings.length > 0 && roots.size === 1 && root) {
      const p = parent.get(siblings[0]!)!;
      parent.set(c, { root, rule: p.rule, reason: `${p.reason} (the field cut from this sample: as its others)` });
    }
  }
  const rootOf = (c: Candidate): Candidate => {
    const seen = new Set<Candidate>([c]);
    let at = c;
    for (let p = parent.get(at); p && !seen.has(p.root); p = parent.get(at)) {
      at = p.root;
      seen.add(at);
    }
    return at;
  };

  // 4. The defects: roots with their evidence and what is folded under them.
  const evidence = (u: Unit): SignatureEvidence => ({
    signature: u.signature,
    checkId: u.checkId,
    operation: u.operation,
    caseClass: u.caseClass,
    level: u.level,
    clause: u.clause,
    occurrences: u.occurrences,
    findings: [...u.findings],
    ...(u.part ? { part: u.part.part } : {}),
  });
  /** A candidate's variant: its family, its failing field, or its case class (several ordinary ones: one name). */
  const variantOfCandidate = (c: Candidate): string => {
    const head = headOf(c);
    if (head.family || head.part) return variantOf(head);
    const classes = new Set(c.units.map((u) => u.caseClass));
    return classes.size === 1 ? (head.caseClass ?? '') : 'ordinary requests';
  };
  /** A candidate in words: a lone signature's own words, else check · where · variant. */
  const nameOf = (c: Candidate): string => {
    const head = headOf(c);
    const variant = variantOfCandidate(c);
    return c.units.length === 1 && !head.family && !head.part
      ? head.signature
      : [head.checkId, c.scope ?? 'any operation', ...(variant ? [variant] : [])].join(' · ');
  };
  const roots = candidates.filter((c) => rootOf(c) === c);
  const folded = new Map<Candidate, FoldedEvidence[]>();
  for (const c of candidates) {
    const root = rootOf(c);
    if (root === c) continue;
    const p = parent.get(c)!;
    const list = folded.get(root) ?? [];
    for (const u of c.units) list.push({ ...evidence(u), rule: p.rule, reason: p.reason, seenAs: nameOf(c) });
    folded.set(root, list);
  }
  const defects = roots.map((c): Defect => {
    const head = headOf(c);
    const own = c.units.flatMap((u) => u.findings);
    const unique = [...new Set(own)];
    const example = smallest(findings, unique);
    const ops = [...new Set(c.units.map((u) => u.operation).filter((o): o is string => o !== null))].sort();
    const variants = [...new Set(c.units.map((u) => u.caseClass ?? u.part?.part).filter((v): v is string => !!v))];
    const variant = variantOfCandidate(c);
    return {
      signature: nameOf(c),
      rules: [...c.rules],
      checkId: head.checkId,
      operation: ops.length === 1 ? ops[0]! : null,
      caseClass: variant || null,
      level: head.level,
      clause: head.clause,
      occurrences: occurrences(c),
      findings: [example, ...unique.filter((i) => i !== example)],
      operations: ops,
      statuses: [
        ...new Set(
          unique.map((i) => findings[i]!.exchanges[0]?.status).filter((s): s is number => typeof s === 'number'),
        ),
      ].sort((a, b) => a - b),
      variants,
      serverWide: c.serverWide,
      signatures: c.units.map(evidence),
      alsoSeenAs: folded.get(c) ?? [],
    };
  });
  return defects.sort(
    (a, b) =>
      SEVERITY[a.level] - SEVERITY[b.level] || b.occurrences - a.occurrences || a.signature.localeCompare(b.signature),
  );
}

/** Whether some kind of request is in every one of the sets. */
function sharedKind(sets: readonly ReadonlySet<string>[]): boolean {
  const [first, ...rest] = sets;
  return first !== undefined && [...first].some((k) => rest.every((s) => s.has(k)));
}

/** The example of a defect: the shrunk counterexample when there is one (the shortest), else the shortest request. */
function smallest(findings: readonly Finding[], indexes: readonly number[]): number {
  let best = indexes[0]!;
  for (const i of indexes) if (exampleRank(findings[i]!) < exampleRank(findings[best]!)) best = i;
  return best;
}

/** Every signature of a defect, its own and folded, in words. */
export const signaturesOf = (d: Defect): string[] => [
  ...new Set([...d.signatures.map((s) => s.signature), ...d.alsoSeenAs.map((s) => s.signature)]),
];
