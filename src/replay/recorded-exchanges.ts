import type { LineRef } from '../findings/types.js';
import { flawOfRecordedExchange } from '../recording/exchange-shape.js';
import { harItems } from '../recording/har-reader.js';
import { ndjsonLines, openRecording, recordingName, recordingSize } from '../recording/read-exchanges.js';
import type { Exchange } from '../validate/exchange.js';

// The exchanges of recordings in the order they were recorded, file after file, as one session:
// a replay sends them again one at a time, so they are read as a stream, never held whole.

export type RecordedItem = { at: LineRef; exchange: Exchange } | { at: LineRef; warning: string };

function itemOfLine(text: string, at: LineRef): RecordedItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { at, warning: `line ${at.line} is not JSON (cut off?); skipped` };
  }
  const flaw = flawOfRecordedExchange(value);
  if (flaw) return { at, warning: `line ${at.line} is not a recorded exchange: ${flaw}; skipped` };
  return { at, exchange: value as Exchange };
}

/** Every exchange of the files in order; a file that cannot be read is a usage error before any is sent. */
export async function* recordedExchanges(files: string[]): AsyncGenerator<RecordedItem> {
  for (const path of files) recordingSize(path);
  for (const [file, path] of files.entries()) {
    const recording = await openRecording(path);
    if (recording.kind === 'har') {
      for await (const batch of harItems(recording.chunks, recordingName(path)))
        for (const item of batch) {
          const at = { file, line: item.entry };
          yield 'warning' in item ? { at, warning: item.warning } : { at, exchange: item.exchange };
        }
      continue;
    }
    for await (const batch of ndjsonLines(recording.chunks)) {
      for (const warning of batch.warnings) yield { at: { file, line: warning.line }, warning: warning.message };
      for (const [index, text] of batch.lines.entries())
        yield itemOfLine(text, { file, line: batch.numbers[index] as number });
    }
  }
}
