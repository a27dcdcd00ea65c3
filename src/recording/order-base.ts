import type { Exchange } from '../validate/exchange.js';
import { baseNamedByOrder } from '../validate/traffic.js';
import { flawOfRecordedExchange } from './exchange-shape.js';
import { harItems } from './har-reader.js';
import { isPipe, ndjsonLines, openRecording, recordingName } from './read-exchanges.js';

// Before judging, the service's base is read from the first order answer of the recordings: the
// URLs it gives name the service, where the first API-looking call may be the shop's own. A
// recording without one (or standard input or a pipe, which cannot be read twice) is left to learn the base
// from its calls as they come.

/** Exchanges looked through for an order answer before giving up: the order comes early. */
const SCAN_EXCHANGES = 20_000;
/** A line that may be an order answer giving URLs, told without parsing every line. */
const MAYBE_ORDER = /\/orders\b[^"]*"[\s\S]*(?:setupurl|uploadurl)/i;

function parsed(line: string): Exchange | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return flawOfRecordedExchange(value) === undefined ? (value as Exchange) : undefined;
  } catch {
    return undefined;
  }
}

async function baseInFile(file: string): Promise<string | undefined> {
  const recording = await openRecording(file);
  let seen = 0;
  if (recording.kind === 'har') {
    for await (const batch of harItems(recording.chunks, recordingName(file))) {
      for (const item of batch) {
        if ('exchange' in item) {
          const base = baseNamedByOrder(item.exchange);
          if (base) return base;
        }
        if (++seen >= SCAN_EXCHANGES) return undefined;
      }
    }
    return undefined;
  }
  for await (const batch of ndjsonLines(recording.chunks)) {
    for (const line of batch.lines) {
      const exchange = MAYBE_ORDER.test(line) ? parsed(line) : undefined;
      const base = exchange && baseNamedByOrder(exchange);
      if (base) return base;
      if (++seen >= SCAN_EXCHANGES) return undefined;
    }
  }
  return undefined;
}

/** The base the recordings' first order answer names, if one is found early in a file. */
export async function baseFromOrderAnswers(files: readonly string[]): Promise<string | undefined> {
  for (const file of files) {
    if (isPipe(file)) return undefined;
    const base = await baseInFile(file);
    if (base) return base;
  }
  return undefined;
}
