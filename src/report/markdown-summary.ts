import type { RuleResult, RunResult } from '../findings/types.js';
import { exitCodeOf } from '../validate/verdicts.js';
import { clientMarkdown } from './client-lines.js';
import { coverageRows } from './coverage-lines.js';
import { exchangeLine } from './failure-text.js';
import { generatedLines } from './generated-lines.js';
import { codeSpan, inertText } from './markdown-text.js';
import { replayNotes } from './replay-lines.js';
import { commandLine, exitCodeOfResult, trafficLines } from './traffic-lines.js';

// The run as Markdown, for a pull-request comment or a GitHub job summary (--summary-md,
// $GITHUB_STEP_SUMMARY): the counts and the verdict the exit code gives, then a table of the rules
// that failed, warned or were untested, with what showed it, then one line for the rest.

const MAX_CELL = 300;

/**
 * Text made safe for one table cell: one line, not too long, and what came over the wire (a Host
 * header, a message quoting a body) kept as text, never read as markup or as the cell's end.
 */
function cell(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const short = flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL)}…` : flat;
  return inertText(short);
}

/** A line of prose with its inline code kept as code: the command's text cannot become markup. */
function cellText(text: string): string {
  return text
    .split('`')
    .map((part, index) =>
      index % 2 === 1
        ? `\`${part.replace(/`/g, "'").replace(/\s+/g, ' ')}\``
        : part.replace(/\s+/g, ' ').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
    )
    .join('');
}

function verdictOf(rule: RuleResult): string {
  if (rule.status === 'failed') return rule.failsRun ? '❌ failed' : '⚠️ warning';
  return rule.failsRun ? '❌ untested' : '⚠️ untested';
}

function whyOf(rule: RuleResult): string {
  if (rule.status === 'untested') return cell(rule.reason ?? 'no exchange could test it');
  const first = rule.failures[0];
  if (!first) return '';
  const format = first.format === 'any' ? '' : `[${first.format}] `;
  const more = rule.failures.length - 1 + rule.moreFailures;
  return `${format}${cell(`${first.side}: ${first.message}`)}<br>${cell(exchangeLine(first))}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** Rules in the table first: those that fail the run, then warnings, then untested. */
function rank(rule: RuleResult): number {
  if (rule.failsRun) return rule.status === 'failed' ? 0 : 1;
  return rule.status === 'failed' ? 2 : 3;
}

export interface MarkdownOptions {
  /** What the heading names (default: print-conformance). */
  title?: string;
  /** Lines shown under their own heading after the table (e.g. what never reached the target). */
  notes?: { heading: string; lines: string[] };
}

export function markdownSummary(result: RunResult, options: MarkdownOptions = {}): string {
  const { passed, failed, warnings, untested, skipped, observed } = result.summary;
  const exitCode = exitCodeOfResult(result);
  const failing = result.rules.filter((r) => r.failsRun).length;
  const rulesVerdict =
    exitCodeOf(result.rules) === 0
      ? '✅ every selected rule that decides the run was tested and held'
      : failing === 1
        ? '❌ 1 rule fails the run'
        : `❌ ${failing} rules fail the run`;
  // A failed wrapped command never shows a green heading, whatever the rules say.
  const commandFailed = result.command !== undefined && result.command.exitCode !== 0;
  const verdict = commandFailed
    ? `❌ the command ${typeof result.command?.exitCode === 'number' ? `exited ${result.command.exitCode}` : `was ended by ${result.command?.exitCode}`} (rules: ${rulesVerdict.replace(/^\S+ /, '')})`
    : result.recording && exitCodeOf(result.rules) === 0
      ? `❌ the recording is incomplete (rules: ${rulesVerdict.replace(/^\S+ /, '')})`
      : rulesVerdict;
  const lines = [
    `### ${options.title ?? 'print-conformance'}: ${verdict}`,
    '',
    `${passed} passed, ${failed} failed, ${warnings} warnings, ${untested} untested, ${skipped} skipped, ${observed} observed — ${codeSpan(result.target)}, ${result.exchanges} exchanges in ${(result.durationMs / 1000).toFixed(1)} s${result.strict ? ' (--strict)' : ''}; exit code ${exitCode}`,
    '',
  ];
  const command = commandLine(result);
  if (command) lines.push(cellText(command), '');
  if (result.recording) lines.push(cell(`The recording is incomplete: ${result.recording.problem}`), '');
  for (const line of trafficLines(result)) lines.push(cell(line), '');
  for (const line of generatedLines(result)) lines.push(cell(line), '');
  // A replay's list of differences is one paragraph: its lines belong together.
  const replay = replayNotes(result);
  if (replay.length > 0) lines.push(replay.map(cell).join('\n'), '');
  const listed = result.rules
    .filter((rule) => rule.status === 'failed' || rule.status === 'untested')
    .sort((a, b) => rank(a) - rank(b));
  if (listed.length > 0) {
    lines.push('| Rule | Severity | Verdict | What showed it |', '|---|---|---|---|');
    for (const rule of listed)
      lines.push(`| \`${rule.id}\` | ${rule.severity} | ${verdictOf(rule)} | ${whyOf(rule)} |`);
    lines.push('');
  }
  const rest = [`${passed} passed`, `${observed} observed`, `${skipped} skipped`].join(', ');
  lines.push(listed.length > 0 ? `The other rules: ${rest}.` : `No rule failed, warned or went untested: ${rest}.`);
  const clients = clientMarkdown(result.clients);
  if (clients) lines.push(clients.trimEnd());
  const coverage = coverageRows(result.coverage);
  if (coverage.length > 0) {
    lines.push(
      '',
      '<details><summary>Coverage of the interface</summary>',
      '',
      '| Operation | Exchanges | Statuses | Request members seen | Answer members seen |',
      '|---|---|---|---|---|',
    );
    for (const row of coverage)
      lines.push(
        `| ${cell(row.operation)} | ${cell(row.exchanges)} | ${cell(row.statuses)} | ${cell(row.request ?? '—')} | ${cell(row.response ?? '—')} |`,
      );
    lines.push('', '</details>');
  }
  if (options.notes && options.notes.lines.length > 0) {
    lines.push('', `**${options.notes.heading}**`, '');
    for (const line of options.notes.lines) lines.push(`- ${cell(line)}`);
  }
  return `${lines.join('\n')}\n`;
}
