import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { fileProblem } from '../findings/file-problem.js';
import { UsageError } from '../findings/usage-error.js';
import { type LineBatch, LineSplitter } from './line-splitter.js';

// Reads recorded traffic: NDJSON recordings (one exchange per line, as the proxy writes them) and
// HAR 1.2 files, from files or from standard input. Both are read as streams, so memory does not
// grow with the recording. NDJSON comes as batches of raw lines, parsed by whoever judges them; a
// file that cannot be read at all is a usage error.

/**
 * The name that stands for standard input. The command line's "-" becomes it before parsing (the
 * argument parser drops a lone "-"), and it reads standard input whatever that is: a pipe, a file.
 */
export const STDIN = '/dev/stdin';
export const isStdin = (file: string) => file === STDIN || file === '-';

/** Read buffers of files: large enough that a gigabyte is few reads, small beside memory. */
const READ_BYTES = 1024 * 1024;
/** How much of the start of a recording tells HAR from NDJSON. */
const HEAD_BYTES = 4096;

const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

/** HAR is one JSON object with a "log" member; NDJSON lines are exchanges. */
const HAR_START = /^\s*\{\s*"log"\s*:/;
/** Members of a recorded exchange (an NDJSON line), any of which tells NDJSON. */
const EXCHANGE_MEMBERS = new Set(['request', 'response', 'id', 'startedAt', 'violations', 'observations', 'error']);

/**
 * Whether a recording is HAR or NDJSON, from its first bytes: the members of the first object,
 * read at its top level (nested values skipped). A "log" member tells HAR wherever it stands
 * among them ({"comment":…,"log":…} is HAR too); a member of an exchange tells NDJSON. One
 * document over several lines that is not HAR is no recording at all ('document').
 */
export function recordingKind(start: string): 'har' | 'ndjson' | 'document' {
  if (HAR_START.test(start)) return 'har';
  let depth = 0;
  // A line break inside the first value: one JSON document written over lines, which no NDJSON
  // line can be (a results.json, a SARIF file, an exchange pretty-printed), unless it is HAR.
  let overLines = false;
  for (let at = 0; at < start.length; at += 1) {
    const char = start[at];
    if (char === '\n' && depth > 0) overLines = true;
    if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      depth -= 1;
      // The first object ended and told nothing: one line of NDJSON.
      if (depth === 0) return overLines ? 'document' : 'ndjson';
    } else if (char === '"') {
      let end = at + 1;
      while (end < start.length && start[end] !== '"') end += start[end] === '\\' ? 2 : 1;
      if (depth === 1) {
        let after = end + 1;
        while (after < start.length && /\s/.test(start[after] as string)) after += 1;
        if (start[after] === ':') {
          const name = start.slice(at + 1, end);
          if (name === 'log') return 'har';
          if (EXCHANGE_MEMBERS.has(name) && !overLines) return 'ndjson';
        }
      }
      at = end;
    }
  }
  return overLines ? 'document' : 'ndjson';
}

/** Recordings given more than once (the same file by two names included): their exchanges would count twice. */
export function givenTwice(files: readonly string[]): [string, string] | undefined {
  const seen = new Map<string, string>();
  for (const file of files) {
    let key: string;
    try {
      const stat = statSync(isStdin(file) ? STDIN : file);
      key = `${stat.dev}:${stat.ino}`;
    } catch {
      continue;
    }
    const before = seen.get(key);
    if (before !== undefined) return [before, file];
    seen.set(key, file);
  }
  return undefined;
}

/** Standard input, a named pipe or a process substitution: a recording that can be read only once. */
export function isPipe(file: string): boolean {
  if (isStdin(file)) return true;
  try {
    const stat = statSync(file);
    return stat.isFIFO() || stat.isCharacterDevice();
  } catch {
    return false;
  }
}

/** How messages name a recording. */
export const recordingName = (file: string) => (isStdin(file) ? 'standard input' : file);

function unreadable(file: string, error: unknown): UsageError {
  if (error instanceof UsageError) return error;
  return new UsageError(`cannot read ${recordingName(file)}: ${fileProblem(error)}`);
}

/**
 * The size of a recording in bytes (undefined for standard input, which cannot be measured before
 * it is read), or a usage error saying why it cannot be read.
 */
export function recordingSize(file: string): number | undefined {
  if (isStdin(file)) {
    if (process.stdin.isTTY)
      throw new UsageError('validate - reads a recording from standard input: pipe or redirect one into it');
    return undefined;
  }
  try {
    const stat = statSync(file);
    // A named pipe or a process substitution (validate <(zcat traffic.ndjson.gz)): read as it comes.
    if (stat.isFIFO() || stat.isCharacterDevice()) return undefined;
    if (!stat.isFile()) throw new Error('not a file');
    return stat.size;
  } catch (error) {
    throw unreadable(file, error);
  }
}

export interface OpenRecording {
  kind: 'har' | 'ndjson';
  /** Its bytes from the start; a read error is a usage error. */
  chunks: AsyncIterable<Buffer>;
  /** The bytes read of it so far, as stored (compressed when it is): standard input's size once read. */
  bytesRead(): number;
}

/** Whether bytes start as gzip does. */
export const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * Opens a recording and tells what it is from its first bytes, which are given back first. A
 * gzip-compressed one (a rotated recording, traffic.ndjson.gz) is decompressed as it is read.
 */
export async function openRecording(file: string): Promise<OpenRecording> {
  const stream: Readable = isStdin(file) ? process.stdin : createReadStream(file, { highWaterMark: READ_BYTES });
  return sniffRecording(file, stream, false, { bytes: 0 });
}

async function sniffRecording(
  file: string,
  stream: Readable,
  inflated: boolean,
  stored: { bytes: number },
): Promise<OpenRecording> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const next = async () => {
    try {
      const read = await iterator.next();
      if (!inflated && !read.done) stored.bytes += read.value.length;
      return read;
    } catch (error) {
      throw unreadable(file, error);
    }
  };
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < HEAD_BYTES) {
    const read = await next();
    if (read.done) {
      ended = true;
      break;
    }
    head.push(read.value);
    headBytes += read.value.length;
  }
  // Tools on Windows may start their files with a byte order mark, which JSON does not allow.
  let first = Buffer.concat(head);
  // Compressed: decompressed as a stream, a read buffer at a time (memory stays flat).
  if (!inflated && isGzip(first)) {
    const compressed = first;
    const rest = ended;
    async function* raw(): AsyncGenerator<Buffer> {
      yield compressed;
      if (rest) return;
      for (let read = await next(); !read.done; read = await next()) yield read.value;
    }
    const gunzip = createGunzip({ chunkSize: READ_BYTES });
    return sniffRecording(file, Readable.from(raw()).pipe(gunzip), true, stored);
  }
  if (first.subarray(0, 3).equals(BYTE_ORDER_MARK)) first = first.subarray(3);
  const start = first.subarray(0, HEAD_BYTES).toString('utf8');
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      if (first.length > 0) yield first;
      if (ended) return;
      for (let read = await next(); !read.done; read = await next()) yield read.value;
    } finally {
      // A reader that stops early (a HAR that broke off) lets go of the file.
      await iterator.return?.();
    }
  }
  const kind = recordingKind(start);
  if (kind === 'document') {
    await iterator.return?.();
    throw new UsageError(
      `${recordingName(file)} is not a recording: it is one JSON document over several lines, where a recording is a HAR 1.2 file or NDJSON (one exchange per line, as proxy --record writes)${/"tool"\s*:\s*"print-conformance"/.test(start) ? '; results.json files are combined with merge' : ''}`,
    );
  }
  return { kind, chunks: chunks(), bytesRead: () => stored.bytes };
}

/** The non-blank lines of an NDJSON recording, a read buffer at a time (a final partial line included). */
export async function* ndjsonLines(chunks: AsyncIterable<Buffer>): AsyncGenerator<LineBatch> {
  const splitter = new LineSplitter();
  const worth = (batch: LineBatch) => batch.lines.length > 0 || batch.warnings.length > 0;
  for await (const chunk of chunks) {
    const batch = splitter.push(chunk);
    if (worth(batch)) yield batch;
  }
  const last = splitter.end();
  if (worth(last)) yield last;
}
