// An HTTPS target whose certificate comes from a private CA, as a company staging has: trusted with --ca (or
// NODE_EXTRA_CA_CERTS), refused without it as a configuration problem (exit 3) that names the remedy, never as
// violations; --insecure only when asked, and then said by every report.
import { readFileSync } from 'node:fs';
import { readJson } from '../support/artifacts.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { distinctiveKeys } from '../cli/support.js';
import { startReferenceServer, type ReferenceServer } from '../../reference/server.js';
import type { ConformanceReport } from '../../reports/conformance-report.js';
import { makePki, runCli, startFront, userEnv, type Front, type Pki } from './support.js';

const RUN = ['run', '--suite', 'listPets', '--runs', '10', '--seed', '5'];

describe('an HTTPS target with a private CA', () => {
  const keys = distinctiveKeys('tls');
  let pki: Pki;
  let reference: ReferenceServer;
  let front: Front;
  let expired: Front;

  beforeAll(async () => {
    pki = await makePki();
    reference = await startReferenceServer({ keys });
    front = await startFront(reference.url, { tls: pki.server });
    expired = await startFront(reference.url, { tls: pki.expired });
  });
  afterAll(async () => {
    await front?.close();
    await expired?.close();
    await reference?.close();
  });

  test('passes with --ca, and every request carries the User-Agent with the package version', async () => {
    const json = join(pki.dir, 'ca.json');
    const r = await runCli([...RUN, '--target', front.url, '--ca', pki.caFile, '--json', json], userEnv(keys));
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/Result: CONFORMANT/);
    expect(r.stdout).not.toMatch(/NOT verified/);
    const report = readJson<ConformanceReport>(json);
    expect(report.connection?.insecure).toBe(false);
    expect(report.connection?.caFiles).toEqual([pki.caFile]);
    expect(report.operations.listPets?.exchanges ?? 0).toBeGreaterThan(10);
    const version = readJson<{ version: string }>('package.json').version;
    expect(front.seen.length).toBeGreaterThan(10);
    expect(new Set(front.seen.map((s) => s.userAgent))).toEqual(new Set([`petstore-conformance/${version}`]));
  });

  test('without --ca: exit 3 before any suite, naming --ca and NODE_EXTRA_CA_CERTS, and no violations', async () => {
    const json = join(pki.dir, 'none.json');
    const r = await runCli([...RUN, '--target', front.url, '--json', json], userEnv(keys));
    expect(r.status, r.stderr + r.stdout).toBe(3);
    expect(r.stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(r.stderr).toMatch(/--ca FILE/);
    expect(r.stderr).toMatch(/NODE_EXTRA_CA_CERTS/);
    expect(r.stderr).toMatch(/PSC_TLS/);
    expect(r.stdout).not.toMatch(/Violations|✗/);
  });

  test('NODE_EXTRA_CA_CERTS in the environment is honoured as Node documents it', async () => {
    const r = await runCli([...RUN, '--target', front.url], userEnv(keys, { NODE_EXTRA_CA_CERTS: pki.caFile }));
    expect(r.status, r.stderr + r.stdout).toBe(0);
  });

  test('--ca adds to the trusted roots and keeps NODE_EXTRA_CA_CERTS (which Node drops once a ca is given)', async () => {
    // An unrelated PEM in --ca, the real CA in NODE_EXTRA_CA_CERTS: the run must still trust the target.
    const other = await makePki();
    const r = await runCli(
      [...RUN, '--target', front.url, '--ca', other.caFile],
      userEnv(keys, { NODE_EXTRA_CA_CERTS: pki.caFile }),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
  });

  test('a wrong CA given with --ca: exit 3 saying the given CA does not vouch for the target', async () => {
    const other = await makePki();
    const r = await runCli([...RUN, '--target', front.url, '--ca', other.caFile], userEnv(keys));
    expect(r.status, r.stderr + r.stdout).toBe(3);
    expect(r.stderr).toMatch(/do not vouch for it/);
  });

  test('an expired certificate: exit 3 naming the expiry, even with the right CA', async () => {
    const r = await runCli([...RUN, '--target', expired.url, '--ca', pki.caFile], userEnv(keys));
    expect(r.status, r.stderr + r.stdout).toBe(3);
    expect(r.stderr).toMatch(/CERT_HAS_EXPIRED/);
    expect(r.stderr).toMatch(/expired/);
  });

  test('https on a plain-http port: exit 3 naming the TLS handshake', async () => {
    const r = await runCli([...RUN, '--target', reference.url.replace('http:', 'https:')], userEnv(keys));
    expect(r.status, r.stderr + r.stdout).toBe(3);
    expect(r.stderr).toMatch(/TLS: the handshake/);
  });

  test('--insecure passes without the CA, and the JSON report and the terminal summary both say so', async () => {
    const json = join(pki.dir, 'insecure.json');
    const md = join(pki.dir, 'summary.md');
    const r = await runCli(
      [...RUN, '--target', front.url, '--insecure', '--json', json],
      userEnv(keys, { GITHUB_STEP_SUMMARY: md }),
    );
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/WARNING: TLS certificates were NOT verified \(--insecure\)/);
    const report = readJson<ConformanceReport>(json);
    expect(report.connection?.insecure).toBe(true);
    expect(readFileSync(md, 'utf8')).toMatch(/NOT verified \(--insecure\)/);
  });

  test('a --ca file without a certificate is a configuration error (exit 2) naming --ca', async () => {
    const r = await runCli([...RUN, '--target', front.url, '--ca', 'package.json'], userEnv(keys));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--ca: package\.json holds no PEM certificate/);
  });
});
