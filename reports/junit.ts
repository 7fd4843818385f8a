/**
 * JUnit XML of a conformance report, for CI: one test case per distinct defect (its signature: check, operation, case
 * class), failing for a violation (and for a warning with --strict), and one passing test case per check of the
 * registry that reported nothing. Harness errors are errors of their own test case. Built from the report, so the
 * XML says what the terminal says, no more and no less.
 */
import { failsRun } from '../checks/check.js';
import { ExitCode, exitCodeFor, type HarnessErrorCode } from '../config/errors.js';
import { allChecks, canFail } from '../checks/registry.js';
import type { ConformanceReport, Defect } from './conformance-report.js';
import { defectBlock } from './conformance-text.js';

const escapeXml = (s: string): string =>
  // XML 1.0 has no escape for most control characters: they are dropped (the JSON report keeps the exact bytes).
  s
    .replace(/[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

interface Case {
  readonly classname: string;
  readonly name: string;
  readonly failure?: { readonly message: string; readonly text: string };
  readonly error?: string;
  readonly out?: string;
}

function defectCase(report: ConformanceReport, d: Defect): Case {
  const text = defectBlock(report, d, d.level === 'violation' ? '✗' : '!').join('\n');
  const fails = failsRun(d.level, report.strict);
  const message = `${d.level}: ${d.signature}${d.echoOf ? ` (echo of ${d.echoOf})` : ''} (${d.occurrences}×)`;
  return {
    classname: `petstore-conformance.${d.operation ?? 'run'}`,
    name: `${d.signature} [${d.clause}]`,
    ...(fails ? { failure: { message, text } } : { out: `${message}\n${text}` }),
  };
}

function renderCase(c: Case): string {
  const open = `    <testcase classname="${escapeXml(c.classname)}" name="${escapeXml(c.name)}"`;
  if (!c.failure && !c.error && !c.out) return `${open}/>`;
  const body: string[] = [];
  if (c.failure)
    body.push(`      <failure message="${escapeXml(c.failure.message)}">${escapeXml(c.failure.text)}</failure>`);
  if (c.error) body.push(`      <error message="${escapeXml(c.error)}"/>`);
  if (c.out) body.push(`      <system-out>${escapeXml(c.out)}</system-out>`);
  return `${open}>\n${body.join('\n')}\n    </testcase>`;
}

/** What the run's limits did, when the report has it (RunLimitsReport): a stop and what it left out. */
interface RunStop {
  readonly run?: {
    readonly stop: { readonly code: string; readonly message: string } | null;
    readonly budget: { readonly leftOut: readonly string[] };
  };
}

/**
 * A run that stopped early (a deadline, a signal, a limit) says so in a test case of its own, so that a CI page shows
 * it beside the defects: an error when the stop blocks the run, the left-out parts as its output.
 */
function stopCase(report: RunStop): Case | null {
  const stop = report.run?.stop;
  if (!stop) return null;
  const exit = exitCodeFor(stop.code as HarnessErrorCode);
  const text = `Stopped early: ${stop.message} [${stop.code}]`;
  const out = [text, ...report.run!.budget.leftOut.map((l) => `Left out: ${l}`)].join('\n');
  return {
    classname: 'petstore-conformance.run',
    name: 'run completed',
    ...(exit !== ExitCode.conformant && exit !== ExitCode.violations ? { error: text } : {}),
    out,
  };
}

export function renderJunit(report: ConformanceReport & RunStop): string {
  const cases: Case[] = report.defects.map((d) => defectCase(report, d));
  const stopped = stopCase(report);
  if (stopped) cases.push(stopped);
  const reported = new Set(report.defects.map((d) => d.checkId));
  for (const c of allChecks) {
    if (reported.has(c.id) || !canFail(c)) continue;
    cases.push({ classname: 'petstore-conformance.checks', name: `${c.id} [${c.clause}]` });
  }
  for (const e of report.errors) cases.push({ classname: 'petstore-conformance.harness', name: 'harness', error: e });
  const failures = cases.filter((c) => c.failure).length;
  const errors = cases.filter((c) => c.error).length;
  const seconds = (report.durationMs / 1000).toFixed(3);
  const attrs = `tests="${cases.length}" failures="${failures}" errors="${errors}" time="${seconds}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="petstore-conformance" ${attrs}>`,
    `  <testsuite name="${escapeXml(`conformance of ${report.target.url} (seed ${report.seed})`)}" ${attrs} timestamp="${escapeXml(report.startedAt)}">`,
    ...cases.map(renderCase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
