import type { RuleResult, RunResult } from '../findings/types.js';
import { exitCodeOf } from '../validate/verdicts.js';
import { exchangeLine, failureHeadline } from './failure-text.js';

// A run's verdicts in Markdown, short enough for a pull-request comment: the rules that fail the
// run or warn, each with what showed it, the others counted. Made from the RunResult alone, like
// every other writer, so it tells the same story as the console summary and the exit code.

function cell(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const short = flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
  // What came over the wire (a Host header, a message quoting a body) stays text, never markup.
  return short.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function verdictOf(rule: RuleResult): string {
  if (rule.status === 'failed') return rule.failsRun ? 'FAIL' : 'WARN';
  return rule.failsRun ? 'UNTESTED' : 'untested';
}

function detail(rule: RuleResult): string {
  const first = rule.failures[0];
  const headline = cell(failureHeadline(rule));
  if (rule.status !== 'failed' || !first) return headline;
  const more = rule.failures.length - 1 + rule.moreFailures;
  return `${headline}<br>\`${cell(exchangeLine(first)).replace(/`/g, "'")}\`${more > 0 ? ` (and ${more} more)` : ''}`;
}

export interface MarkdownOptions {
  title: string;
  /** Lines shown under their own heading after the table (e.g. what never reached the target). */
  notes?: { heading: string; lines: string[] };
}

export function summaryMarkdown(result: RunResult, options: MarkdownOptions): string {
  const { passed, failed, warnings, untested, skipped, observed } = result.summary;
  const pass = exitCodeOf(result.rules) === 0;
  const lines = [
    `### ${options.title}`,
    '',
    `**${pass ? 'Passed' : 'Failed'}**: ${passed} passed, ${failed} failed, ${warnings} warnings, ${untested} untested, ${skipped} skipped${observed ? `, ${observed} observed` : ''} (${result.exchanges} exchanges judged)`,
  ];
  const shown = result.rules.filter((rule) => rule.status === 'failed' || rule.status === 'untested');
  // What fails the run first (broken before untested), then warnings and untested rules that do not count.
  const rank = (rule: RuleResult) => (rule.failsRun ? 0 : 2) + (rule.status === 'failed' ? 0 : 1);
  shown.sort((a, b) => rank(a) - rank(b));
  if (shown.length > 0) {
    lines.push('', '| Verdict | Rule | Severity | What showed it |', '|---|---|---|---|');
    for (const rule of shown)
      lines.push(`| ${verdictOf(rule)} | \`${rule.id}\` | ${rule.severity} | ${detail(rule)} |`);
  }
  if (options.notes && options.notes.lines.length > 0) {
    lines.push('', `**${options.notes.heading}**`, '');
    for (const line of options.notes.lines) lines.push(`- ${cell(line)}`);
  }
  return `${lines.join('\n')}\n`;
}
