import type { ExchangeSummary } from '../findings/types.js';

// What the text reports (console, JUnit) show under a failure besides its message: the body around
// the member it names, and a command that sends the request again.

/** Lines of detail under a failure, each starting with `indent`. */
export function failureDetail(exchange: ExchangeSummary, indent: string): string[] {
  const lines: string[] = [];
  if (exchange.excerpt !== undefined) {
    const [first = '', ...rest] = exchange.excerpt.split('\n');
    lines.push(`${indent}body: ${first}`, ...rest.map((line) => `${indent}      ${line}`));
  }
  if (exchange.curl !== undefined) lines.push(`${indent}reproduce: ${exchange.curl}`);
  return lines;
}
