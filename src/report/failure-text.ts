import type { Finding, RuleResult } from '../findings/types.js';
import { failureDetail } from './failure-detail.js';
import { foldCommand } from './fold-command.js';

// How a failed or untested rule is told in words, the same in the console, JUnit and Allure.

/** A request's method or URL stays on its line: a recorded line break in it is written as an escape. */
const onOneLine = (text: string) => text.replace(/[\r\n]/g, (char) => (char === '\n' ? '\\x0a' : '\\x0d'));

export function exchangeLine(finding: Finding): string {
  const { exchange } = finding;
  return `${onOneLine(exchange.method)} ${onOneLine(exchange.url)} → ${exchange.status ?? onOneLine(exchange.error ?? 'no answer')}`;
}

/** Findings that say the same thing (format, side, message) of several exchanges, told once. */
export interface SameFinding {
  first: Finding;
  count: number;
}

export function sameFindings(failures: readonly Finding[]): SameFinding[] {
  const groups = new Map<string, SameFinding>();
  for (const failure of failures) {
    const key = JSON.stringify([failure.format, failure.side, failure.message]);
    const group = groups.get(key);
    if (group) group.count += 1;
    else groups.set(key, { first: failure, count: 1 });
  }
  return [...groups.values()];
}

export interface FailureTextOptions {
  /** How many distinct findings to tell (all by default). */
  shown?: number;
  /** Fold the reproduction to this width (a report card), else keep it on one line (a log). */
  width?: number;
}

/**
 * The failures of a rule, each distinct finding once with how many exchanges showed it and the
 * first of them, then how many more there were.
 */
export function failureText(rule: RuleResult, options: FailureTextOptions = {}): string {
  if (rule.status === 'untested') return `untested: ${rule.reason ?? 'no exchange could test it'}`;
  const groups = sameFindings(rule.failures);
  const shown = groups.slice(0, options.shown ?? groups.length);
  const lines = shown.map(({ first: finding, count }) => {
    const format = finding.format === 'any' ? '' : `[${finding.format}] `;
    const times = count > 1 ? ` (${count} exchanges)` : '';
    const { width } = options;
    const exchange =
      width === undefined || finding.exchange.curl === undefined
        ? finding.exchange
        : { ...finding.exchange, curl: foldCommand(finding.exchange.curl, width - 'reproduce: '.length, '    ') };
    const detail = failureDetail(exchange, '  ');
    return [`${format}${finding.side}: ${finding.message}${times}`, `  ${exchangeLine(finding)}`, ...detail].join('\n');
  });
  const told = shown.reduce((sum, group) => sum + group.count, 0);
  const more = rule.failures.length - told + rule.moreFailures;
  if (more > 0) lines.push(`… and ${more} more exchanges like these`);
  return lines.join('\n');
}

/** What an observed rule is, in every report that has no word of its own for it. */
export const OBSERVED =
  'recorded what the service does where the description is silent (the service profile), never passed or failed';

/** The one-line headline of a failed or untested rule. */
export function failureHeadline(rule: RuleResult): string {
  if (rule.status === 'untested') return `untested: ${rule.reason ?? 'no exchange could test it'}`;
  const first = rule.failures[0];
  return first ? `${first.side}: ${first.message}` : 'failed';
}
