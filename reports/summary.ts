/** summary.md: the verdict and key figures in a few lines of Markdown, fit for $GITHUB_STEP_SUMMARY or a chat message. */
import type { LoadReport } from './model.js';

const num = (v: number | null, unit = '') => (v === null ? '–' : `${v}${unit}`);

export function renderSummary(report: LoadReport): string {
  const v = report.verdict;
  const f = report.figures;
  const target = report.target.embedded ? 'embedded reference server' : report.target.url;
  const lines = [
    `## Load ${report.profile}: ${v.pass ? 'PASS ✅' : 'FAIL ❌'}`,
    '',
    `Target ${target} · ${report.createdAt} · ${report.scenarios.length} scenarios · ${f.responses} responses`,
    '',
  ];
  if (!v.pass) lines.push('**Why it failed:**', '', ...v.reasons.map((r) => `- ${r}`), '');
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
    report.trend.length > 0
      ? `Compared with ${report.trend.length} earlier night(s) (median).`
      : 'No earlier nights to compare with yet.',
    '',
  );
  return `${lines.join('\n')}`;
}
