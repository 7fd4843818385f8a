/** summary.md: the verdict and key figures in a few lines of Markdown, fit for $GITHUB_STEP_SUMMARY or a chat message. */
import { GENERATOR_BOUND_CPU_PERCENT, type LoadReport } from './model.js';
import { measureOf } from './thresholds.js';

const num = (v: number | null, unit = '') => (v === null ? '–' : `${v}${unit}`);

/**
 * What the trend did to the verdict: the thresholds relative to earlier nights apply only from trend.minNights on
 * (the checks' basis says so); before that, every threshold is absolute, and the reader is told when that changes.
 */
export function trendNote(report: LoadReport): string {
  const n = report.trend.length;
  const relative = report.verdict.checks.some((c) => c.basis !== 'absolute');
  const nights = (k: number) => `${k} earlier night${k === 1 ? '' : 's'}`;
  if (relative) return `Compared with ${nights(n)} (median): relative thresholds apply.`;
  if (report.verdict.unavailable)
    return 'Not compared with earlier nights, and not added to the history: the target was unavailable.';
  const from = report.verdict.relativeFromNights ?? null;
  const when =
    from === null ? '' : ` Thresholds relative to earlier nights begin once ${nights(from)} exist (night ${from + 1}).`;
  return n > 0
    ? `${nights(n)} of this profile and target on record; every threshold is absolute so far.${when}`
    : `No earlier nights to compare with yet; every threshold is absolute.${when}`;
}

/**
 * The night's headline word, for every writer (summary, terminal, HTML): an interrupted night is INTERRUPTED and one
 * without its target TARGET UNAVAILABLE (neither is a verdict on the target); a night whose latency cannot be trusted
 * says so, and is FAIL only when something else failed too.
 */
export function nightHeadline(report: LoadReport): { readonly word: string; readonly mark: string } {
  const v = report.verdict;
  if (report.interrupted) return { word: 'INTERRUPTED', mark: '⏹️' };
  if (v.unavailable) return { word: 'TARGET UNAVAILABLE', mark: '⚠️' };
  if (v.pass) return { word: 'PASS', mark: '✅' };
  if (v.latencyUntrusted) {
    const others = v.checks.some((c) => !c.pass && measureOf(c.name) !== 'latency') || report.figures.responses === 0;
    return others
      ? { word: 'FAIL, LATENCY NOT TO BE TRUSTED', mark: '❌' }
      : { word: 'LATENCY NOT TO BE TRUSTED', mark: '⚠️' };
  }
  return { word: 'FAIL', mark: '❌' };
}

export function renderSummary(report: LoadReport): string {
  const v = report.verdict;
  const f = report.figures;
  const headline = nightHeadline(report);
  const target = report.target.embedded ? 'embedded reference server' : report.target.url;
  const lines = [
    `## Load ${report.profile}: ${headline.word} ${headline.mark}`,
    '',
    `Target ${target} · ${report.createdAt} · ${report.scenarios.length} scenarios · ${f.responses} responses`,
    '',
  ];
  if (v.unavailable)
    lines.push(
      `No performance verdict: the target was not there to measure (not a regression). ${
        report.unavailable?.scenario
          ? `It went away during ${report.unavailable.scenario}; the figures below are what was measured before.`
          : 'No load was sent.'
      }`,
      '',
      ...v.reasons.map((r) => `- ${r}`),
      '',
    );
  else if (report.interrupted)
    lines.push('**Interrupted:** not a verdict on the target.', '', ...v.reasons.map((r) => `- ${r}`), '');
  else if (!v.pass) lines.push('**Why it failed:**', '', ...v.reasons.map((r) => `- ${r}`), '');
  for (const w of report.merge?.warnings ?? []) lines.push(`> ⚠️ ${w}`, '');
  // A single run's generator at a core measures itself: said here, where the night is read (a merge flags its shards).
  if (!report.merge)
    for (const s of report.scenarios)
      for (const g of s.generator ?? [])
        if (g.peakCpuPercent >= GENERATOR_BOUND_CPU_PERCENT)
          lines.push(
            `> ⚠️ ${s.title}: the load generator's CPU peaked at ${g.peakCpuPercent}% of a core: its figures may measure the generator, not the target (see docs/sharding.md)`,
            '',
          );
  lines.push(
    '| figure | value |',
    '|---|---|',
    `| p99 latency (2xx, mix) | ${num(f.p99LatencyMs, ' ms')} |`,
    `| p50 latency (2xx, mix) | ${num(f.p50LatencyMs, ' ms')} |`,
    `| throughput (closed-loop mix) | ${num(f.throughputRps, ' req/s')} |`,
    `| error rate | ${f.errorRate} |`,
    `| non-conformant responses under load | ${f.nonConformant} |`,
    `| 429s at or below the plan rate | ${f.falseRejections} |`,
    `| accepted before first 429 ÷ limit (min) | ${num(f.minFirstWindowRatio)} |`,
    `| accepted ÷ limit per window above the rate (max) | ${num(f.maxAcceptedRatio)} |`,
    '',
    trendNote(report),
    '',
  );
  return `${lines.join('\n')}`;
}
