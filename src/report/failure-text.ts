import type { Finding, RuleResult } from '../findings/types.js';
import { failureDetail } from './failure-detail.js';

// How a failed or untested rule is told in words, the same in the console, JUnit and Allure.

/** A request's method or URL stays on its line: a recorded line break in it is written as an escape. */
const onOneLine = (text: string) => text.replace(/[\r\n]/g, (char) => (char === '\n' ? '\\x0a' : '\\x0d'));

export function exchangeLine(finding: Finding): string {
  const { exchange } = finding;
  return `${onOneLine(exchange.method)} ${onOneLine(exchange.url)} → ${exchange.status ?? onOneLine(exchange.error ?? 'no answer')}`;
}

/** The failures of a rule, each with the exchange that showed it, then how many more there were. */
export function failureText(rule: RuleResult, shown = rule.failures.length): string {
  if (rule.status === 'untested') return `untested: ${rule.reason ?? 'no exchange could test it'}`;
  const lines = rule.failures.slice(0, shown).map((finding) => {
    const format = finding.format === 'any' ? '' : `[${finding.format}] `;
    const detail = failureDetail(finding.exchange, '  ');
    return [`${format}${finding.side}: ${finding.message}`, `  ${exchangeLine(finding)}`, ...detail].join('\n');
  });
  const more = rule.failures.length - Math.min(shown, rule.failures.length) + rule.moreFailures;
  if (more > 0) lines.push(`… and ${more} more exchanges like these`);
  return lines.join('\n');
}

/** The one-line headline of a failed or untested rule. */
export function failureHeadline(rule: RuleResult): string {
  if (rule.status === 'untested') return `untested: ${rule.reason ?? 'no exchange could test it'}`;
  const first = rule.failures[0];
  return first ? `${first.side}: ${first.message}` : 'failed';
}
