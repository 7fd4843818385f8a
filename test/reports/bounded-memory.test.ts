// Bounded memory (issue 12): exchanges are streamed, batch by batch, from the scenario to the HAR file; nothing on the
// way holds a run's exchanges. These tests are structural: counts and bounds, never timing or RSS.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, registerSecret } from '../../http/redact.js';
import type { Exchange } from '../../http/exchange.js';
import { planKeys, startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import { HarWriter } from '../../reports/har.js';
import { FindingLog, OBSERVATION_SAMPLES } from '../../runner/findings.js';
import type { RunContext } from '../../runner/context.js';
import { runSuite } from '../../runner/run.js';
import { type Finding, finding as checkFinding, RESPONSE_TEXT_MAX } from '../../checks/check.js';
import { BATCH_SIZE, type ExchangeData, ExchangeStream, exchangeData, MOST_HELD } from '../../suites/meta.js';
import { readHar } from '../support/artifacts.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * What no collection of a context may reach: the finding log's samples stay below it (about 130 in the long run
 * below), and a collection that kept an entry for every exchange, or for every few, would exceed it.
 */
const FAR_BELOW_THE_RUN = 200;

/** A recorded GET /pets?i=… exchange, numbered `i`. */
function exchange(i: number, url = `http://127.0.0.1:9/v1/pets?i=${i}`): Exchange {
  const u = new URL(url);
  return {
    seq: i,
    operation: 'listPets',
    keyPlan: 'enterprise',
    request: { method: 'GET', url, path: u.pathname.slice(3) + u.search, headers: {}, body: null },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode('[]'),
      bodyText: '[]',
      truncated: false,
      json: [],
      jsonError: null,
    },
    error: null,
    startedAt: 1_700_000_000_000 + i,
    durationMs: 1,
  };
}

describe('exchangeData', () => {
  it('gives each body bytes of its own: a view of a pooled buffer would carry the whole buffer to the reporter', () => {
    const ex = exchange(1);
    const request = { ...ex.request, body: Buffer.from('{"name":"a"}') };
    const response = { ...ex.response!, body: Buffer.from('{"id":1}') };
    // Small Buffers are views of Node's shared pool: the case the copy is for.
    expect(request.body.buffer.byteLength).toBeGreaterThan(request.body.byteLength);
    const data = exchangeData({ ...ex, request, response });
    for (const [sent, kept] of [
      [request.body, data.request.body!],
      [response.body, data.response!.body],
    ] as const) {
      expect(Buffer.from(kept).toString()).toBe(sent.toString());
      expect(kept.buffer.byteLength).toBe(sent.byteLength);
      expect(structuredClone(kept).buffer.byteLength).toBe(sent.byteLength);
    }
  });
});

describe('HarWriter', () => {
  it('writes a valid HAR from batches, every entry in arrival order, and the comment at the end', () => {
    const dir = tempDir('psc-har-');
    const path = join(dir, 'run.har');
    const har = new HarWriter(path, '1.2.3');
    const all = Array.from({ length: 450 }, (_, i) => exchangeData(exchange(i)));
    for (let i = 0; i < all.length; i += 100) har.append(all.slice(i, i + 100));
    har.append([]);
    expect(existsSync(path), 'the HAR appears only when complete').toBe(false);
    expect(har.close('Requests: 450')).toBe(450);
    const doc = readHar(path);
    expect(doc.log.version).toBe('1.2');
    expect(doc.log.comment).toBe('Requests: 450');
    expect(doc.log.entries.map((e) => new URL(e.request.url).searchParams.get('i'))).toEqual(
      all.map((_, i) => String(i)),
    );
    expect(readdirSync(dir)).toEqual(['run.har']);
  });

  it('an empty run is a valid HAR with no entries', () => {
    const path = join(tempDir('psc-har-'), 'empty.har');
    expect(new HarWriter(path, '1').close()).toBe(0);
    expect(readHar(path).log.entries).toEqual([]);
  });

  it('abort leaves nothing behind', () => {
    const dir = tempDir('psc-har-');
    const har = new HarWriter(join(dir, 'x.har'), '1');
    har.append([exchangeData(exchange(1))]);
    har.abort();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a key in an entry stops the write: close throws the leak and no file is left', () => {
    const dir = tempDir('psc-har-');
    const secret = registerSecret(new ApiKey('psk_SECRET_har_stream_0123456789', 'pro'));
    const har = new HarWriter(join(dir, 'leak.har'), '1');
    const leaking = exchange(2, `http://127.0.0.1:9/v1/pets?k=${secret.reveal()}`);
    har.append([exchangeData(exchange(1)), exchangeData(leaking)]);
    expect(() => har.close()).toThrow(/PETSTORE_API_KEY_PRO|refusing to write/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('ExchangeStream', () => {
  it('holds at most its bound when the receiver is slow, and delivers everything in order', async () => {
    const received: ExchangeData[] = [];
    const stream = new ExchangeStream(async (batch) => {
      await new Promise((r) => setTimeout(r, 2));
      received.push(...batch);
    });
    // As RunContext does: wait for the backlog before each request, push each exchange as it is recorded.
    for (let i = 0; i < 10 * MOST_HELD; i++) {
      const wait = stream.backlog();
      if (wait) await wait;
      stream.push(exchange(i));
    }
    await stream.close();
    expect(stream.peakHeld).toBeLessThanOrEqual(MOST_HELD);
    expect(received.map((e) => e.seq)).toEqual(Array.from({ length: 10 * MOST_HELD }, (_, i) => i));
  });

  it('a batch that fails to arrive does not stop the run (the reporter counts what is missing)', async () => {
    let calls = 0;
    const stream = new ExchangeStream(async () => {
      if (++calls === 1) throw new Error('rpc closed');
    });
    for (let i = 0; i < 2 * BATCH_SIZE + 1; i++) stream.push(exchange(i));
    await expect(stream.close()).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });
});

describe('FindingLog', () => {
  const finding = (level: Finding['level'], message: string): Finding => ({
    checkId: 'get-invalid-id',
    clause: 'gap-3-invalid-id',
    level,
    operation: 'getPet',
    suite: 'getPet',
    keyPlan: 'enterprise',
    caseClass: 'petId too-large',
    case: null,
    causes: [],
    message,
    exchanges: [],
  });

  it('keeps a bounded sample of each signature, however many it is given, and counts them all', () => {
    const log = new FindingLog();
    for (let i = 0; i < 5_000; i++)
      log.add([finding('observation', `petId ${i} answered 400`), finding('violation', `v${i}`)]);
    expect(log.at('observation')).toHaveLength(OBSERVATION_SAMPLES);
    expect(log.at('violation')).toHaveLength(100);
    expect([...log.occurrences.values()].sort()).toEqual([5_000, 5_000]);
  });

  it('keeps a response on the finding that best shows its signature only, its body cut at RESPONSE_TEXT_MAX', () => {
    const text = `"${'x'.repeat(3_000_000)}"`;
    const answered = (i: number, url?: string): Exchange => {
      const ex = exchange(i, url);
      return { ...ex, response: { ...ex.response!, status: 500, bodyText: text } };
    };
    const check = { id: 'no-5xx', clauses: ['7-no-5xx'], levels: ['violation'], causes: ['crash'] } as const;
    const crash = { causes: [{ kind: 'crash', status: 500 }] } as const;
    const log = new FindingLog();
    for (let i = 0; i < 10; i++) log.add([checkFinding(check, answered(i + 10), { because: `v${i}` }, crash)]);
    const held = () => log.at('violation').map((f) => f.exchanges[0]!.response !== undefined);
    // Equally good examples (paths of one length): the first keeps its response.
    expect(held()).toEqual([true, ...Array(9).fill(false)]);
    const response = log.at('violation')[0]!.exchanges[0]!.response!;
    expect(response.bodyText).toHaveLength(RESPONSE_TEXT_MAX);
    expect(response.cut).toBe('report');
    // A better one (a shorter request) takes the response over: the one the reports will show.
    log.add([checkFinding(check, answered(1, 'http://127.0.0.1:9/v1/pets'), { because: 'shorter' }, crash)]);
    expect(held()).toEqual([...Array(10).fill(false), true]);
    // Without its response a reference still renders its curl line and request, as any other.
    const first = log.at('violation')[0]!.exchanges[0]!;
    expect(first.curl).toContain("-X GET 'http://127.0.0.1:9/v1/pets?i=10'");
    expect(JSON.parse(JSON.stringify(first))).toMatchObject({ seq: 10, status: 500 });
  });
});

describe('a long suite run streams its exchanges', () => {
  let server: ReferenceServer;
  beforeAll(async () => {
    server = await startReferenceServer();
  });
  afterAll(async () => server?.close());

  it('the context keeps none, the stream at most its bound, and every exchange reaches the receiver', async () => {
    const keys = planKeys(server.keys);
    const received: ExchangeData[] = [];
    // A slow receiver: the scenario must wait for it rather than pile exchanges up.
    const stream = new ExchangeStream(async (batch) => {
      await new Promise((r) => setTimeout(r, 5));
      received.push(...batch);
    });
    let ctx: RunContext | undefined;
    const r = await runSuite(
      'listPets',
      {
        target: server.url,
        keys,
        key: keys.find((k) => k.plan === 'enterprise')!,
        seed: 12,
        runs: 1000,
        strict: false,
        exchangeSink: stream,
      },
      { inspect: (c) => (ctx = c) },
    );
    await stream.close();
    expect(r.exchanges, 'a run long enough that holding its exchanges would show').toBeGreaterThan(
      6 * FAR_BELOW_THE_RUN,
    );
    expect(received).toHaveLength(r.exchanges);
    expect(new Set(received.map((e) => e.seq)).size).toBe(r.exchanges);
    expect(stream.peakHeld).toBeLessThanOrEqual(MOST_HELD);
    // Nothing the context owns grows with the run: no collection of it, or of what it holds (its log, what its parts
    // share, its client), is as large as the run.
    const sizes: (readonly [string, number])[] = [];
    const walk = (owner: object, path: string, depth: number) => {
      for (const [name, v] of Object.entries(owner)) {
        if (Array.isArray(v)) sizes.push([`${path}.${name}`, v.length]);
        else if (v instanceof Map || v instanceof Set) {
          sizes.push([`${path}.${name}`, v.size]);
          // A map of states (what shared steps keep per suite): each state's own collections too.
          if (v instanceof Map)
            for (const [k, x] of v)
              if (typeof x === 'object' && x !== null) walk(x, `${path}.${name}.${String(k)}`, -1);
        } else if (depth > 0 && typeof v === 'object' && v !== null) walk(v, `${path}.${name}`, depth - 1);
      }
    };
    walk(ctx!, 'RunContext', 1);
    const names = sizes.map(([name]) => name);
    // The walk reaches the collections that would grow if exchanges were kept: the log's and the parts' shared ones.
    expect(names).toEqual(
      expect.arrayContaining(['RunContext.log.items', 'RunContext.shared.states.create-and-judge.acceptedCategories']),
    );
    for (const [name, size] of sizes) expect(size, name).toBeLessThan(FAR_BELOW_THE_RUN);
  }, 120_000);
});
