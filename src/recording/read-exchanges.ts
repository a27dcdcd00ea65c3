import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import type { Exchange } from '../validate/exchange.js';
import { exchangeOfHarEntry, type HarEntry } from './har.js';

// Reads recorded traffic: NDJSON recordings (one exchange per line, as the proxy writes them) and
// HAR 1.2 files. NDJSON comes as batches of raw lines, parsed by whoever judges them; a file that
// cannot be read at all is a usage error.

/** HAR is one JSON object with a "log" member; its first bytes tell it from NDJSON. */
function looksLikeHar(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const start = Buffer.alloc(4096);
    const read = readSync(fd, start, 0, start.length, 0);
    return /^\s*\{\s*"log"\s*:/.test(start.subarray(0, read).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** What a recording file is, or a usage error saying why it cannot be read. */
export function recordingKind(file: string): { kind: 'har' | 'ndjson'; size: number } {
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error('not a file');
    return { kind: looksLikeHar(file) ? 'har' : 'ndjson', size: stat.size };
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileProblem(error)}`);
  }
}

export interface LineBatch {
  lines: string[];
  /** Each line's number in the file, counting from 1. */
  numbers: number[];
}

/** The non-empty lines of an NDJSON file, a read buffer at a time (a final partial line included). */
export async function* ndjsonLines(file: string): AsyncGenerator<LineBatch> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
  let rest = '';
  let number = 0;
  const batchOf = (text: string, last: boolean): LineBatch => {
    const batch: LineBatch = { lines: [], numbers: [] };
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end < 0 && !last) break;
      const stop = end < 0 ? text.length : end;
      number += 1;
      let line = text.slice(start, stop);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim() !== '') {
        batch.lines.push(line);
        batch.numbers.push(number);
      }
      if (end < 0) break;
      start = end + 1;
    }
    rest = last ? '' : text.slice(start);
    return batch;
  };
  for await (const chunk of stream) {
    const batch = batchOf(rest + (chunk as string), false);
    if (batch.lines.length > 0) yield batch;
  }
  if (rest !== '') yield batchOf(rest, true);
}

/** The head of a HAR document up to its entries array, as the proxy writes it (one entry per line). */
const HAR_ENTRIES_START = /^\s*\{\s*"log"\s*:[\s\S]*?"entries"\s*:\s*\[[ \t]*\r?\n/;

/**
 * The entries of a HAR document cut off while it was written (a proxy killed before it could
 * close it): the proxy writes one entry per line, so whole lines are read until one does not
 * parse. Undefined when the text is not laid out so, or holds no whole entry.
 */
function entriesOfCutHar(text: string): HarEntry[] | undefined {
  const start = HAR_ENTRIES_START.exec(text);
  if (!start) return undefined;
  const entries: HarEntry[] = [];
  for (const line of text.slice(start[0].length).split('\n')) {
    const entry = line.trim().replace(/,$/, '');
    if (!entry.startsWith('{')) break;
    try {
      entries.push(JSON.parse(entry));
    } catch {
      break;
    }
  }
  return entries.length > 0 ? entries : undefined;
}

/** The entries of a HAR file as exchanges; an entry that cannot be read is a warning. */
export function harExchanges(file: string): ({ exchange: Exchange } | { warning: string })[] {
  const text = readFileSync(file, 'utf8');
  let har: { log?: { entries?: HarEntry[] } };
  let cut = false;
  try {
    har = JSON.parse(text);
  } catch (error) {
    // A recording cut off by a crash keeps what it holds, as an NDJSON recording does.
    const entries = entriesOfCutHar(text);
    if (!entries) throw new UsageError(`${file} is not valid HAR: ${(error as Error).message}`);
    har = { log: { entries } };
    cut = true;
  }
  if (!Array.isArray(har.log?.entries)) throw new UsageError(`${file} is not valid HAR: log.entries is missing`);
  const read: ({ exchange: Exchange } | { warning: string })[] = har.log.entries.map((entry, index) => {
    try {
      return { exchange: exchangeOfHarEntry(entry) };
    } catch (error) {
      return { warning: `HAR entry ${index + 1} skipped: ${(error as Error).message}` };
    }
  });
  if (cut)
    read.push({
      warning: `the HAR document ends early (cut off before it was closed?): its first ${read.length} entries were read`,
    });
  return read;
}
