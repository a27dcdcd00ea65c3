import type { LineRef } from '../findings/types.js';
import { harItems } from '../recording/har-reader.js';
import { ndjsonLines, openRecording, recordingName, recordingSize } from '../recording/read-exchanges.js';
import type { Exchange } from '../validate/exchange.js';

// The exchanges of recordings in the order they were recorded, file after file, as one session:
// a replay sends them again one at a time, so they are read as a stream, never held whole.

export type RecordedItem = { at: LineRef; exchange: Exchange } | { at: LineRef; warning: string };

function isExchange(value: unknown): value is Exchange {
  const request = (value as { request?: { method?: unknown; url?: unknown; headers?: unknown } } | null)?.request;
  return typeof request?.method === 'string' && typeof request.url === 'string';
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a recorded request cannot be sent as it stands (headers or body of another shape), if it cannot. */
function flawOf(exchange: Exchange): string | undefined {
  const { headers, body } = exchange.request as { headers?: unknown; body?: unknown };
  if (headers !== undefined && !isObject(headers)) return 'request.headers is not an object';
  if (isObject(headers) && Object.values(headers).some((value) => typeof value !== 'string'))
    return 'a request header is not a string';
  if (body === undefined) return undefined;
  if (!isObject(body) || typeof body.size !== 'number') return 'request.body is not a recorded body';
  if (body.text !== undefined && typeof body.text !== 'string') return 'request.body.text is not a string';
  if (body.base64 !== undefined && typeof body.base64 !== 'string') return 'request.body.base64 is not a string';
  return undefined;
}

function itemOfLine(text: string, at: LineRef): RecordedItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { at, warning: `line ${at.line} is not JSON (cut off?); skipped` };
  }
  if (!isExchange(value)) return { at, warning: `line ${at.line} has no request method and URL; skipped` };
  const flaw = flawOf(value);
  if (flaw) return { at, warning: `line ${at.line} cannot be sent again: ${flaw}; skipped` };
  value.request.headers ??= {};
  return { at, exchange: value };
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
