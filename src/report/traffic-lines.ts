import type { ExchangeKind } from '../contract/exchange-facts.js';
import type { RunResult } from '../findings/types.js';
import { exitCodeOf } from '../validate/verdicts.js';

// What a run on traffic (proxy, validate) was judged on, in words every report shares: the
// operations and formats the traffic used, what it held that is not the interface, and, for
// `proxy -- COMMAND`, how the command ended beside the proxy's verdict.

const OPERATIONS: Exclude<ExchangeKind, 'other'>[] = ['POST checkout', 'GET checkout', 'POST files'];
const NAMES: Record<Exclude<ExchangeKind, 'other'>, string> = {
  'POST checkout': 'POST checkout/{code}',
  'GET checkout': 'GET checkout/{code}',
  'POST files': 'POST files/{code}',
};

/** "POST checkout/{code} (JSON 4, XML 1), POST files/{code} (JSON 2)", or undefined when none. */
function usedOperations(result: RunResult): string | undefined {
  const used = result.traffic?.used ?? {};
  const parts: string[] = [];
  for (const kind of OPERATIONS) {
    const formats = used[kind];
    if (!formats) continue;
    const counts = (['json', 'xml'] as const)
      .filter((format) => (formats[format] ?? 0) > 0)
      .map((format) => `${format.toUpperCase()} ${formats[format]}`);
    parts.push(counts.length > 0 ? `${NAMES[kind]} (${counts.join(', ')})` : NAMES[kind]);
  }
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** What the traffic did not exercise: formats and operations whose rules were skipped for it. */
function notExercised(result: RunResult): string[] {
  if (!result.run.auto || !result.traffic) return [];
  const used = result.traffic.used;
  const missing: string[] = OPERATIONS.filter((kind) => !used[kind]).map((kind) => NAMES[kind]);
  for (const format of ['json', 'xml'] as const)
    if (!OPERATIONS.some((kind) => (used[kind]?.[format] ?? 0) > 0)) missing.unshift(format.toUpperCase());
  return missing;
}

/** "3× CORS preflight (OPTIONS), 1× another host", most frequent first. */
function notInterface(result: RunResult): string | undefined {
  const counts = Object.entries(result.traffic?.notInterface ?? {}).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  if (counts.length === 0) return undefined;
  return counts.map(([reason, count]) => `${count}× ${reason}`).join(', ');
}

/** The lines about what the traffic was judged on; none for the suite. */
export function trafficLines(result: RunResult): string[] {
  if (!result.traffic) return [];
  const lines: string[] = [];
  const used = usedOperations(result);
  const orders = result.traffic.orders;
  lines.push(
    `Judged on: ${result.exchanges} exchanges of the interface${used ? `: ${used}` : ''}${orders > 0 ? `; ${orders} order answers read for the URLs they gave` : ''}`,
  );
  const missing = notExercised(result);
  if (missing.length > 0) lines.push(`Not exercised by this traffic (their rules skipped): ${missing.join(', ')}`);
  const outside = notInterface(result);
  if (outside) lines.push(`Not the interface (judged by no rule): ${outside}`);
  return lines;
}

/** The exit code a run ends with: a failed wrapped command's, else the verdict's. */
export function exitCodeOfResult(result: RunResult): number {
  return result.exitCode ?? exitCodeOf(result.rules);
}

/** For `proxy -- COMMAND`: the command's end, the proxy's verdict and the session's exit code. */
export function commandLine(result: RunResult): string | undefined {
  if (!result.command) return undefined;
  const { exitCode } = result.command;
  // The command is shown as inline code: a backtick of its own would end that early.
  const command = result.command.command.replace(/`/g, "'");
  const ended = typeof exitCode === 'number' ? `exited ${exitCode}` : `was ended by ${exitCode}`;
  const verdict = result.command.verdict ?? exitCodeOf(result.rules);
  const said = verdict === 0 ? 'held' : verdict === 1 ? 'failed' : 'the run could not be made or is incomplete';
  return `Command \`${command}\` ${ended}; the proxy's verdict: ${said} (${verdict}); the session exits ${exitCodeOfResult(result)}`;
}
