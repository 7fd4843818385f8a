import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { defaultConcurrency, keyEnv, roomiestKey } from '../config/config.js';
import { startEmbedded } from '../reference/launcher.js';
import { planKeys } from '../reference/server.js';
import { FUNCTIONAL, runCli } from './cli.js';
import type { ConformanceReport } from '../reports/conformance-report.js';

interface HarEntry {
  startedDateTime: string;
  time: number;
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
}

/** Replays the requests split round-robin over `connections` autocannon clients at once; requests per second. */
async function replay(origin: string, requests: autocannon.Request[], connections: number): Promise<number> {
  const shards = Array.from({ length: connections }, (_, i) => requests.filter((_r, j) => j % connections === i));
  const t0 = performance.now();
  await Promise.all(
    shards
      .filter((s) => s.length > 0)
      .map((s) => autocannon({ url: origin, connections: 1, amount: s.length, requests: s, timeout: 10 })),
  );
  return requests.length / ((performance.now() - t0) / 1000);
}

async function measure(dir: string, concurrency: number) {
  const server = await startEmbedded({ windowSeconds: 60 });
  try {
    const out = join(dir, `ratio-${concurrency}.json`);
    const har = join(dir, `ratio-${concurrency}.har`);
    const { code } = await runCli(
      [
        ...['run', '--target', server.url, '--seed', '7', '--suite', FUNCTIONAL],
        ...['--concurrency', String(concurrency), '--json', out, '--har', har],
      ],
      { ...keyEnv(server.keys), PETSTORE_RUNS: '320' },
    );
    const rep = JSON.parse(readFileSync(out, 'utf8')) as ConformanceReport;
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: HarEntry[] } }).log.entries;
    const start = Math.min(...entries.map((e) => Date.parse(e.startedDateTime)));
    const end = Math.max(...entries.map((e) => Date.parse(e.startedDateTime) + e.time));
    const spanSeconds = (end - start) / 1000;
    const harness = rep.totals.exchanges / spanSeconds;
    const keyOf = new Map(server.keys.map((k) => [k.plan.toUpperCase(), k.key]));
    const requests = entries.map(({ request: r }) => {
      const u = new URL(r.url);
      const headers = Object.fromEntries(
        r.headers.map((h) => [
          h.name,
          h.value.replace(/\$PETSTORE_API_KEY_([A-Z]+)/g, (_m, plan: string) => keyOf.get(plan) ?? ''),
        ]),
      );
      return {
        method: r.method as 'GET',
        path: u.pathname + u.search,
        headers,
        ...(r.postData ? { body: r.postData.text } : {}),
      };
    });
    const ac = await replay(new URL(server.url).origin, requests, concurrency);
    return {
      exit: code,
      connections: concurrency,
      checkedExchanges: rep.totals.exchanges,
      spanSeconds: +spanSeconds.toFixed(2),
      suiteSecondsSummed: +(rep.suites.reduce((n, s) => n + s.durationMs, 0) / 1000).toFixed(2),
      harnessPerSec: Math.round(harness),
      autocannonPerSec: Math.round(ac),
      ratio: +(harness / ac).toFixed(2),
    };
  } finally {
    await server.close();
  }
}

export async function benchRatio(dir: string): Promise<Record<string, unknown>> {
  // The default concurrency of the embedded target's functional key, as `run` chooses it.
  const probe = await startEmbedded({ windowSeconds: 60 });
  const key = roomiestKey(planKeys(probe.keys))!;
  await probe.close();
  const dflt = defaultConcurrency(key.limits);
  const one = await measure(dir, 1);
  const many = await measure(dir, dflt);
  return {
    'checked exchanges/s ÷ autocannon (concurrency 1, same requests, 1 connection)': one,
    [`checked exchanges/s ÷ autocannon (default concurrency ${dflt}, same requests, ${dflt} connections)`]: many,
    'checked exchanges/s at the default concurrency (goal ≥ 1,500)': many.harnessPerSec,
  };
}
