import type { RuleResult, RunResult } from '../findings/types.js';
import { clientLines } from './client-lines.js';
import { type Paint, painter, type Style } from './colour.js';
import { coverageLines } from './coverage-lines.js';
import { failureDetail } from './failure-detail.js';
import { exchangeLine, sameFindings } from './failure-text.js';
import { generatedLines } from './generated-lines.js';
import { profileLines } from './profile-lines.js';
import { terminalText } from './terminal-text.js';
import { commandLine, trafficLines } from './traffic-lines.js';

// The table a person reads at the end of a run: each rule, its verdict, the formats and evidence
// behind it, and for a failure the request that showed it and what came back, trimmed to a few
// lines. Rules left out by --only/--skip are summed up in one line.

const NOT_SELECTED = 'not selected (--only/--skip)';

function mark(rule: RuleResult): string {
  if (rule.status === 'failed') return rule.failsRun ? 'FAIL' : 'WARN';
  if (rule.status === 'untested') return rule.failsRun ? 'UNTESTED' : 'untested';
  return { passed: 'pass', skipped: 'skip', observed: 'seen' }[rule.status];
}

/** The verdict word's colour: red fails the run, yellow warns, green held. */
function styleOf(rule: RuleResult): Style {
  if (rule.failsRun) return 'red';
  if (rule.status === 'failed' || rule.status === 'untested') return 'yellow';
  return { passed: 'green', skipped: 'dim', observed: 'cyan' }[rule.status] as Style;
}

/** Every rule not judged says why, even when the verdict came without a reason. */
function reasonOf(rule: RuleResult): string {
  if (rule.reason) return rule.reason;
  return rule.status === 'skipped' ? 'not judged in this run' : 'no exchange could test it';
}

function oneLine(text: string | undefined, max = 160): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function note(rule: RuleResult): string {
  if (rule.status === 'skipped' || rule.status === 'untested') return reasonOf(rule);
  return rule.formats
    .map((f) => `${f.format === 'any' ? '' : `${f.format} `}${f.evidence}`)
    .join(', ')
    .concat(rule.formats.length ? ' exchanges' : '');
}

/** A line cut to `width` characters at a terminal, saying how much was left out; whole elsewhere. */
function fitted(line: string, width: number | undefined): string {
  if (width === undefined || line.length <= width) return line;
  const tail = ` … (${line.length - width} more characters in results.json)`;
  return `${line.slice(0, Math.max(20, width - tail.length))}${tail}`;
}

/** Under a failed rule: each distinct finding once, with how many exchanges showed it and one to reproduce it. */
function failureLines(rule: RuleResult, width: number | undefined): string[] {
  const lines: string[] = [];
  const groups = sameFindings(rule.failures);
  const shown = groups.slice(0, 3);
  for (const { first: failure, count } of shown) {
    const times = count > 1 ? ` (${count} exchanges)` : '';
    lines.push(
      `        ${failure.format === 'any' ? '' : `[${failure.format}] `}${failure.side}: ${oneLine(failure.message, 200)}${times}`,
    );
    lines.push(fitted(`          ${exchangeLine(failure)}`, width));
    if (failure.exchange.responseBody && failure.exchange.excerpt === undefined)
      lines.push(`          answered: ${oneLine(failure.exchange.responseBody)}`);
    lines.push(...failureDetail(failure.exchange, '          ').map((line) => fitted(line, width)));
  }
  const told = shown.reduce((sum, group) => sum + group.count, 0);
  const more = rule.failures.length - told + rule.moreFailures;
  if (more > 0) lines.push(`        … and ${more} more`);
  return lines;
}

export interface ConsoleOptions {
  /** Colour the verdict words (see colourWanted). */
  colour?: boolean;
  /** A terminal's width: detail lines (bodies, reproductions) longer than it are shortened. */
  width?: number;
  /** The service profile whole (default); else one line saying where it is. */
  profile?: boolean;
  /**
   * --quiet: only the rules that failed or warned, or fail the run untested, with what showed it,
   * a generated case that broke a rule, and the summary line; not the table of what held.
   */
  brief?: boolean;
}

/** The width to fit detail lines to: a terminal's; none for a file, a pipe or a CI log, which keep them whole. */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  return stream.isTTY && stream.columns ? Math.max(60, stream.columns) : undefined;
}

/** A rule --quiet still names: it failed or warned, or it fails the run untested. */
const worthTelling = (rule: RuleResult) => rule.status === 'failed' || (rule.status === 'untested' && rule.failsRun);

export function consoleSummary(result: RunResult, options: ConsoleOptions = {}): string {
  const paint: Paint = painter(options.colour ?? false);
  const brief = options.brief === true;
  const selected = result.rules.filter((rule) => rule.reason !== NOT_SELECTED);
  const shown = brief ? selected.filter(worthTelling) : selected;
  const width = Math.max(4, ...shown.map((r) => r.id.length));
  const lines: string[] = [];
  if (shown.length > 0 || !brief)
    lines.push(paint('bold', `${'VERDICT '.padEnd(9)} ${'RULE'.padEnd(width)}  ${'SEVERITY'}  EVIDENCE / REASON`));
  for (const rule of shown) {
    const verdict = paint(styleOf(rule), mark(rule).padEnd(9));
    // What came from traffic is printed as text a terminal does not act on.
    lines.push(`${verdict} ${rule.id.padEnd(width)}  ${rule.severity.padEnd(8)}  ${terminalText(note(rule))}`);
    if (rule.status === 'failed') lines.push(...failureLines(rule, options.width).map(terminalText));
  }
  const unselected = result.rules.length - selected.length;
  const blocks: string[][] = [];
  if (unselected > 0 && !brief) lines.push(`(${unselected} rules not selected by --only/--skip)`);
  const profile = profileLines(result.profile);
  if (profile.length > 0 && !brief && options.profile === false) {
    const count = Object.keys(result.profile).length;
    blocks.push([
      `Service profile: ${count} observe rules recorded what the service does where the description is silent (--verbose, or results.json)`,
    ]);
  } else if (profile.length > 0 && !brief)
    blocks.push(['Service profile (where the description is silent):', ...profile.map(terminalText)]);
  // A generated case that broke a rule is a failure, told with --quiet too.
  const generated = generatedLines(result);
  if (generated.length > 0 && (!brief || (result.generated?.failures.length ?? 0) > 0))
    blocks.push(generated.map(terminalText));
  if (!brief) {
    blocks.push(coverageLines(result.coverage).map(terminalText));
    blocks.push(trafficLines(result).map(terminalText));
    const command = commandLine(result);
    if (command) blocks.push([terminalText(command.replaceAll('`', ''))]);
  }
  // Which client team broke which rule (--clients-by): a verdict each, told with --quiet too.
  blocks.push(clientLines(result.clients).map(terminalText));
  for (const block of blocks) if (block.length > 0) lines.push('', ...block);
  const { passed, failed, warnings, untested, skipped, observed } = result.summary;
  const count = (n: number, word: string, style: Style) => (n > 0 ? paint(style, `${n} ${word}`) : `${n} ${word}`);
  if (lines.length > 0) lines.push('');
  lines.push(
    `${count(passed, 'passed', 'green')}, ${count(failed, 'failed', 'red')}, ${count(warnings, 'warnings', 'yellow')}, ${count(untested, 'untested', 'yellow')}, ${skipped} skipped, ${observed} observed — ${terminalText(result.target.replace(/\n/g, ' '))} in ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  return `${lines.join('\n')}\n`;
}
