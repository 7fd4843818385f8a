/**
 * Measurements for `npm run bench` (issue 4's closing note), each with autocannon, 10 connections, ~3 s:
 * - the harness's load scenario (hooks, conformance checks, per-class histograms) vs plain autocannon sending the same
 *   mix without hooks, against the same reference server in the same run (goal ≥ 0.9);
 * - the reference server vs a bare node:http server answering the same fixed JSON body (goal ≥ 0.5).
 * Rates are completed responses ÷ duration, from autocannon's raw result, for all four. Every target runs in a child
 * process (as a real target would), fresh for each measurement, after a 1 s warm-up.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ApiKey } from '../http/redact.js';
import type { ReferenceKey } from '../reference/server.js';
import { autocannon, type AcRawResult, type AcRequest } from './autocannon.js';
import { listQueries } from './mix.js';
import { PROFILES } from './profiles.js';
import { silentProgress } from './progress.js';
import { runScenario } from './run-scenario.js';
import { mixConnectionsScenario } from './scenarios/mix-connections.js';

const CONNECTIONS = 10;
const SECONDS = 3;

const rateOf = (raw: AcRawResult) => Math.round((raw.totalCompletedRequests / Math.max(raw.duration, 0.001)) * 10) / 10;

async function plain(url: string, requests: AcRequest[]): Promise<number> {
  return rateOf(await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests, skipAggregateResult: true }));
}

interface Child {
  readonly url: string;
  readonly keys: readonly ReferenceKey[];
  close(): Promise<void>;
}

/** Starts a target in a child process (tsx loader), bounded: it must report within 20 s. */
async function child(args: string[]): Promise<Child> {
  const proc = fork(fileURLToPath(new URL('./bench-server.ts', import.meta.url)), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; keys: ReferenceKey[] }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bench: target did not start within 20 s')), 20_000);
    proc.once('message', (m) => {
      clearTimeout(timer);
      resolve(m as { url: string; keys: ReferenceKey[] });
    });
    proc.once('exit', (code) => reject(new Error(`bench: target exited with ${code}`)));
  });
  return {
    ...ready,
    close: async () => {
      proc.send('close');
      const timer = setTimeout(() => proc.kill(), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function benchLoad(): Promise<{ harnessReqPerSec: number; plainAutocannonReqPerSec: number; referenceReqPerSec: number; bareNodeReqPerSec: number }> {
  // Each target in its own process, fresh for each measurement, so the store's growth favours neither side.
  const mix = async (measure: (url: string, key: ReferenceKey) => Promise<number>): Promise<number> => {
    const target = await child(['reference']);
    try {
      const ref = target.keys.find((k) => k.plan === 'enterprise') ?? target.keys[0]!;
      // Warm-up (JIT of client and server), not measured.
      await autocannon({ url: target.url, connections: CONNECTIONS, duration: 1, requests: [{ method: 'GET', path: `${new URL(target.url).pathname}/pets`, headers: { authorization: `Bearer ${ref.key}` } }], skipAggregateResult: true });
      return await measure(target.url, ref);
    } finally {
      await target.close();
    }
  };
  const harnessReqPerSec = await mix(async (url, ref) => {
    const key = { plan: ref.plan, key: new ApiKey(ref.key, ref.plan), limits: ref.limits };
    const spec = { ...mixConnectionsScenario(url, key, PROFILES.nightly, { connections: CONNECTIONS, durationSeconds: SECONDS }), maxRequests: 10_000_000 };
    const result = await runScenario(spec, { runStartedAt: Date.now(), progress: silentProgress });
    return rateOf(result.raw[0] as AcRawResult);
  });
  const plainAutocannonReqPerSec = await mix(async (url, ref) => {
    const base = new URL(url).pathname;
    const auth = { authorization: `Bearer ${ref.key}` };
    // The same mix as static requests: the list queries in the same order, create, get.
    const queries = listQueries();
    const requests: AcRequest[] = [];
    for (let i = 0; i < queries.length; i += 2) {
      requests.push(
        { method: 'GET', path: `${base}/pets${queries[i]}`, headers: auth },
        { method: 'GET', path: `${base}/pets${queries[(i + 1) % queries.length]}`, headers: auth },
        { method: 'POST', path: `${base}/pets`, headers: { ...auth, 'content-type': 'application/json' }, body: `{"name":"load-${i}","categoryId":1,"status":"available"}` },
        { method: 'GET', path: `${base}/pets/1`, headers: auth },
      );
    }
    return plain(url, requests);
  });

  // Reference vs bare node:http on one fixed request, the bare server answering the body the reference answers.
  let body = '[]';
  const referenceReqPerSec = await mix(async (url, ref) => {
    const auth = { authorization: `Bearer ${ref.key}` };
    await fetch(`${url}/pets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"bench","categoryId":1}' });
    body = await (await fetch(`${url}/pets?limit=1`, { headers: auth })).text();
    return plain(url, [{ method: 'GET', path: `${new URL(url).pathname}/pets?limit=1`, headers: auth }]);
  });
  const bare = await child(['bare', body]);
  try {
    await plain(bare.url, [{ method: 'GET', path: '/v1/pets?limit=1' }]);
    const bareNodeReqPerSec = await plain(bare.url, [{ method: 'GET', path: '/v1/pets?limit=1' }]);
    return { harnessReqPerSec, plainAutocannonReqPerSec, referenceReqPerSec, bareNodeReqPerSec };
  } finally {
    await bare.close();
  }
}
