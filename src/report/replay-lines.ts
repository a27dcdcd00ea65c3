import type { AnswerDifference, ReplayedExchange, ReplaySummary } from '../findings/replay.js';
import type { RunResult } from '../findings/types.js';
import { painter } from './colour.js';
import { terminalLine } from './terminal-text.js';

// The console's account of a replay, printed before the verdicts: how much of the recording was
// sent again, each exchange that could not be (and why), and each new answer that differs from
// the recorded one where the interface cares.

function valueText(value: string | undefined): string {
  if (value === undefined) return 'absent';
  const shown = value.length > 80 ? `${value.slice(0, 77)}…` : value;
  return JSON.stringify(shown);
}

function differenceText({ member, recorded, replayed }: AnswerDifference): string {
  return `${member}: recorded ${valueText(recorded)}, now ${valueText(replayed)}`;
}

function countLine(summary: ReplaySummary): string {
  const outside = summary.notInterface > 0 ? `; ${summary.notInterface} not the interface, not sent again` : '';
  return `Replay: ${summary.replayed} of ${summary.recorded} recorded exchanges sent again, ${summary.differing} answered otherwise, ${summary.notReplayed} not sent again${outside}`;
}

function entryLine(entry: ReplayedExchange): string {
  const where = `line ${entry.at.line}${entry.at.file > 0 ? ` of file ${entry.at.file + 1}` : ''}`;
  if (entry.notReplayed !== undefined)
    return `not sent: ${entry.method} ${entry.recordedUrl} (${where}): ${entry.notReplayed}`;
  return `differs: ${entry.method} ${entry.url ?? entry.recordedUrl} (${where}): ${entry.differences.map(differenceText).join('; ')}`;
}

/** Entries a Markdown summary lists; a pull-request comment stays readable. */
const MARKDOWN_ENTRIES = 10;

/** The replay in a few lines for the Markdown summary; none for a run that was no replay. */
export function replayNotes(result: RunResult): string[] {
  const summary = result.replay;
  if (!summary) return [];
  const listed = summary.exchanges.slice(0, MARKDOWN_ENTRIES);
  const more = summary.exchanges.length - listed.length + summary.moreExchanges;
  return [
    countLine(summary),
    ...listed.map((entry) => `- ${entryLine(entry)}`),
    ...(more > 0 ? [`- … and ${more} more (results.json lists them under replay)`] : []),
  ];
}

/** `files`: the recordings, to name where each exchange was recorded. */
export function replayLines(summary: ReplaySummary, files: string[], options: { colour: boolean }): string {
  const paint = painter(options.colour);
  const lines: string[] = [];
  lines.push(paint('bold', countLine(summary)));
  // Methods, URLs and reasons come from the recording and the new answers: each stays on its line,
  // and nothing in it acts on the terminal or a CI runner.
  for (const entry of summary.exchanges) {
    const where = terminalLine(`${files[entry.at.file] ?? '?'}:${entry.at.line}`);
    if (entry.notReplayed !== undefined) {
      lines.push(`  ${paint('yellow', 'not sent')} ${where} ${terminalLine(`${entry.method} ${entry.recordedUrl}`)}`);
      lines.push(`    ${terminalLine(entry.notReplayed)}`);
      continue;
    }
    const statuses = `${entry.recordedStatus ?? 'no answer'} → ${entry.status ?? 'no answer'}`;
    const request = terminalLine(`${entry.method} ${entry.url ?? entry.recordedUrl} (${statuses})`);
    lines.push(`  ${paint('red', 'differs')} ${where} ${request}`);
    for (const difference of entry.differences) lines.push(`    ${terminalLine(differenceText(difference))}`);
  }
  if (summary.moreExchanges > 0)
    lines.push(`  … and ${summary.moreExchanges} more (results.json lists the first ones)`);
  return `${lines.join('\n')}\n\n`;
}
