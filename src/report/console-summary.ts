import { failureDetail } from './failure-detail.js';
import type { RunResult } from './run-result.js';

// The table a person reads at the end of a run: each rule, its verdict, and for a failure the
// request that showed it and what came back, trimmed to a few lines.

const MARK: Record<string, string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip', observed: 'seen' };

function oneLine(text: string | undefined, max = 160): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function consoleSummary(result: RunResult): string {
  const width = Math.max(...result.rules.map((r) => r.id.length));
  const lines: string[] = [];
  for (const rule of result.rules) {
    const verdict = rule.status === 'failed' && rule.severity !== 'must' ? 'WARN' : MARK[rule.status];
    const formats = rule.formats
      .filter((f) => f.state !== 'skipped')
      .map((f) => f.format)
      .filter((f) => f !== 'any');
    const note = rule.status === 'skipped' ? (rule.skipReason ?? '') : formats.length ? formats.join(', ') : '';
    lines.push(`${verdict}  ${rule.id.padEnd(width)}  ${rule.severity.padEnd(7)}  ${note}`);
    if (rule.status === 'failed') {
      for (const failure of rule.failures.slice(0, 3)) {
        lines.push(`        ${failure.format === 'any' ? '' : `[${failure.format}] `}${oneLine(failure.message, 200)}`);
        const r = failure.request;
        lines.push(`          ${r.method} ${r.url} → ${r.status ?? r.error ?? 'no answer'}`);
        if (r.responseBody && r.excerpt === undefined) lines.push(`          answered: ${oneLine(r.responseBody)}`);
        lines.push(...failureDetail(r, '          '));
      }
      if (rule.failures.length > 3) lines.push(`        … and ${rule.failures.length - 3} more`);
    }
  }
  const profile = Object.entries(result.profile);
  if (profile.length > 0) {
    lines.push('', 'Service profile (where the description is silent):');
    for (const [id, value] of profile) lines.push(`  ${id}: ${oneLine(JSON.stringify(value), 300)}`);
  }
  const { passed, failed, warnings, skipped } = result.summary;
  lines.push(
    '',
    `${passed} passed, ${failed} failed, ${warnings} warnings, ${skipped} skipped — ${result.target} in ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  return `${lines.join('\n')}\n`;
}
