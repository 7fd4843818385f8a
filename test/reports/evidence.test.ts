/**
 * The table of evidence (reports/evidence.ts): a clause is proven on an operation only by evidence a check of it applied
 * to and passed there, never where a check citing or covering it failed; what nothing exercised says so, and why.
 * The counts come from a real run context judging real exchanges (runner/context.ts), as a suite records them.
 */
import { describe, expect, it } from 'vitest';
import { observation, type Finding } from '../../checks/check.js';
import { deprecationHeaders } from '../../checks/response.js';
import { allChecks } from '../../checks/registry.js';
import { contract, type OperationId } from '../../spec/contract.js';
import { authRejected } from '../../checks/auth.js';
import { burstEnforced } from '../../checks/rate-limit.js';
import { ApiKey } from '../../http/redact.js';
import { type EvidenceCell, evidenceTable } from '../../reports/evidence.js';
import type { RunContext } from '../../runner/context.js';
import type { EvidenceCount } from '../../runner/findings.js';
import { Run } from '../../runner/run.js';
import { exchange, FREE } from '../checks/fixtures.js';

/** What a suite's context records when `record` judges: its findings (observations too) and its evidence counts. */
async function judged(
  suite: string,
  record: (ctx: RunContext) => void,
): Promise<{ findings: Finding[]; counts: EvidenceCount[] }> {
  const key = { plan: 'free' as const, key: new ApiKey('k', 'free'), limits: FREE };
  const ctx = new Run({ target: 'http://127.0.0.1:9/v1', keys: [key], key, seed: 1, runs: 1, strict: false }).context(
    suite,
  );
  try {
    record(ctx);
    return { findings: [...ctx.log.all()], counts: ctx.log.evidence() };
  } finally {
    await ctx.close();
  }
}

const cellOf = (cells: readonly EvidenceCell[], clause: string, operation: string) =>
  cells.find((c) => c.clause === clause && c.operation === operation);

describe('the table of evidence', () => {
  it('proves a clause about 429 answers only where a 429 came, counting what passed', async () => {
    const none = await judged('listPets', (ctx) => {
      for (let i = 0; i < 3; i++) ctx.check(exchange({ operation: 'listPets' }));
    });
    const t0 = evidenceTable(none);
    expect(cellOf(t0.cells, '4-documented-status', 'listPets')).toMatchObject({ state: 'proven', passed: 3 });
    expect(cellOf(t0.cells, '7-429-retry-after', 'listPets')).toMatchObject({
      state: 'not-exercised',
      passed: 0,
      why: expect.stringContaining('retry-after-valid (429 answers)'),
    });
    expect(t0.checks.find((c) => c.checkId === 'retry-after-valid')).toMatchObject({
      state: 'not-exercised',
      why: 'it applies to 429 answers, and the run judged none',
    });
    const one = await judged('listPets', (ctx) => ctx.check(exchange({ operation: 'listPets', status: 429 })));
    const t1 = evidenceTable(one);
    expect(cellOf(t1.cells, '7-429-retry-after', 'listPets')).toMatchObject({ state: 'proven', passed: 1 });
    expect(cellOf(t1.cells, '7-429-retry-after', 'createPet')?.state).toBe('not-exercised');
    expect(t1.checks.find((c) => c.checkId === 'retry-after-valid')?.state).toBe('passed');
  });

  it("a body proves the schema of its status only: a 401's Error says nothing of the Pet schema", async () => {
    const t = evidenceTable(await judged('getPet', (ctx) => ctx.check(exchange({ operation: 'getPet', status: 401 }))));
    expect(cellOf(t.cells, '2-error-schema', 'getPet')?.state).toBe('proven');
    expect(cellOf(t.cells, '2-pet-schema', 'getPet')?.state).toBe('not-exercised');
    expect(cellOf(t.cells, '2-petstatus-enum', 'getPet')?.state).toBe('not-exercised');
    const pet = evidenceTable(await judged('getPet', (ctx) => ctx.check(exchange({ operation: 'getPet' }))));
    expect(cellOf(pet.cells, '2-pet-schema', 'getPet')).toMatchObject({ state: 'proven', passed: 1 });
    expect(cellOf(pet.cells, '2-petstatus-enum', 'getPet')).toMatchObject({ state: 'proven', passed: 1 });
    expect(cellOf(pet.cells, '2-error-schema', 'getPet')?.state).toBe('not-exercised');
    expect(cellOf(t.cells, '5-www-authenticate', 'getPet')?.state).toBe('proven');
  });

  it('a clause whose check fails on an operation is never proven there, whatever else passed', async () => {
    const t = evidenceTable(
      await judged('auth', (ctx) => {
        // A request without a key gets 200 (auth-rejected fails: it covers 1-auth-required), another gets 401.
        ctx.judge(authRejected, {
          exchange: exchange({ operation: 'listPets', keyPlan: 'none' }),
          variant: { name: 'missing header', valid: false },
        });
        ctx.judge(authRejected, {
          exchange: exchange({ operation: 'listPets', status: 401, keyPlan: 'none' }),
          variant: { name: 'unknown key', valid: false },
        });
        ctx.judge(authRejected, {
          exchange: exchange({ operation: 'getPet', status: 401, keyPlan: 'none' }),
          variant: { name: 'unknown key', valid: false },
        });
      }),
    );
    expect(cellOf(t.cells, '5-401-missing-invalid', 'listPets')).toMatchObject({ state: 'violated', passed: 1 });
    expect(cellOf(t.cells, '1-auth-required', 'listPets')?.state).toBe('violated');
    expect(cellOf(t.cells, '1-auth-required', 'getPet')).toMatchObject({ state: 'proven', passed: 1 });
    expect(t.checks.find((c) => c.checkId === 'auth-rejected')?.state).toBe('failed');
  });

  it('a burst that met no refusal proves no enforcement; one refused does', async () => {
    const known = exchange({ operation: 'listPets' });
    const burst = {
      kind: 'burst' as const,
      plan: 'free' as const,
      limit: 60,
      windowSeconds: 60,
      requestsPerDay: 1000,
      known,
      knownRemaining: 59,
      exchanges: [exchange({ operation: 'listPets' })],
      accepted: 1,
      elapsedMs: 30_000,
      cap: 1,
      account: null,
      boundary: null,
    };
    const slow = evidenceTable(
      await judged('rate-limit', (ctx) => ctx.judge(burstEnforced, { ...burst, rejection: null })),
    );
    expect(cellOf(slow.cells, '8-rule-1-429', 'listPets')?.state).not.toBe('proven');
    expect(slow.checks.find((c) => c.checkId === 'rl-burst-enforced')?.state).not.toBe('passed');
    const refused = exchange({ operation: 'listPets', status: 429 });
    const fast = evidenceTable(
      await judged('rate-limit', (ctx) =>
        ctx.judge(burstEnforced, { ...burst, accepted: 59, elapsedMs: 500, rejection: refused }),
      ),
    );
    expect(cellOf(fast.cells, '8-rule-1-429', 'listPets')).toMatchObject({ state: 'proven', passed: 1 });
  });

  it('a cell only a suite that was left out could judge says left out, and why', async () => {
    const t = evidenceTable({
      ...(await judged('listPets', (ctx) => ctx.check(exchange({ operation: 'listPets' })))),
      leftOut: [{ suite: 'rate-limit', line: 'rate-limit: not run: the budget' }],
    });
    expect(cellOf(t.cells, '8-rule-1-429', 'listPets')).toMatchObject({
      state: 'left-out',
      why: 'rate-limit: not run: the budget',
    });
    // A createPet answer is no suite's that was left out: not exercised.
    expect(cellOf(t.cells, '4.2-create-201', 'createPet')?.state).toBe('not-exercised');
    expect(t.checks.find((c) => c.checkId === 'rl-burst-enforced')).toMatchObject({ state: 'left-out' });
  });

  it('has no cell no check could ever judge, unless evidence or a finding arrived there', async () => {
    const ops = [...contract.operations.keys()];
    // Where the contract documents no Pets answer, and which operations it does not mark deprecated.
    const pets = JSON.stringify(contract.schemas.Pets);
    const noPets = ops.filter(
      (op) => ![...contract.operations.get(op)!.responses.values()].some((r) => JSON.stringify(r.schema) === pets),
    );
    const notDeprecated = ops.filter((op) => !contract.operations.get(op)!.deprecated);
    expect(noPets.length).toBeGreaterThan(0);
    expect(notDeprecated.length).toBeGreaterThan(0);
    const run = await judged('createPet', (ctx) => {
      for (const op of ops) ctx.check(exchange({ operation: op }));
    });
    const t = evidenceTable(run);
    for (const op of noPets) expect(cellOf(t.cells, '2-pets-array', op), op).toBeUndefined();
    for (const op of notDeprecated) expect(cellOf(t.cells, 'gap-9-deprecation-headers', op), op).toBeUndefined();
    // Every cell left is one a check of its clause can judge.
    for (const c of t.cells) {
      const able = allChecks.some(
        (k) => [...k.clauses, ...k.covers].includes(c.clause) && k.operationsFor(c.clause).includes(c.operation),
      );
      expect(able, `${c.clause} on ${c.operation}`).toBe(true);
    }
    // What arrives there anyway is shown: a count, a finding.
    const op: OperationId = noPets[0]!;
    const elsewhere: OperationId = notDeprecated[0]!;
    const arrived = evidenceTable({
      findings: [
        ...run.findings,
        observation(deprecationHeaders, exchange({ operation: elsewhere }), 'recorded', {
          causes: [{ kind: 'gap', clause: 'gap-9-deprecation-headers', answer: 'none' }],
        }),
      ],
      counts: [...run.counts, { checkId: 'body-schema', clause: '2-pets-array', operation: op, applied: 1, passed: 1 }],
    });
    expect(cellOf(arrived.cells, '2-pets-array', op)).toMatchObject({ state: 'proven', passed: 1 });
    expect(cellOf(arrived.cells, 'gap-9-deprecation-headers', elsewhere)?.state).toBe('observed');
  });

  it('says why a cell was not exercised in the words of what its checks judge, naming only those that could judge it', async () => {
    const t = evidenceTable(await judged('createPet', (ctx) => ctx.check(exchange({ operation: 'createPet' }))));
    const echo = cellOf(t.cells, '4.2-create-echo', 'createPet');
    expect(echo).toMatchObject({ state: 'not-exercised' });
    expect(echo?.why).toContain('create-echo (201 answers to a create)');
    for (const c of t.cells.filter((x) => x.state === 'not-exercised'))
      expect(c.why, `${c.clause} on ${c.operation}`).not.toMatch(/every piece of evidence/);
  });
});
