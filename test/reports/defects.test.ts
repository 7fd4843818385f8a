/**
 * The grouping of signatures into defects, pass by pass (units, families, scope, consequences) and end to end, on
 * findings made by hand with their typed case and causes: grouping reads those, never a message, so every message
 * here is the same filler.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Cause } from '../../checks/cause.js';
import type { ExchangeRef, Finding } from '../../checks/check.js';
import type { CheckId } from '../../checks/check-id.js';
import { checkById } from '../../checks/registry.js';
import type { CaseFamily, CaseRef } from '../../generators/case.js';
import { markersIn } from '../../checks/cause.js';
import { foldRule, FoldContext } from '../../reports/defect-folds.js';
import {
  CRASH_CHECKS,
  EXPLAINS_RULES,
  KEY_WIDE,
  PAIR_RULES,
  SAME_ANSWER,
  STATUS_CHECKS,
  STORED_PET,
  TRACED_VALUE,
} from '../../reports/defect-rules.js';
import { causeKeyOf, type Defect, familiesOf, groupDefects, scopeOf, unitsOf } from '../../reports/defects.js';
import type { OperationId } from '../../spec/contract.js';

const OPS: OperationId[] = ['listPets', 'createPet', 'getPet'];
const PATH: Record<OperationId, [string, string]> = {
  listPets: ['GET', '/pets'],
  createPet: ['POST', '/pets'],
  getPet: ['GET', '/pets/1'],
};

let seq = 0;
function ref(op: OperationId, status: number | null, body: string | null = null): ExchangeRef {
  const [method, path] = PATH[op];
  return {
    seq: ++seq,
    method,
    path,
    status,
    error: status === null ? 'ECONNRESET: socket hang up' : null,
    curl: `curl -X ${method} ${path}`,
    request: { method, path, headers: {}, bodyBase64: body === null ? null : Buffer.from(body).toString('base64') },
  };
}

/** A typed case: its printed name, family and variant (the variant: the name's tail). */
const kase = (family: CaseFamily, name: string, field?: string): CaseRef => ({
  name,
  family,
  variant: name.slice(name.indexOf(':') + 1).trim(),
  ...(field ? { field } : {}),
});

function found(
  checkId: CheckId,
  op: OperationId,
  c: CaseRef | null,
  exchanges: ExchangeRef[],
  causes?: Cause[],
): Finding {
  const check = checkById(checkId);
  return {
    checkId,
    clause: check.clause,
    level: check.level,
    operation: op,
    suite: 'test',
    keyPlan: 'enterprise',
    caseClass: c?.name ?? null,
    case: c,
    // The same words on every finding: grouping never reads them.
    message: 'received something\nthe spec documents something else',
    exchanges,
    causes: causes ?? [],
  };
}

const status = (s: number, expected: number[] = [400]): Cause => ({ kind: 'status', status: s, expected });
const field = (schema: string, path: string, problem: Extract<Cause, { kind: 'field' }>['problem'], more = {}) =>
  ({ kind: 'field', schema, path, field: path.split('/').at(-1) || null, problem, ...more }) as Cause;

function grouped(findings: Finding[], operations: readonly string[] = OPS): Defect[] {
  const defects = groupDefects({ findings, operations });
  // Nothing is lost: every finding that can fail a run is under a defect, its own or folded.
  const placed = new Set(defects.flatMap((d) => [...d.signatures, ...d.alsoSeenAs].flatMap((s) => s.findings)));
  findings.forEach((f, i) => {
    if (f.level !== 'observation') expect(placed.has(i), `${f.checkId} ${f.caseClass}`).toBe(true);
  });
  return defects;
}

describe('pass 1: units', () => {
  it('a finding with two causes is in two units, each keyed by its cause; list indexes are one place', () => {
    const echo = found(
      'create-echo',
      'createPet',
      null,
      [ref('createPet', 201)],
      [
        field('NewPet', '/name', 'changed', { value: '"Rex"', sent: '" Rex"' }),
        field('NewPet', '/categoryId', 'changed', { value: '9007199254740992', sent: '9007199254740993' }),
      ],
    );
    const units = unitsOf([echo], new Map());
    expect(units.map((u) => u.part)).toEqual(['name changed', 'categoryId changed']);
    expect(units.every((u) => u.findings.length === 1 && u.occurrences === 1)).toBe(true);
    expect(causeKeyOf('body-schema', field('Pet', '/0/name', 'missing'))).toEqual(
      causeKeyOf('body-schema', field('Pet', '/3/name', 'missing')),
    );
    expect(causeKeyOf('body-schema', field('Pet', '/0/name', 'missing')).part).toBe('Pet /name missing');
  });

  it("a whole signature counts every occurrence the run counted; a crash check's finding without causes is a crash", () => {
    const f = found('no-5xx', 'getPet', kase('petId-absent', 'petId absent'), [ref('getPet', 500)]);
    const [u] = unitsOf([f], new Map([['no-5xx · getPet · petId absent [violation]', 7]]));
    expect(u).toMatchObject({ occurrences: 7, causeKey: 'crash 500', family: 'petId-absent', statusClass: 'not-2xx' });
  });
});

describe('pass 2: families', () => {
  it('crashes on one operation for one family join whichever phase found them; status and family tell apart', () => {
    const unreadable = ['invalid body: malformed JSON', 'robustness: charset=utf-16', 'robustness: multipart'];
    const crashes = unreadable.map((n) =>
      found('no-5xx', 'createPet', kase('body-unreadable', n), [ref('createPet', 500)]),
    );
    const dropped = found('transport-ok', 'createPet', kase('body-unreadable', 'robustness: nesting 3000 deep'), [
      ref('createPet', null),
    ]);
    const other = found('no-5xx', 'createPet', kase('body-wrong-type', 'invalid body: name of type null'), [
      ref('createPet', 500),
    ]);
    // A repeated member is a body a strict parser cannot read: the same crash of the body parser.
    const edge = found('no-5xx', 'createPet', kase('body-unreadable', 'robustness: duplicate member categoryId'), [
      ref('createPet', 500),
    ]);
    const groups = familiesOf(unitsOf([...crashes, edge, dropped, other], new Map()));
    expect(groups.map((g) => g.units.length).sort()).toEqual([1, 1, 4]);
    const defects = grouped([...crashes, edge, dropped, other]);
    expect(defects).toHaveLength(3);
    expect(defects.find((d) => d.variants.length === 4)!.signature).toBe('no-5xx · createPet · invalid body: not JSON');
  });

  it('a family of auth variants accepted is one defect; another family or status class is another', () => {
    const f = (fam: CaseFamily, v: string, s: number) =>
      found('auth-rejected', 'listPets', kase(fam, `auth: ${v}`), [ref('listPets', s)], [status(s, [401])]);
    const groups = familiesOf(
      unitsOf(
        [
          f('auth-other-scheme', 'Basic scheme', 200),
          f('auth-other-scheme', 'Token scheme', 200),
          f('auth-wrong-key', 'unknown key', 200),
          f('auth-wrong-key', 'altered key', 403),
        ],
        new Map(),
      ),
    );
    expect(groups.map((g) => g.units.map((u) => u.variant)).sort()).toEqual([
      ['Basic scheme', 'Token scheme'],
      ['altered key'],
      ['unknown key'],
    ]);
  });
});

describe('pass 3: scope', () => {
  it('the same check and family on every operation exercised: one server-wide defect listing its variants', () => {
    const findings = OPS.flatMap((op) =>
      ['Basic scheme', 'Token scheme', 'no scheme'].map((v) =>
        found('auth-rejected', op, kase('auth-other-scheme', `auth: ${v}`), [ref(op, 200)], [status(200, [401])]),
      ),
    );
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({
      checkId: 'auth-rejected',
      serverWide: true,
      operations: ['createPet', 'getPet', 'listPets'],
      variants: ['auth: Basic scheme', 'auth: Token scheme', 'auth: no scheme'],
      rules: expect.arrayContaining(['family:auth-other-scheme', 'server-wide']),
    });
    expect(defects[0]!.signatures).toHaveLength(9);
    // On two of three operations the run exercised: not server-wide, one per operation.
    expect(grouped(findings.filter((f) => f.operation !== 'getPet'))).toHaveLength(2);
  });

  it('the same check on every operation, provoked by unrelated families, stays one defect per operation', () => {
    const findings = [
      found('no-5xx', 'listPets', kase('query-invalid-limit', 'query: limit not a number'), [ref('listPets', 500)]),
      found('no-5xx', 'getPet', kase('petId-absent', 'petId absent'), [ref('getPet', 500)]),
      found('no-5xx', 'createPet', kase('body-unreadable', 'invalid body: malformed JSON'), [ref('createPet', 500)]),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(3);
    expect(defects.every((d) => !d.serverWide)).toBe(true);
  });

  it('a check failing on ordinary requests of every operation is one server-wide defect', () => {
    const findings = [
      found('rate-limit-reset-epoch', 'listPets', kase('ordinary', 'query: no parameters'), [ref('listPets', 200)]),
      found('rate-limit-reset-epoch', 'createPet', null, [ref('createPet', 201)]),
      found('rate-limit-reset-epoch', 'getPet', kase('ordinary', 'petId existing'), [ref('getPet', 200)]),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({ serverWide: true, signature: 'rate-limit-reset-epoch · every operation' });
    expect(grouped(findings.slice(0, 2))).toHaveLength(2);
  });

  it("a key's counter check on several operations is one key-wide defect", () => {
    const findings = (['listPets', 'getPet'] as const).map((op) =>
      found(KEY_WIDE.checks[0]!, op, null, [ref(op, 200)]),
    );
    const defects = grouped(findings, OPS);
    expect(defects).toHaveLength(1);
    expect(defects[0]!.rules).toContain('key-wide');
  });

  it('every invalid body refused with one undocumented status is one defect listing the families', () => {
    const refused = (fam: CaseFamily, n: string, s = 422) =>
      found('create-invalid-rejected', 'createPet', kase(fam, n), [ref('createPet', s)], [status(s)]);
    const findings = [
      refused('body-required-missing', 'invalid body: missing name'),
      refused('body-required-missing', 'robustness: member Name (case variant)'),
      refused('body-wrong-type', 'invalid body: name of type number'),
      refused('body-enum', 'invalid body: unknown status'),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({ rules: expect.arrayContaining(['same-answer']), statuses: [422] });
    expect(defects[0]!.variants).toHaveLength(4);
    // Accepting (a 2xx) stays per family: each family is its own missing guard.
    const accepted = (fam: CaseFamily, n: string) =>
      found('create-invalid-rejected', 'createPet', kase(fam, n), [ref('createPet', 201)], [status(201)]);
    expect(
      grouped([
        accepted('body-required-missing', 'invalid body: missing name'),
        accepted('body-not-integer', 'invalid body: categoryId'),
      ]),
    ).toHaveLength(2);
    // Two different wrong statuses: two rejection paths.
    expect(
      grouped([
        refused('body-required-missing', 'invalid body: missing name'),
        refused('body-enum', 'invalid body: unknown status', 409),
      ]),
    ).toHaveLength(2);
  });

  it('an Error body lacking several members, on several statuses and operations, is one defect', () => {
    const noCodeNoMessage = (op: OperationId, s: number, n: string, fam: CaseFamily) =>
      found(
        'body-schema',
        op,
        kase(fam, n),
        [ref(op, s)],
        [field('Error', '/code', 'missing'), field('Error', '/message', 'missing')],
      );
    const findings = [
      noCodeNoMessage('createPet', 400, 'invalid body: missing name', 'body-required-missing'),
      noCodeNoMessage('getPet', 404, 'petId absent', 'petId-absent'),
      noCodeNoMessage('listPets', 401, 'auth: header missing', 'auth-missing-key'),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({ checkId: 'body-schema', statuses: [400, 401, 404] });
    expect(defects[0]!.rules).toEqual(expect.arrayContaining(['server-wide', 'error-members']));
    // One member alone keeps its words; on two operations of three, it lists them.
    const one = findings.map((f) => ({ ...f, causes: [field('Error', '/code', 'missing')] }));
    expect(grouped(one)[0]!.signature).toBe('body-schema · every operation · Error /code missing');
    expect(grouped(one.slice(0, 2))[0]).toMatchObject({
      signature: 'body-schema · createPet, getPet · Error /code missing',
      rules: ['same-field'],
    });
  });

  it('headers missing together on the same answers, whatever the status, are one server-wide defect', () => {
    const missing = (name: string): Cause => ({ kind: 'header', name, problem: 'missing', value: null });
    const findings = OPS.flatMap((op) =>
      [200, 404].map((s) =>
        found(
          'rate-limit-headers-present',
          op,
          null,
          [ref(op, s)],
          [missing('X-RateLimit-Limit'), missing('X-RateLimit-Remaining')],
        ),
      ),
    );
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({
      serverWide: true,
      signature: 'rate-limit-headers-present · every operation · X-RateLimit-Limit, X-RateLimit-Remaining missing',
      rules: expect.arrayContaining(['server-wide', 'headers-missing']),
    });
    // One header missing on its own answers and another on others: two defects.
    const apart = [
      found('rate-limit-headers-present', 'listPets', null, [ref('listPets', 200)], [missing('X-RateLimit-Limit')]),
      found('rate-limit-headers-present', 'listPets', null, [ref('listPets', 200)], [missing('Retry-After')]),
    ];
    expect(grouped(apart, ['listPets'])).toHaveLength(2);
  });

  it('a field of a listed pet fails where the Pet itself does: one defect (Pets items are Pets)', () => {
    const noId = (op: OperationId, schema: string, path: string) =>
      found('body-schema', op, null, [ref(op, 200)], [field(schema, path, 'missing')]);
    const defects = grouped([noId('listPets', 'Pets', '/0/id'), noId('getPet', 'Pet', '/id')]);
    expect(defects).toHaveLength(1);
    expect(defects[0]!.operations).toEqual(['getPet', 'listPets']);
  });

  it('scopeOf joins nothing that differs in check, family and cause', () => {
    const a = found(
      'get-404',
      'getPet',
      kase('petId-absent', 'petId absent'),
      [ref('getPet', 200)],
      [status(200, [404])],
    );
    const b = found(
      'get-200',
      'getPet',
      kase('ordinary', 'petId existing'),
      [ref('getPet', 404)],
      [status(404, [200])],
    );
    expect(scopeOf(familiesOf(unitsOf([a, b], new Map())), new Set(OPS))).toHaveLength(2);
  });
});

describe('pass 4: consequences', () => {
  const marker = 'psc-marker-00000000000000aa';
  const missingName = () =>
    found(
      'create-invalid-rejected',
      'createPet',
      kase('body-required-missing', 'invalid body: missing name', 'name'),
      [ref('createPet', 201, '{"categoryId":3}')],
      [status(201)],
    );
  const fractional = () =>
    found(
      'create-invalid-rejected',
      'createPet',
      kase('body-not-integer', 'invalid body: categoryId', 'categoryId'),
      [ref('createPet', 201, `{"name":"${marker}","categoryId":1.5}`)],
      [status(201)],
    );
  // One list body with two causes: a pet without a name, and the fractional categoryId stored as sent.
  const mixedList = () =>
    found(
      'body-schema',
      'listPets',
      null,
      [ref('listPets', 200)],
      [field('Pet', '/0/name', 'missing'), field('Pet', '/1/categoryId', 'type', { value: '1.5', markers: [marker] })],
    );

  it('a list body that mixes causes is split, each part folded under its own cause; the two causes stay two', () => {
    const defects = grouped([missingName(), fractional(), mixedList()]);
    expect(defects).toHaveLength(2);
    const folded = (d: Defect) => d.alsoSeenAs.map((s) => [s.checkId, s.operation, s.part, s.rule]);
    const byCase = (c: string) => defects.find((d) => d.variants.includes(c))!;
    expect(folded(byCase('invalid body: missing name'))).toEqual([
      ['body-schema', 'listPets', 'Pet /name missing', 'traced-value'],
    ]);
    expect(folded(byCase('invalid body: categoryId'))).toEqual([
      ['body-schema', 'listPets', 'Pet /categoryId', 'traced-value'],
    ]);
  });

  it('a failure on a stored pet that nothing traces back to stays a defect of its own', () => {
    const lost = found(
      'body-schema',
      'listPets',
      null,
      [ref('listPets', 200)],
      [field('Pet', '/0/status', 'value', { value: '"lost"' })],
    );
    const defects = grouped([missingName(), lost]);
    expect(defects.map((d) => d.checkId).sort()).toEqual(['body-schema', 'create-invalid-rejected']);
    expect(defects.every((d) => d.alsoSeenAs.length === 0)).toBe(true);
  });

  it('two fields changed on the way in (one finding, two faults) are two defects, each with what it traced', () => {
    const echo = found(
      'create-echo',
      'createPet',
      null,
      [ref('createPet', 201)],
      [
        field('NewPet', '/name', 'changed', { value: '"Rex"', sent: '" Rex "' }),
        field('NewPet', '/categoryId', 'changed', { value: '9223372036854775808', sent: '9223372036854775806' }),
      ],
    );
    const served = found(
      'int64-exact',
      'getPet',
      null,
      [ref('getPet', 200)],
      [field('Pet', '/categoryId', 'beyond-int64', { value: '9223372036854775808' })],
    );
    const other = found(
      'int64-exact',
      'getPet',
      null,
      [ref('getPet', 200)],
      [field('Pet', '/id', 'beyond-int64', { value: '9223372036854775809' })],
    );
    const defects = grouped([echo, served, other]);
    expect(defects.map((d) => [d.checkId, d.caseClass]).sort()).toEqual([
      ['create-echo', 'categoryId changed'],
      ['create-echo', 'name changed'],
      ['int64-exact', 'id beyond int64'],
    ]);
    const root = defects.find((d) => d.caseClass === 'categoryId changed')!;
    expect(root.alsoSeenAs.map((s) => [s.checkId, s.part, s.rule])).toEqual([
      ['int64-exact', 'categoryId beyond int64', 'traced-value'],
    ]);
  });

  it('an echo on the same exchanges is folded; a finding with exchanges of its own is not', () => {
    const ex = ref('getPet', 500);
    const absent = kase('petId-absent', 'petId absent');
    const defects = grouped([
      found('no-5xx', 'getPet', absent, [ex]),
      found('get-404', 'getPet', absent, [ex], [status(500, [404])]),
      found('get-404', 'getPet', absent, [ref('getPet', 200)], [status(200, [404])]),
    ]);
    expect(defects.map((d) => d.checkId).sort()).toEqual(['get-404', 'no-5xx']);
  });

  it('an Error without code on the 429s too (a warning of another check) is folded under the same defect', () => {
    const noCode = (op: OperationId, s: number, c: CaseRef) =>
      found('body-schema', op, c, [ref(op, s)], [field('Error', '/code', 'missing')]);
    const on429 = found(
      'error-body-429',
      'listPets',
      null,
      [ref('listPets', 429)],
      [field('Error', '/code', 'missing')],
    );
    const defects = grouped([
      noCode('createPet', 400, kase('body-required-missing', 'invalid body: missing name')),
      noCode('getPet', 404, kase('petId-absent', 'petId absent')),
      on429,
    ]);
    expect(defects).toHaveLength(1);
    expect(defects[0]!.alsoSeenAs.map((s) => [s.checkId, s.part, s.rule])).toEqual([
      ['error-body-429', 'Error /code missing', 'error-body-every-status'],
    ]);
  });

  it('the fold rules read markers from request bodies as data, and never fold a root of lower severity', () => {
    expect([...markersIn({ name: `${marker} x`, tags: [{ n: marker }] })]).toEqual([marker]);
    const groups = familiesOf(unitsOf([missingName(), mixedList()], new Map()));
    const x = new FoldContext([missingName(), mixedList()]);
    const list = groups.find((g) => g.units[0]!.part === 'Pet /name missing')!;
    const root = groups.find((g) => g.units[0]!.checkId === 'create-invalid-rejected')!;
    expect(foldRule(x, list, root)?.rule).toBe('traced-value');
    root.units[0] = { ...root.units[0]!, level: 'warning' };
    expect(foldRule(x, list, root)).toBeNull();
  });
});

describe('the rules are data', () => {
  it('every rule names real checks, has an id of its own and a reason', () => {
    const ids = [...EXPLAINS_RULES.map((r) => r.id), ...PAIR_RULES.map((r) => r.id), STORED_PET.id, TRACED_VALUE.id];
    expect(new Set(ids).size).toBe(ids.length);
    const named = [
      ...EXPLAINS_RULES.flatMap((r) => [...r.roots, ...(Array.isArray(r.explains) ? r.explains : [])]),
      ...PAIR_RULES.flatMap((r) => [...r.roots, r.consequence]),
      ...STORED_PET.roots,
      ...STORED_PET.consequences,
      ...TRACED_VALUE.roots,
      ...TRACED_VALUE.consequences,
      ...STATUS_CHECKS,
      ...KEY_WIDE.checks,
      ...Object.keys({ ...CRASH_CHECKS, ...SAME_ANSWER }),
    ].filter((id) => id !== 'response');
    for (const id of named) expect(() => checkById(id), id).not.toThrow();
    for (const r of [...EXPLAINS_RULES, ...PAIR_RULES]) expect(r.reason.length, r.id).toBeGreaterThan(20);
    for (const reason of Object.values({ ...CRASH_CHECKS, ...SAME_ANSWER })) expect(reason!.length).toBeGreaterThan(20);
  });

  it('no regular expression in reports/ reads a message, an expected or actual text, or a case class', () => {
    const dir = new URL('../../reports/', import.meta.url);
    // A regular expression applied to them (splitting a message into lines to print it is rendering, not reading).
    const reads =
      /\.(message|expected|actual|caseClass)\b[^;\n]*\.(match|matchAll|replace|split|search)\(\s*\/|\/\.(test|exec)\([^)\n]*\.(message|expected|actual|caseClass)\b/;
    const offending = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        readFileSync(new URL(f, dir), 'utf8')
          .split('\n')
          // Line breaks made HTML line breaks: rendering.
          .flatMap((line, i) => (reads.test(line.replace('(/\\n/g,', '')) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offending).toEqual([]);
  });
});
