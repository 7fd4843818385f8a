/**
 * A check is a small named pure function from evidence (one exchange, or the exchanges of one scenario) to findings.
 * It never does I/O and never throws for a misbehaving target: whatever the target sent is data to judge.
 */
import { contract, type OperationId } from '../spec/contract.js';
import type { Exchange } from '../http/exchange.js';
import { toCurl } from '../http/curl.js';
import { stringifyLossless } from '../http/lossless.js';
import { scrub } from '../http/redact.js';
import { clause as clauseOf } from '../spec/clauses.js';
import type { CaseRef } from '../generators/case.js';
import type { CheckId } from './check-id.js';
import { causesText, type Cause, type CauseKind } from './cause.js';

/** violation fails the run; warning is should-level (fails with --strict); observation records a gap's behaviour. */
export type Level = 'violation' | 'warning' | 'observation';

/** Whether a finding of this level fails the run: a violation always, a warning with --strict. */
export const failsRun = (level: Level, strict: boolean): boolean =>
  level === 'violation' || (strict && level === 'warning');

export interface ExchangeRef {
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly status: number | null;
  readonly error: string | null;
  /** Runnable curl line; keys appear only as $PETSTORE_API_KEY_<PLAN>. */
  readonly curl: string;
  /** The exact request, for replay files: headers carry key placeholders, the body its raw bytes. */
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly bodyBase64: string | null;
    /** The request-target sent verbatim, when it was (a path variant URL parsing would have resolved). */
    readonly rawTarget?: string;
  };
  /**
   * The response as the reports show it (a violation's or a warning's; an observation keeps none, and the run's log
   * keeps it on the one best-ranked finding of each signature only: exampleRank in runner/findings.ts): its headers,
   * and its body as text up to RESPONSE_TEXT_MAX characters.
   */
  readonly response?: {
    readonly headers: Readonly<Record<string, string | string[]>>;
    readonly bodyText: string;
    /**
     * Where the body was cut: `report`, longer than the reference keeps (a HAR, --har, has it whole); `read-cap`, the
     * client stopped reading it at its cap (nothing has more); null, whole.
     */
    readonly cut: 'report' | 'read-cap' | null;
  };
}

/** Characters of a response body a finding's exchange reference keeps for the reports. */
export const RESPONSE_TEXT_MAX = 4096;

export interface Repro {
  readonly seed: number;
  /** fast-check path of the shrunk counterexample within its property (with `seed`, fast-check replays exactly it). */
  readonly path?: string;
  /** The shrunk counterexample, as fast-check prints it. */
  readonly counterexample?: string;
  readonly shrinks?: number;
}

export interface Finding {
  readonly checkId: CheckId;
  /** One of the check's declared clauses. */
  readonly clause: string;
  /** One of the check's declared levels (or 'warning' for a harness error, see `harnessError`). */
  readonly level: Level;
  readonly operation: OperationId | null;
  /** The suite that recorded the finding (stamped by the run context; null outside a suite). */
  readonly suite: string | null;
  /** Which key the evidence used, by plan ('none'/'invalid' for deliberately bad keys; null when no key is known). */
  readonly keyPlan: KeyPlan | null;
  /**
   * The class of case that provoked it (an invalid-body kind, an auth variant, an id or query class), when the
   * scenario knows it: with check and operation, the finding's signature.
   */
  readonly caseClass: string | null;
  /** The case that provoked it, typed (its family and variant: what grouping reads); caseClass is its name. */
  readonly case: CaseRef | null;
  /** Set when the check itself failed on odd evidence: a defect of the harness, not of the target. */
  readonly harnessError?: true;
  /**
   * What went wrong, as data (checks/cause.ts): each of the check's declared kinds, one per cause (a create echoing two
   * changed fields has two). A violation or a warning has at least one; an observation may have none, a harness error
   * has none (it is no defect of the target).
   */
  readonly causes: readonly Cause[];
  /**
   * What went wrong, in words: a violation's or a warning's first line is rendered from its causes (see Said), the
   * lines after it say what is documented and how the run measured it. Reports show it; none reads it.
   */
  readonly message: string;
  readonly expected?: string;
  readonly actual?: string;
  readonly exchanges: readonly ExchangeRef[];
  repro?: Repro;
}

export type KeyPlan = Exchange['keyPlan'];

export type Area =
  | 'response'
  | 'auth'
  | 'listPets'
  | 'createPet'
  | 'getPet'
  | 'stateful'
  | 'robustness'
  | 'rate-limit'
  | 'run';

/**
 * What a check says about itself: everything it can emit is declared here, so its definition is its whole truth. `Id`
 * is its id as a literal type: the registry's ids are the type CheckId (checks/check-id.ts).
 */
export interface CheckDefinition<E, Id extends string = CheckId> {
  readonly id: Id;
  /** Every clause its findings can cite, the primary first. */
  readonly clauses: readonly [string, ...string[]];
  /** Every level its findings can have, the default first (a harness error is always a warning besides). */
  readonly levels: readonly [Level, ...Level[]];
  /** Every kind of cause its findings can carry (checks/cause.ts): `finding()` refuses any other. */
  readonly causes: readonly [CauseKind, ...CauseKind[]];
  /** Clauses the check speaks for without citing them in a finding (e.g. body-schema validates the PetStatus enum). */
  readonly covers?: readonly string[];
  /**
   * What tells two of its findings apart as distinct defects: 'case' (check, operation and the class of case that
   * provoked it: a 500 for a null name is not the 500 for a string categoryId) or 'operation' (a header missing is one
   * defect of the operation whatever was sent). Default: 'case', except for the response checks.
   */
  readonly signature?: 'case' | 'operation';
  /** Spec area the check belongs to (its file). */
  readonly area: Area;
  /** One line: what the check verifies. */
  readonly title: string;
  /**
   * When the check applies (default: to every piece of evidence it is given): a clause is proven on an operation only
   * by evidence a check of it applied to and passed, so a check about 429 answers proves nothing where none came.
   */
  readonly appliesTo?: AppliesTo<E>;
  /**
   * The operations it can ever judge, when fewer than its area's (`areaOperations`); a function of the clause when they
   * differ by clause (body-schema: the Pets schema only where an operation documents Pets). The table of evidence
   * shows no cell a check could never judge; one still appears wherever evidence or a finding arrived.
   */
  readonly operations?: readonly OperationId[] | ((clause: string) => readonly OperationId[]);
  run(evidence: E): Finding[];
}

/**
 * Whether a check applies to a piece of evidence: false, it judges nothing there; true, it bears on all its clauses
 * (cited and covered); a list of clause ids, on those only (body-schema: the schema of the answer's status, and the
 * PetStatus enum only where a Pet is).
 */
export type Applies = boolean | readonly string[];

/**
 * What evidence a check judges: `test` says whether it applies to this evidence (see Applies). `what` says it in words,
 * for a report that must say why a check judged nothing ("429 answers").
 */
export interface AppliesTo<E> {
  readonly what: string;
  readonly test: (evidence: E) => Applies;
  /** The operation the evidence bears on, when it is not its exchange's (a path variant resembling one). */
  readonly operation?: (evidence: E) => OperationId | null;
}

export interface Check<E, Id extends string = CheckId> extends CheckDefinition<E, Id> {
  /** The primary clause (clauses[0]): what JUnit names and the clause-coverage test read. */
  readonly clause: string;
  /** The default level (levels[0]). */
  readonly level: Level;
  readonly covers: readonly string[];
  readonly signature: 'case' | 'operation';
  /** What evidence it judges, in words (its declaration's, or every piece of evidence it is given). */
  readonly appliesToWhat: string;
  /**
   * Whether it applies to this evidence (see Applies). Never throws: a
   * declaration that fails on odd evidence says it applies, so the check's own guard reports what went wrong.
   */
  applies(evidence: E): Applies;
  /** The operation the evidence bears on (its declaration's, else evidenceOperation's). */
  operationOf(evidence: E): OperationId | null;
  /** The operations it can judge on this clause of its own (its declaration's, else its area's: `areaOperations`). */
  operationsFor(clause: string): readonly OperationId[];
}

/**
 * The operations a check of this area judges by default: an operation's checks, that operation; a limit check, the
 * rate-limit suites' listPets; a check of the run, none; the others (response, auth, stateful, robustness), every one.
 */
export function areaOperations(area: Area): readonly OperationId[] {
  switch (area) {
    case 'listPets':
    case 'createPet':
    case 'getPet':
      return [area];
    case 'rate-limit':
      return ['listPets'];
    case 'run':
      return [];
    default:
      return [...contract.operations.keys()];
  }
}

/** A check over any evidence: what catalogues of checks over different evidence types hold. */
// biome-ignore lint/suspicious/noExplicitAny: a catalogue holds checks over different evidence types
export type AnyCheck = Check<any, string>;

/**
 * The reference a finding keeps to an exchange. Its curl line and body in base64 are made when first read (a report,
 * a replay file): most findings are observations the run's log counts and drops, and rendering them costs more than
 * the checks that made them. Both are enumerable properties, so copies and serialisations carry them.
 */
export function refOf(ex: Exchange, bodyCap = Number.POSITIVE_INFINITY, keepResponse = true): ExchangeRef {
  // A request body over the cap is left out of the reference (its curl line says so), never cut: an observation of
  // how a megabyte body was answered needs no copy of the megabyte in every report.
  const elided = ex.request.body !== null && ex.request.body.length > bodyCap;
  const req = elided
    ? { ...ex.request, body: Buffer.from(`<${ex.request.body!.length} bytes, not kept>`) }
    : ex.request;
  let curl: string | undefined;
  let bodyBase64: string | null | undefined;
  return {
    seq: ex.seq,
    method: req.method,
    path: req.path,
    status: ex.response?.status ?? null,
    error: ex.error ? `${ex.error.code}: ${ex.error.message}` : null,
    ...(keepResponse && ex.response
      ? {
          // A target may echo a key back: the reports hold placeholders only. Odd evidence (no headers) never throws.
          response: {
            headers: Object.fromEntries(
              Object.entries(ex.response.headers ?? {}).map(([k, v]) => [
                k,
                Array.isArray(v) ? v.map(scrub) : scrub(v),
              ]),
            ),
            // A copy, not a slice: V8's slice would keep the whole body (up to the client's 4 MB cap) alive with it.
            bodyText: Buffer.from(scrub(String(ex.response.bodyText ?? '').slice(0, RESPONSE_TEXT_MAX))).toString(),
            cut:
              ex.response.truncated === true
                ? 'read-cap'
                : String(ex.response.bodyText ?? '').length > RESPONSE_TEXT_MAX
                  ? 'report'
                  : null,
          },
        }
      : {}),
    get curl(): string {
      curl ??= toCurl(req);
      return curl;
    },
    request: {
      method: req.method,
      path: req.path,
      headers: req.headers,
      ...(req.rawTarget !== undefined && { rawTarget: req.rawTarget }),
      get bodyBase64(): string | null {
        if (bodyBase64 === undefined)
          bodyBase64 = req.body === null || elided ? null : Buffer.from(req.body).toString('base64');
        return bodyBase64;
      },
    },
  };
}

/** The reference without its response (the run's log keeps the response on a signature's best-ranked finding only). */
export function withoutResponse(ref: ExchangeRef): ExchangeRef {
  if (ref.response === undefined) return ref;
  // Copied by descriptor: the lazy curl line and body stay lazy.
  const { response: _, ...rest } = Object.getOwnPropertyDescriptors(ref);
  return Object.defineProperties({}, rest) as ExchangeRef;
}

/**
 * Request bodies an observation keeps in its exchange references at most: it records how the target answered, it is no
 * defect to replay (a violation keeps every byte, its curl line and replay file resend them exactly).
 */
export const OBSERVATION_BODY_MAX = 64 * 1024;

export interface FindingDetail {
  readonly expected?: string;
  readonly actual?: string;
  /** Defaults to the first exchange's operation. */
  readonly operation?: OperationId | null;
  /** One of the check's declared clauses; defaults to the primary. */
  readonly clause?: string;
  /** One of the check's declared levels; defaults to the default level. */
  readonly level?: Level;
  /** Defaults to the first exchange's key plan. */
  readonly keyPlan?: KeyPlan | null;
  readonly caseClass?: string | null;
  readonly case?: CaseRef | null;
  /**
   * What went wrong, as data: each of a kind the check declares. Required (one at least) of a violation or a warning;
   * a `gap` cause is an observation's only.
   */
  readonly causes?: readonly Cause[];
}

/**
 * What a violation or a warning says around its causes. Its message is rendered from them: the first line is `lead`,
 * the causes in their words (causesText) and `on`; `because` is the rest (what the spec documents, how the run measured
 * it). So a message never says a cause its data does not carry, nor leaves one out.
 */
export interface Said {
  /** Before the causes: 'received a body that is not Pet on 200 for GET /pets:'. */
  readonly lead?: string;
  /** After the causes: where and with what ('for GET /pets with lower-case scheme'). */
  readonly on?: string;
  /** The lines after the first. */
  readonly because: string;
}

/** A message rendered from its causes (see Said). */
export function sayCauses(causes: readonly Cause[], said: Said): string {
  const first = [said.lead, causesText(causes), said.on].filter((part) => part !== undefined && part !== '').join(' ');
  return said.because === '' ? first : `${first}\n${said.because}`;
}

/**
 * Builds a finding of `check` about the given exchanges. The clause, the level and the kind of every cause must be
 * among those the check declares, a gap clause backs only observations, and a violation or warning says its cause:
 * anything else is a harness bug (the guard turns it into a warning). A violation's or a warning's message is rendered
 * from its causes (`said`); an observation's may be written whole.
 */
export function finding(
  check: Pick<Check<unknown, CheckId>, 'id' | 'clauses' | 'levels' | 'causes'>,
  exchanges: Exchange | readonly Exchange[],
  said: Said,
  detail: FindingDetail = {},
): Finding {
  return build(check, exchanges, said, detail);
}

/** A finding, its message rendered from its causes (`Said`) or, for an observation only, written whole. */
function build(
  check: Pick<Check<unknown, CheckId>, 'id' | 'clauses' | 'levels' | 'causes'>,
  exchanges: Exchange | readonly Exchange[],
  said: Said | string,
  detail: FindingDetail,
): Finding {
  const list = Array.isArray(exchanges) ? (exchanges as readonly Exchange[]) : [exchanges as Exchange];
  const clause = detail.clause ?? check.clauses[0];
  const level = detail.level ?? check.levels[0];
  if (!check.clauses.includes(clause)) throw new Error(`${check.id} does not declare clause ${clause}`);
  if (!check.levels.includes(level)) throw new Error(`${check.id} does not declare level ${level}`);
  if (level !== 'observation' && clauseOf(clause).level === 'gap')
    throw new Error(`${check.id}: gap clause ${clause} backs only observations, not a ${level}`);
  if (level === 'violation' && clauseOf(clause).level === 'harness')
    throw new Error(`${check.id}: harness clause ${clause} is no requirement of the spec: a warning at most`);
  const causes = detail.causes ?? [];
  for (const c of causes) {
    if (!check.causes.includes(c.kind)) throw new Error(`${check.id} does not declare causes of kind ${c.kind}`);
    if (c.kind === 'gap' && level !== 'observation')
      throw new Error(`${check.id}: a gap cause records an observation, not a ${level}`);
  }
  if (level !== 'observation' && causes.length === 0) throw new Error(`${check.id}: a ${level} must say its cause`);
  // The type of `finding` asks for a Said already: this holds a caller that casts its way past it.
  if (level !== 'observation' && typeof said === 'string')
    throw new Error(`${check.id}: a ${level}'s message is rendered from its causes, not written whole`);
  const message = typeof said === 'string' ? said : sayCauses(causes, said);
  return {
    checkId: check.id,
    clause,
    level,
    operation: detail.operation !== undefined ? detail.operation : (list[0]?.operation ?? null),
    suite: null,
    keyPlan: detail.keyPlan !== undefined ? detail.keyPlan : (list[0]?.keyPlan ?? null),
    caseClass: detail.caseClass ?? detail.case?.name ?? null,
    case: detail.case ?? null,
    causes: Object.freeze([...causes]),
    message,
    ...(detail.expected !== undefined ? { expected: detail.expected } : {}),
    ...(detail.actual !== undefined ? { actual: detail.actual } : {}),
    exchanges: list.map((ex) => (level === 'observation' ? refOf(ex, OBSERVATION_BODY_MAX, false) : refOf(ex))),
  };
}

/** A finding at level observation (the check must declare it): what a gap's behaviour was, or why nothing was judged. */
export function observation(
  check: Pick<Check<unknown, CheckId>, 'id' | 'clauses' | 'levels' | 'causes'>,
  exchanges: Exchange | readonly Exchange[],
  message: Said | string,
  detail: Omit<FindingDetail, 'level'> = {},
): Finding {
  return build(check, exchanges, message, { ...detail, level: 'observation' });
}

/** The exchange an evidence object is about, when it names one (for a harness error's finding). */
function exchangeOf(evidence: unknown): Exchange | null {
  const ev = evidence as { exchange?: unknown; create?: unknown; rejection?: unknown } | null;
  const ex = ev?.exchange ?? ev?.create ?? ev?.rejection;
  return ex && typeof ex === 'object' && 'request' in ex ? (ex as Exchange) : null;
}

const isExchange = (x: unknown): x is Exchange => !!x && typeof x === 'object' && 'request' in x;

/**
 * The operation a piece of evidence is about, for the table of evidence: its exchange's (or the create's, the refusal's,
 * the known state's of a burst, the first 429's, the first of its exchanges'); null when it names none (the run counts
 * it for its suite's first operation, as it does a finding without one).
 */
export function evidenceOperation(evidence: unknown): OperationId | null {
  const ev = evidence as Record<string, unknown> | null;
  if (!ev || typeof ev !== 'object') return null;
  const list = Array.isArray(ev.exchanges) ? ev.exchanges : [];
  for (const x of [ev.exchange, ev.create, ev.rejection, ev.known, ev.first429, list[0]])
    if (isExchange(x)) return x.operation;
  return null;
}

const EVERY_EVIDENCE = 'every piece of evidence it is given';

/**
 * Freezes a check and guards its run: a bug of the harness on some odd evidence becomes a visible warning of that
 * check (fails with --strict), never a crash and never a violation of the target.
 */
export function defineCheck<E, const Id extends CheckId>(definition: CheckDefinition<E, Id>): Check<E, Id> {
  // A check that declares no kind of cause could say no violation: a bug of the harness, caught when it loads.
  if (!Array.isArray(definition.causes) || definition.causes.length === 0)
    throw new Error(`${definition.id} declares no kind of cause`);
  const byArea = Object.freeze(areaOperations(definition.area));
  const check: Check<E, Id> = {
    ...definition,
    clauses: Object.freeze([...definition.clauses]) as unknown as Check<E>['clauses'],
    levels: Object.freeze([...definition.levels]) as unknown as Check<E>['levels'],
    causes: Object.freeze([...definition.causes]) as unknown as Check<E>['causes'],
    covers: Object.freeze([...(definition.covers ?? [])]),
    signature: definition.signature ?? (definition.area === 'response' ? 'operation' : 'case'),
    clause: definition.clauses[0],
    level: definition.levels[0],
    appliesToWhat: definition.appliesTo?.what ?? EVERY_EVIDENCE,
    applies(evidence: E): Applies {
      if (!definition.appliesTo) return true;
      try {
        return definition.appliesTo.test(evidence);
      } catch {
        return true;
      }
    },
    operationsFor(clause: string): readonly OperationId[] {
      const declared = definition.operations;
      if (declared === undefined) return byArea;
      return typeof declared === 'function' ? declared(clause) : declared;
    },
    operationOf(evidence: E): OperationId | null {
      try {
        return definition.appliesTo?.operation?.(evidence) ?? evidenceOperation(evidence);
      } catch {
        return null;
      }
    },
    run(evidence: E): Finding[] {
      try {
        return definition.run(evidence);
      } catch (e) {
        const ex = exchangeOf(evidence);
        return [
          {
            checkId: definition.id,
            clause: definition.clauses[0],
            level: 'warning',
            operation: ex?.operation ?? null,
            suite: null,
            keyPlan: ex?.keyPlan ?? null,
            caseClass: null,
            case: null,
            harnessError: true,
            // A bug of the harness is no defect of the target: it has no cause to group.
            causes: [],
            message: `${definition.id} could not judge this evidence (harness error)\n${String((e as Error)?.message ?? e).slice(0, 200)}`,
            exchanges: ex ? [refOf(ex)] : [],
          },
        ];
      }
    },
  };
  return Object.freeze(check);
}

/** Short, safe rendering of a value for messages (bodies can be huge or binary). */
export function show(value: unknown, max = 200): string {
  let s: string;
  try {
    s =
      typeof value === 'string'
        ? JSON.stringify(value)
        : // JSON numbers stay numbers, int64 beyond 2^53 (lossless or bigint) with their exact digits.
          stringifyLossless(value);
  } catch {
    s = String(value);
  }
  if (s === undefined) s = String(value);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}
