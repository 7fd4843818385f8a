/**
 * The grouping of signatures into defects, rule by rule, on findings made by the real checks where the words matter
 * (body-schema's failing paths) and by hand elsewhere: families, server-wide, split by field, traced consequences,
 * Error bodies on several statuses, and that grouping neither hides a cause nor drops a finding.
 */
import { describe, expect, it } from 'vitest';
import type { ExchangeRef, Finding } from '../../checks/check.js';
import type { CheckId } from '../../checks/check-id.js';
import { checkById } from '../../checks/registry.js';
import { bodySchema } from '../../checks/response.js';
import {
  EXPLAINS_RULES,
  FAMILY_RULES,
  PAIR_RULES,
  SPLIT_BY_FIELD,
  STATUS_CHECKS,
  STORED_PET,
  TRACED_VALUE,
} from '../../reports/defect-rules.js';
import { type Defect, groupDefects } from '../../reports/defects.js';
import type { OperationId } from '../../spec/contract.js';
import { exchange } from '../checks/fixtures.js';

const OPS: OperationId[] = ['listPets', 'createPet', 'getPet'];
const PATH: Record<OperationId, [string, string]> = {
  listPets: ['GET', '/pets'],
  createPet: ['POST', '/pets'],
  getPet: ['GET', '/pets/1'],
};

let seq = 0;
function ref(op: OperationId, status: number, body: string | null = null): ExchangeRef {
  const [method, path] = PATH[op];
  return {
    seq: ++seq,
    method,
    path,
    status,
    error: null,
    curl: `curl -X ${method} ${path}`,
    request: { method, path, headers: {}, bodyBase64: body === null ? null : Buffer.from(body).toString('base64') },
  };
}

function found(
  checkId: CheckId,
  op: OperationId,
  caseClass: string | null,
  exchanges: ExchangeRef[],
  message = 'received something\nthe spec documents something else',
): Finding {
  const check = checkById(checkId);
  return {
    checkId,
    clause: check.clause,
    level: check.level,
    operation: op,
    suite: 'test',
    keyPlan: 'enterprise',
    caseClass,
    case: null,
    causes: [],
    message,
    exchanges,
  };
}

/** A finding of body-schema, by the check itself, on a response with this body. */
function schemaFinding(op: OperationId, status: number, body: string, caseClass: string | null = null): Finding {
  const [f] = bodySchema.run({ exchange: exchange({ operation: op, status, body, seq: ++seq }), plan: null });
  expect(f, body).toBeDefined();
  return { ...f!, suite: 'test', caseClass };
}

function grouped(findings: Finding[], operations: readonly string[] = OPS): Defect[] {
  const defects = groupDefects({ findings, operations });
  // Nothing is lost: every finding that can fail a run is under a defect, its own or folded.
  const placed = new Set(defects.flatMap((d) => [...d.signatures, ...d.alsoSeenAs].flatMap((s) => s.findings)));
  findings.forEach((f, i) => {
    if (f.level !== 'observation') expect(placed.has(i), `${f.checkId} ${f.caseClass}`).toBe(true);
  });
  return defects;
}

describe('families and server-wide defects', () => {
  it('Basic, Token and no scheme accepted on every operation: one server-wide defect listing its variants', () => {
    const findings = OPS.flatMap((op) =>
      ['Basic scheme', 'Token scheme', 'no scheme'].map((v) =>
        found('auth-rejected', op, `auth: ${v}`, [ref(op, 200)]),
      ),
    );
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({
      checkId: 'auth-rejected',
      serverWide: true,
      operations: ['createPet', 'getPet', 'listPets'],
      variants: ['auth: Basic scheme', 'auth: Token scheme', 'auth: no scheme'],
      caseClass: 'a valid key accepted under another scheme',
      rules: expect.arrayContaining(['auth-any-scheme', 'server-wide']),
    });
    expect(defects[0]!.signatures).toHaveLength(9);
  });

  it('a scheme accepted and a key not checked stay two defects on the same check and operations', () => {
    const findings = OPS.flatMap((op) => [
      found('auth-rejected', op, 'auth: Basic scheme', [ref(op, 200)]),
      found('auth-rejected', op, 'auth: unknown key', [ref(op, 200)]),
    ]);
    expect(grouped(findings).map((d) => d.caseClass)).toEqual([
      'a valid key accepted under another scheme',
      'an unknown or altered key accepted',
    ]);
  });

  it('near misses of the key accepted with an unknown key are one defect; a near miss alone names its variant', () => {
    const near = ['key in another case', 'key with one letter accented', 'key with a trailing no-break space'];
    const all = OPS.flatMap((op) =>
      ['unknown key', 'altered key', ...near, 'two Authorization headers, the key first'].map((v) =>
        found('auth-rejected', op, `auth: ${v}`, [ref(op, 200)]),
      ),
    );
    expect(grouped(all)).toHaveLength(1);
    const alone = grouped(OPS.map((op) => found('auth-rejected', op, 'auth: key in another case', [ref(op, 200)])));
    expect(alone).toHaveLength(1);
    expect(alone[0]).toMatchObject({ serverWide: true, variants: ['auth: key in another case'] });
  });

  it('families of issue 31: fractions near an integer or not, an empty or unknown status, a path in another case', () => {
    const create = (c: string) => found('create-invalid-rejected', 'createPet', c, [ref('createPet', 201)]);
    expect(
      grouped([create('invalid body: categoryId'), create('invalid body: categoryId near an integer')]),
    ).toHaveLength(1);
    expect(grouped([create('invalid body: unknown status'), create('invalid body: empty status')])).toHaveLength(1);
    // Each alone is one defect, named by its family, its variant listed.
    expect(grouped([create('invalid body: empty status')])[0]).toMatchObject({
      variants: ['invalid body: empty status'],
    });
    const paths = ['robustness: upper-case path', 'robustness: upper-case version segment'].map((c) =>
      found('no-operation-without-key', 'listPets', c, [ref('listPets', 200)]),
    );
    expect(grouped(paths)).toHaveLength(1);
    // A fraction accepted and an empty status accepted stay two: two causes.
    expect(
      grouped([create('invalid body: categoryId near an integer'), create('invalid body: empty status')]),
    ).toHaveLength(2);
  });

  it('the same check on every operation, provoked by unrelated requests, stays one defect per operation', () => {
    const findings = [
      found('no-5xx', 'listPets', 'query: limit not a number', [ref('listPets', 500)]),
      found('no-5xx', 'getPet', 'petId absent', [ref('getPet', 500)]),
      found('no-5xx', 'createPet', 'invalid body: malformed JSON', [ref('createPet', 500)]),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(3);
    expect(defects.every((d) => !d.serverWide)).toBe(true);
  });

  it('a check failing on ordinary requests of every operation is one server-wide defect', () => {
    const findings = [
      found('rate-limit-reset-epoch', 'listPets', 'query: no parameters', [ref('listPets', 200)]),
      found('rate-limit-reset-epoch', 'createPet', null, [ref('createPet', 201)]),
      found('rate-limit-reset-epoch', 'getPet', 'petId existing', [ref('getPet', 200)]),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({ serverWide: true, signature: 'rate-limit-reset-epoch · every operation' });
    // Seen on two of three operations the run exercised: not server-wide.
    expect(grouped(findings.slice(0, 2))).toHaveLength(2);
  });

  it('an Error body failing the same way on several statuses and operations is one defect', () => {
    const noCode = (status: number) => `{"message":"m","status":${status}}`;
    const findings = [
      schemaFinding('createPet', 400, noCode(400), 'invalid body: missing name'),
      schemaFinding('getPet', 404, noCode(404), 'petId absent'),
      schemaFinding('listPets', 401, noCode(401), 'auth: header missing'),
    ];
    const defects = grouped(findings);
    expect(defects).toHaveLength(1);
    expect(defects[0]).toMatchObject({ checkId: 'body-schema', statuses: [400, 401, 404] });
    expect(defects[0]!.signature).toBe('body-schema · createPet, getPet, listPets · Error /code missing');
  });

  it('an Error without code on the 429s too (a warning of another check) is folded under the same defect', () => {
    const noCode = (status: number) => `{"message":"m","status":${status}}`;
    const on429 = found(
      'error-body-429',
      'listPets',
      null,
      [ref('listPets', 429)],
      "received JSON that is not an Error on 429 for GET /pets: body must have required property 'code'\nthe spec shows no 429 body format; errors carry an Error in application/json",
    );
    const defects = grouped([
      schemaFinding('createPet', 400, noCode(400), 'invalid body: missing name'),
      schemaFinding('getPet', 404, noCode(404), 'petId absent'),
      on429,
    ]);
    expect(defects).toHaveLength(1);
    expect(defects[0]!.alsoSeenAs.map((s) => [s.checkId, s.part, s.rule])).toEqual([
      ['error-body-429', 'Error /code missing', 'error-body-every-status'],
    ]);
  });
});

describe('consequences', () => {
  const marker = 'psc-marker-00000000000000aa';
  const missingName = () =>
    found('create-invalid-rejected', 'createPet', 'invalid body: missing name', [
      ref('createPet', 201, '{"categoryId":3}'),
    ]);
  const fractional = () =>
    found('create-invalid-rejected', 'createPet', 'invalid body: categoryId', [
      ref('createPet', 201, `{"name":"${marker}","categoryId":1.5}`),
    ]);
  // One list body with two causes: a pet without a name, and the fractional categoryId stored as sent.
  const mixedList = () =>
    schemaFinding('listPets', 200, `[{"id":1,"categoryId":3},{"id":2,"name":"${marker}","categoryId":1.5}]`);

  it('a list body that mixes causes is split, each part folded under its own cause; the two causes stay two', () => {
    const defects = grouped([missingName(), fractional(), mixedList()]);
    const byCase = (c: string) => defects.find((d) => d.caseClass === c)!;
    expect(defects.map((d) => [d.checkId, d.caseClass]).sort()).toEqual([
      ['create-invalid-rejected', 'invalid body: categoryId'],
      ['create-invalid-rejected', 'invalid body: required fields missing'],
    ]);
    const folded = (d: Defect) => d.alsoSeenAs.map((s) => [s.checkId, s.operation, s.part, s.rule]);
    expect(folded(byCase('invalid body: required fields missing'))).toEqual([
      ['body-schema', 'listPets', 'Pet /name missing', 'traced-value'],
    ]);
    expect(folded(byCase('invalid body: categoryId'))).toEqual([
      ['body-schema', 'listPets', 'Pet /categoryId', 'traced-value'],
    ]);
  });

  it('a failure on a stored pet that nothing traces back to stays a defect of its own', () => {
    const defects = grouped([
      missingName(),
      schemaFinding('listPets', 200, '[{"id":1,"name":"Rex","categoryId":3,"status":"lost"}]'),
    ]);
    expect(defects.map((d) => d.checkId).sort()).toEqual(['body-schema', 'create-invalid-rejected']);
    expect(defects.every((d) => d.alsoSeenAs.length === 0)).toBe(true);
  });

  it('a value changed on the way in and served back is folded under the change, by field and value', () => {
    const create = ref('createPet', 201, '{"name":"Rex","categoryId":9223372036854775806}');
    const echo = found(
      'create-echo',
      'createPet',
      null,
      [create],
      'received categoryId 9223372036854775808 (sent 9223372036854775806) in the 201 for POST /pets\nthe spec documents the animal added as the NewPet sent',
    );
    const served = found(
      'int64-exact',
      'getPet',
      null,
      [ref('getPet', 200)],
      'received categoryId 9223372036854775808 on 200 for GET /pets/{petId}\nthe spec documents id and categoryId as int64 integers',
    );
    const other = found(
      'int64-exact',
      'getPet',
      null,
      [ref('getPet', 200)],
      'received id 9223372036854775809 on 200 for GET /pets/{petId}\nthe spec documents id and categoryId as int64 integers',
    );
    const defects = grouped([echo, served, other]);
    expect(defects.map((d) => d.checkId).sort()).toEqual(['create-echo', 'int64-exact']);
    const root = defects.find((d) => d.checkId === 'create-echo')!;
    expect(root.alsoSeenAs.map((s) => [s.checkId, s.part, s.rule])).toEqual([
      ['int64-exact', 'categoryId beyond int64', 'traced-value'],
    ]);
    // The id beyond int64 is another cause: not folded for sharing the check and the operation.
    expect(defects.find((d) => d.checkId === 'int64-exact')?.signatures[0]?.part).toBe('id beyond int64');
  });

  it("the model's changed field is folded under the field's defect, and one whose field was cut from its sample with it", () => {
    const long = 'a'.repeat(190);
    const pet = (id: number, name: string, categoryId: string) =>
      JSON.stringify({ id: String(id), name, categoryId, status: 'available' }).slice(0, 200);
    const model = (expected: string, actual: string): Finding => ({
      ...found('model-consistency', 'getPet', null, [ref('getPet', 200)], 'received 200 with …\nthe model expects …'),
      expected: `200 with ${expected}`,
      actual: `200 with ${actual}`,
    });
    const visible = model(pet(1, 'Rex', '5'), pet(1, 'Rex', '4'));
    // A long name: the sample is cut before categoryId, as show() cuts it.
    const cut = model(`${pet(2, long, '5')}… (250 chars)`, `${pet(2, long, '4')}… (250 chars)`);
    const echo = found(
      'create-echo',
      'createPet',
      null,
      [ref('createPet', 201, '{"name":"Rex","categoryId":5}')],
      'received categoryId 4 (sent 5) in the 201 for POST /pets\nthe spec documents the animal added as the NewPet sent',
    );
    const defects = grouped([echo, visible, cut]);
    expect(defects).toHaveLength(1);
    expect(defects[0]!.alsoSeenAs.map((s) => s.part)).toEqual([
      'categoryId differs',
      'a field beyond the sample differs',
    ]);
  });

  it('an echo on the same exchanges is folded; a finding with exchanges of its own is not', () => {
    const ex = ref('getPet', 500);
    const defects = grouped([
      found('no-5xx', 'getPet', 'petId absent', [ex]),
      found('get-404', 'getPet', 'petId absent', [ex]),
      found('get-404', 'getPet', 'petId absent', [ref('getPet', 200)]),
    ]);
    // get-404's signature has an exchange no 5xx explains: it stays a defect, listed apart.
    expect(defects.map((d) => d.checkId).sort()).toEqual(['get-404', 'no-5xx']);
  });
});

describe('the rules are data', () => {
  it('every rule names real checks, has an id of its own and a reason', () => {
    const ids = [
      ...FAMILY_RULES.map((r) => r.id),
      ...EXPLAINS_RULES.map((r) => r.id),
      ...PAIR_RULES.map((r) => r.id),
      STORED_PET.id,
      TRACED_VALUE.id,
    ];
    expect(new Set(ids).size).toBe(ids.length);
    const named = [
      ...FAMILY_RULES.flatMap((r) => r.checks),
      ...EXPLAINS_RULES.flatMap((r) => [...r.roots, ...(Array.isArray(r.explains) ? r.explains : [])]),
      ...PAIR_RULES.flatMap((r) => [...r.roots, r.consequence]),
      ...STORED_PET.roots,
      ...STORED_PET.consequences,
      ...TRACED_VALUE.roots,
      ...TRACED_VALUE.consequences,
      ...STATUS_CHECKS,
      ...Object.keys(SPLIT_BY_FIELD),
    ].filter((id) => id !== 'response');
    for (const id of named) expect(() => checkById(id), id).not.toThrow();
    for (const r of [...FAMILY_RULES, ...EXPLAINS_RULES, ...PAIR_RULES])
      expect(r.reason.length, r.id).toBeGreaterThan(20);
  });
});
