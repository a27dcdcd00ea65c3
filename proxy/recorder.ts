import { createWriteStream, type WriteStream } from 'node:fs';
import { fileProblem } from '../src/findings/file-problem.js';
import { harEntry } from '../src/http/har-entry.js';
import { RecordingWriter, type Rotation } from '../src/operations/recording-writer.js';
import { recordingFailed } from '../src/operations/session-events.js';
import { openOutputFile } from '../src/output/output-file.js';
import type { Exchange, Violation } from '../src/validate/exchange.js';
import { BatchedWrites } from './batched-writes.js';

// Writes each exchange as one NDJSON line as it completes (appending, so a crash loses at most the
// lines of the last FLUSH_MS). The lines of that time go to the file in one write: under load, a
// write per exchange, or per turn of the event loop, costs the proxy more than judging the exchange
// does (and lines are encoded into reused buffers as they come: see batched-writes.ts). HAR 1.2 is streamed too: its entries are written as they come and the document is closed
// when the proxy stops, so a long run holds no entries in memory.

/** Lines wait at most this long before they are written, or until a batch is full. */
const FLUSH_MS = 10;

/** An exchange as recorded: must and should findings in `violations`, observe ones in `observations`. */
export type RecordedExchange = Exchange & {
  violations: Violation[];
  observations?: Violation[];
  blocked?: boolean;
  /** The status the proxy answered with itself, when no answer of the target's could be passed on. */
  proxyStatus?: number;
  /** The client test it belongs to (the print-conformance-test header, or the test named through the control API). */
  test?: string;
  /** The client team it belongs to (--clients-by): an id, never a credential. */
  client?: string;
};

/** The HAR document up to its first entry; `_target` names the proxy's target, so validate needs no --base-url. */
const harHead = (target: string | undefined) =>
  `{\n  "log": {\n    "version": "1.2",\n    "creator": { "name": "print-conformance", "version": "1" },\n${target ? `    "_target": ${JSON.stringify(target)},\n` : ''}    "entries": [\n`;
const HAR_TAIL = '\n    ]\n  }\n}\n';

/**
 * A stream to an output file, opened at once and never through a planted link (see
 * src/output/output-file.ts); throws with the file's name and why it cannot be written.
 */
function outputStream(file: string, mode: 'append' | 'replace'): WriteStream {
  try {
    return createWriteStream(file, { fd: openOutputFile(file, mode) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EUNSAFE') throw error;
    throw Object.assign(new Error(`${file} is ${fileProblem(error)}`), { code });
  }
}

/**
 * Ends a stream and waits for it; a stream that broke is let go at once. A write that fails while
 * ending is told to `broke` before the promise settles: the end callback can come before the
 * stream's 'error' event (Node.js 26 calls it first), and the verdict must know of the failure.
 */
function ended(stream: WriteStream, tail: string | undefined, broke: (error: Error) => void): Promise<void> {
  if (stream.errored || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('error', () => resolve());
    stream.end(tail, (error?: Error | null) => {
      if (error) broke(error);
      resolve();
    });
  });
}

/** Most bytes the HAR file may have waiting; past it (a stalled pipe) it stops being written. */
const MAX_HAR_WAITING = 64 * 1024 * 1024;

export class Recorder {
  private readonly ndjson: RecordingWriter | undefined;
  private readonly har: WriteStream | undefined;
  private readonly harLines: BatchedWrites | undefined;
  private harEntries = 0;
  /** HAR entries known to be written, and whether the HAR file stopped being written. */
  private harWritten = 0;
  private harFailed = false;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Why a file stopped being written (a full disk, say), once one did. */
  failure: string | undefined;

  /** Each NDJSON line starts by naming the target: the recording says which service it is of. */
  private readonly linePrefix: string | undefined;

  /**
   * @param failed told once, when a file can no longer be written: the proxy goes on forwarding.
   * @param target the proxy's target, named in every line and in the HAR log.
   * @param wrote told of the bytes handed to the files, as they are (the recording's metric).
   */
  constructor(
    ndjsonFile: string | undefined,
    private readonly harFile: string | undefined,
    private readonly failed: (message: string) => void = () => {},
    private readonly target?: string,
    wrote?: (bytes: number) => void,
    rotation?: Rotation,
  ) {
    this.linePrefix = target === undefined ? undefined : `{"target":${JSON.stringify(target)},`;
    // Its failures are told by the writer itself (session-events), with the exchange they start at.
    this.ndjson = ndjsonFile
      ? new RecordingWriter(ndjsonFile, {
          ...(rotation ? { rotation } : {}),
          ...(wrote ? { wrote } : {}),
          failed: (problem) => {
            this.failure ??= problem;
          },
        })
      : undefined;
    try {
      this.har = harFile ? outputStream(harFile, 'replace') : undefined;
    } catch (error) {
      void this.ndjson?.close();
      throw error;
    }
    this.harLines = this.har && new BatchedWrites(this.har, wrote);
  }

  /** Sets the files up for writing (they are open already: the constructor throws when one cannot be). */
  async ready(): Promise<void> {
    this.har?.on('error', (error) => this.broke(this.harFile, error));
    this.har?.write(harHead(this.target));
  }

  private broke(file: string | undefined, error: NodeJS.ErrnoException): void {
    if (this.harFailed) return;
    this.harFailed = true;
    const reason = error.code ? `cannot write it: ${fileProblem(error)}` : error.message;
    this.failure ??= `${file}: ${reason}`;
    // Told where every failure of a recording is told (a line, a log event, a metric).
    recordingFailed({ file: file ?? '', fromSeq: this.harWritten + 1, reason });
    this.failed(`${file}: ${reason}`);
  }

  /** Writes an exchange; returns its NDJSON line as JSON.stringify made it (without the target), when there is one. */
  record(exchange: RecordedExchange): string | undefined {
    let line: string | undefined;
    if (this.ndjson) {
      line = JSON.stringify(exchange);
      // Spliced in as text: a copy of the exchange with one more member would cost more per line.
      this.ndjson.append(this.linePrefix && line.length > 2 ? `${this.linePrefix}${line.slice(1)}` : line);
    }
    if (this.harLines) {
      this.harLines.append(`${this.harEntries > 0 ? ',\n' : ''}      ${JSON.stringify(harEntry(exchange))}`);
      this.harEntries += 1;
    }
    if (!this.flushTimer && (this.ndjson?.waiting || this.harLines?.waiting))
      this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
    return line;
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    // A stream that broke takes nothing more (BatchedWrites drops it); the other one goes on.
    this.ndjson?.flush();
    const upTo = this.harEntries;
    this.harLines?.flush(() => {
      if (upTo > this.harWritten) this.harWritten = upTo;
    });
    // A HAR file that does not keep up (a stalled pipe) is let go rather than held in memory.
    if (this.har && !this.har.destroyed && this.har.writableLength > MAX_HAR_WAITING) {
      this.broke(
        this.harFile,
        new Error(`it does not keep up: ${MAX_HAR_WAITING / 1024 / 1024} MiB wait to be written`),
      );
      this.har.destroy();
    }
  }

  async close(): Promise<void> {
    this.flush();
    // A write that failed already is told now: its 'error' event may come after the verdict.
    if (this.har?.errored) this.broke(this.harFile, this.har.errored as NodeJS.ErrnoException);
    await Promise.all([
      this.ndjson?.close(),
      this.har ? ended(this.har, HAR_TAIL, (error) => this.broke(this.harFile, error)) : undefined,
    ]);
  }
}
