import type { AnswerDifference, ReplaySummary } from '../findings/replay.js';
import { painter } from './colour.js';

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

/** `files`: the recordings, to name where each exchange was recorded. */
export function replayLines(summary: ReplaySummary, files: string[], options: { colour: boolean }): string {
  const paint = painter(options.colour);
  const lines: string[] = [];
  const outside = summary.notInterface > 0 ? `; ${summary.notInterface} not the interface, not sent again` : '';
  lines.push(
    paint(
      'bold',
      `Replay: ${summary.replayed} of ${summary.recorded} recorded exchanges sent again, ${summary.differing} answered otherwise, ${summary.notReplayed} not sent again${outside}`,
    ),
  );
  for (const entry of summary.exchanges) {
    const where = `${files[entry.at.file] ?? '?'}:${entry.at.line}`;
    if (entry.notReplayed !== undefined) {
      lines.push(`  ${paint('yellow', 'not sent')} ${where} ${entry.method} ${entry.recordedUrl}`);
      lines.push(`    ${entry.notReplayed}`);
      continue;
    }
    const statuses = `${entry.recordedStatus ?? 'no answer'} → ${entry.status ?? 'no answer'}`;
    lines.push(`  ${paint('red', 'differs')} ${where} ${entry.method} ${entry.url ?? entry.recordedUrl} (${statuses})`);
    for (const difference of entry.differences) lines.push(`    ${differenceText(difference)}`);
  }
  if (summary.moreExchanges > 0)
    lines.push(`  … and ${summary.moreExchanges} more (results.json lists the first ones)`);
  return `${lines.join('\n')}\n\n`;
}
