import type { RuleResult, RunResult } from '../findings/types.js';
import { failureDetail } from './failure-detail.js';
import { exchangeLine } from './failure-text.js';

// The table a person reads at the end of a run: each rule, its verdict, the formats and evidence
// behind it, and for a failure the request that showed it and what came back, trimmed to a few
// lines. Rules left out by --only/--skip are summed up in one line.

const NOT_SELECTED = 'not selected (--only/--skip)';

function mark(rule: RuleResult): string {
  if (rule.status === 'failed') return rule.failsRun ? 'FAIL' : 'WARN';
  if (rule.status === 'untested') return rule.failsRun ? 'UNTESTED' : 'untested';
  return { passed: 'pass', skipped: 'skip', observed: 'seen' }[rule.status];
}

function oneLine(text: string | undefined, max = 160): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function note(rule: RuleResult): string {
  if (rule.status === 'skipped' || rule.status === 'untested') return rule.reason ?? '';
  return rule.formats
    .map((f) => `${f.format === 'any' ? '' : `${f.format} `}${f.evidence}`)
    .join(', ')
    .concat(rule.formats.length ? ' exchanges' : '');
}

function failureLines(rule: RuleResult): string[] {
  const lines: string[] = [];
  for (const failure of rule.failures.slice(0, 3)) {
    lines.push(
      `        ${failure.format === 'any' ? '' : `[${failure.format}] `}${failure.side}: ${oneLine(failure.message, 200)}`,
    );
    lines.push(`          ${exchangeLine(failure)}`);
    if (failure.exchange.responseBody && failure.exchange.excerpt === undefined)
      lines.push(`          answered: ${oneLine(failure.exchange.responseBody)}`);
    lines.push(...failureDetail(failure.exchange, '          '));
  }
  const more = rule.failures.length - Math.min(3, rule.failures.length) + rule.moreFailures;
  if (more > 0) lines.push(`        … and ${more} more`);
  return lines;
}

export function consoleSummary(result: RunResult): string {
  const shown = result.rules.filter((rule) => rule.reason !== NOT_SELECTED);
  const width = Math.max(4, ...shown.map((r) => r.id.length));
  const lines = [`${'VERDICT '.padEnd(9)} ${'RULE'.padEnd(width)}  ${'SEVERITY'}  EVIDENCE / REASON`];
  for (const rule of shown) {
    lines.push(`${mark(rule).padEnd(9)} ${rule.id.padEnd(width)}  ${rule.severity.padEnd(8)}  ${note(rule)}`);
    if (rule.status === 'failed') lines.push(...failureLines(rule));
  }
  const unselected = result.rules.length - shown.length;
  if (unselected > 0) lines.push(`(${unselected} rules not selected by --only/--skip)`);
  const profile = Object.entries(result.profile);
  if (profile.length > 0) {
    lines.push('', 'Service profile (where the description is silent):');
    for (const [id, value] of profile) lines.push(`  ${id}: ${oneLine(JSON.stringify(value), 300)}`);
  }
  const { passed, failed, warnings, untested, skipped } = result.summary;
  lines.push(
    '',
    `${passed} passed, ${failed} failed, ${warnings} warnings, ${untested} untested, ${skipped} skipped — ${result.target} in ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  return `${lines.join('\n')}\n`;
}
