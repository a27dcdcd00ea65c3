import type { RunResult } from './run-result.js';

// GitHub Actions workflow commands: one annotation per failed rule, so failures show on the run's
// summary page. Values are escaped as the runner expects (%, CR, LF; also : and , in properties).

const escapeData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (text: string) => escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

export function githubAnnotations(result: RunResult): string {
  const lines: string[] = [];
  for (const rule of result.rules) {
    if (rule.status !== 'failed') continue;
    const level = rule.severity === 'must' ? 'error' : 'warning';
    const first = rule.failures[0];
    const where = first
      ? `\n${first.request.method} ${first.request.url} → ${first.request.status ?? first.request.error ?? 'no answer'}`
      : '';
    const more = rule.failures.length > 1 ? `\n(${rule.failures.length - 1} more)` : '';
    lines.push(
      `::${level} title=${escapeProperty(`print-conformance ${rule.id}`)}::${escapeData(`${first?.message ?? 'failed'}${where}${more}`)}`,
    );
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
