/**
 * JUnit XML of a conformance report, for CI: one test case per defect (a cause, with every signature it was seen as in
 * its text), failing for a violation (and for a warning with --strict) unless a baseline lists it (then skipped, the
 * known defect named: a run with only known defects has no failure), one test case per check of the registry that
 * reported nothing (not even as a consequence folded under another defect): passing when the table of evidence shows
 * it applied to something and passed, skipped with why otherwise (nothing it applies to came, or a limit left it
 * out), and a skipped one per thing the run left out or never measures by design. Harness errors are errors of their own
 * test case. The report's verdict is a property of the test suite. Built from the report, so the XML says what the
 * terminal says, no more and no less.
 */
import { failsRun } from '../checks/check.js';
import { ExitCode } from '../errors/catalogue.js';
import { blocksRun, type StopCode } from '../runner/limits.js';
import { allChecks, canFail } from '../checks/registry.js';
import type { ConformanceReport, Defect, RunFailure } from './conformance-report.js';
import { defectBlock } from './conformance-text.js';
import type { CheckEvidence } from './evidence.js';

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
  readonly skipped?: string;
  readonly out?: string;
}

function defectCase(report: ConformanceReport, d: Defect): Case {
  const text = defectBlock(report, d, d.level === 'violation' ? '✗' : '!').join('\n');
  const fails = failsRun(d.level, report.strict);
  const sigs = d.signatures.length + d.alsoSeenAs.length;
  const message = `${d.level}: ${d.signature} (${d.occurrences}×${sigs > 1 ? `, ${sigs} signatures` : ''})`;
  const base = { classname: `petstore-conformance.${d.operation ?? 'run'}`, name: `${d.signature} [${d.clause}]` };
  // A defect the baseline lists fails nothing: skipped, the defect named, as the terminal marks it "(known)".
  if (fails && report.baseline?.known.includes(d.signature))
    return { ...base, skipped: `known defect (baseline ${report.baseline.file}): ${message}`, out: text };
  return { ...base, ...(fails ? { failure: { message, text } } : { out: `${message}\n${text}` }) };
}

/** Why a check that passed nothing is skipped. */
function skipWords(e: CheckEvidence | undefined): string {
  if (!e) return 'not exercised: the report holds no evidence of it';
  if (e.state === 'left-out') return `left out: ${e.why ?? ''}`;
  if (e.state === 'observed') return `observed only: ${e.why ?? ''}`;
  return `not exercised: ${e.why ?? ''}`;
}

function renderCase(c: Case): string {
  const open = `    <testcase classname="${escapeXml(c.classname)}" name="${escapeXml(c.name)}"`;
  if (!c.failure && !c.error && !c.out && !c.skipped) return `${open}/>`;
  const body: string[] = [];
  if (c.skipped) body.push(`      <skipped message="${escapeXml(c.skipped)}"/>`);
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
  const text = `Stopped early: ${stop.message} [${stop.code}]`;
  const out = [text, ...report.run!.budget.leftOut.map((l) => `Left out: ${l}`)].join('\n');
  return {
    classname: 'petstore-conformance.run',
    name: 'run completed',
    ...(blocksRun(stop.code as StopCode) ? { error: text } : {}),
    out,
  };
}

export function renderJunit(report: ConformanceReport & RunStop): string {
  // A run that could not start or go on is one error, its message and remedy: no check measured anything.
  if (report.failure) return junitDocument(report, [failureCase(report.failure)]);
  const cases: Case[] = report.defects.map((d) => defectCase(report, d));
  const stopped = stopCase(report);
  if (stopped) cases.push(stopped);
  const reported = new Set(report.defects.flatMap((d) => [...d.signatures, ...d.alsoSeenAs].map((s) => s.checkId)));
  // A check passes only on evidence it applied to and passed (the table of evidence, reports/evidence.ts); one that
  // judged nothing is skipped, saying why, never passed.
  const judged = new Map(report.evidence.checks.map((e) => [e.checkId, e]));
  for (const c of allChecks) {
    if (reported.has(c.id) || !canFail(c)) continue;
    const e = judged.get(c.id);
    if (e?.state === 'failed') continue;
    cases.push({
      classname: 'petstore-conformance.checks',
      name: `${c.id} [${c.clause}]`,
      ...(e?.state === 'passed' ? {} : { skipped: skipWords(e) }),
    });
  }
  for (const l of report.notMeasured)
    cases.push({ classname: 'petstore-conformance.not-measured', name: l, skipped: `not measured: ${l}` });
  for (const l of report.notMeasuredByDesign ?? [])
    cases.push({ classname: 'petstore-conformance.not-measured', name: l, skipped: `not measured by design: ${l}` });
  for (const e of report.errors) cases.push({ classname: 'petstore-conformance.harness', name: 'harness', error: e });
  // A run that exits 3 without a harness error (a limit blocked it, or --require-complete and something was left
  // out) is an error of the run itself: CI shows what the exit code says. A stop that blocks the run (a deadline, a
  // signal) is that error already, in its own test case.
  if (
    report.errors.length === 0 &&
    !stopped?.error &&
    (report.verdict === 'blocked' || report.exitCode === ExitCode.blocked)
  ) {
    const why =
      report.verdict === 'blocked'
        ? `BLOCKED: ${
            report.suites
              .filter((s) => s.aborted)
              .map((s) => `${s.name} stopped early: ${s.aborted!.message}`)
              .join('; ') || 'the run could not go on (see the run limits)'
          }`
        : `INCOMPLETE with --require-complete: ${report.notMeasured.join('; ')}`;
    cases.push({ classname: 'petstore-conformance.run', name: 'verdict', error: why });
  }
  return junitDocument(report, cases);
}

/** The one test case of a run that could not start or go on (exit 2 or 3): the error, its code and what to do. */
function failureCase(f: RunFailure): Case {
  return {
    classname: 'petstore-conformance.run',
    name: f.exitCode === ExitCode.usage ? 'configuration' : 'run started',
    error: `${f.message} [${f.code}]`,
    out: `${f.message} [${f.code}]\nWhat to do: ${f.remedy}`,
  };
}

function junitDocument(report: ConformanceReport, cases: readonly Case[]): string {
  const failures = cases.filter((c) => c.failure).length;
  const errors = cases.filter((c) => c.error).length;
  const skipped = cases.filter((c) => c.skipped).length;
  const seconds = (report.durationMs / 1000).toFixed(3);
  const attrs = `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="petstore-conformance" ${attrs}>`,
    `  <testsuite name="${escapeXml(`conformance of ${report.target.url} (seed ${report.seed})`)}" ${attrs} timestamp="${escapeXml(report.startedAt)}">`,
    // The run's one verdict (reports/verdict.ts), as the terminal, the JSON and the exit code give it.
    '    <properties>',
    `      <property name="verdict" value="${escapeXml(report.verdict)}"/>`,
    '    </properties>',
    ...cases.map(renderCase),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
