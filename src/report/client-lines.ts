import type { ClientsSection, ClientVerdict } from '../findings/types.js';
import { inertText } from './markdown-text.js';

// The verdict per client team (--clients-by) as the console and the Markdown summary show it: which
// team's client broke which rule. Ids are shown; no credential ever reaches these (see client-identity).

function mark(verdict: ClientVerdict): string {
  if (verdict.judged === 0) return '·';
  return verdict.passed ? '✓' : '✗';
}

function what(verdict: ClientVerdict): string {
  const counted = `${verdict.exchanges} exchange${verdict.exchanges === 1 ? '' : 's'}`;
  if (verdict.judged === 0) return `${counted}, none of the interface`;
  if (!verdict.passed) return `${counted}; broke ${verdict.failed.map((f) => f.rule).join(', ')}`;
  return verdict.warnings.length > 0
    ? `${counted}; warnings: ${verdict.warnings.map((f) => f.rule).join(', ')}`
    : counted;
}

/** Console lines: a heading and one line per client. */
export function clientLines(section: ClientsSection | undefined): string[] {
  if (!section) return [];
  const failing = section.clients.filter((c) => !c.passed).length;
  return [
    `Clients (by ${section.by}): ${section.clients.length}, ${failing} broke a rule`,
    ...section.clients.map((c) => `  ${mark(c)} ${c.client}: ${what(c)}`),
  ];
}

/** The Markdown summary's section of clients, or '' without --clients-by. */
export function clientMarkdown(section: ClientsSection | undefined): string {
  if (!section) return '';
  const rows = section.clients.map((c) => `| ${mark(c)} | ${inertText(c.client)} | ${inertText(what(c))} |`);
  return `\n#### Clients (by ${inertText(section.by)})\n\n| | Client | Exchanges and rules |\n|---|---|---|\n${rows.join('\n')}\n`;
}
