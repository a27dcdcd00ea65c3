import { RawLineSplitter } from './raw-lines.js';

// Splits a stream of bytes into the lines of an NDJSON recording, as text: for readers that judge
// or replay lines in this thread. The splitting itself, long lines and blank ones included, is
// RawLineSplitter's; a line is decoded from its bytes whole, so a character cut between two read
// buffers comes out as the character it is.

export interface LineBatch {
  /** The non-blank lines, without their line ends. */
  lines: string[];
  /** Each line's number in the file, counting from 1. */
  numbers: number[];
  /** Lines that could not be kept (longer than any string can be). */
  warnings: { line: number; message: string }[];
}

const emptyBatch = (): LineBatch => ({ lines: [], numbers: [], warnings: [] });

/** A sink that decodes each line into the batch it fills. */
function batchSink(batch: LineBatch) {
  return {
    line(bytes: Buffer, start: number, end: number, number: number) {
      batch.lines.push(bytes.toString('utf8', start, end));
      batch.numbers.push(number);
    },
    warning(line: number, message: string) {
      batch.warnings.push({ line, message });
    },
  };
}

export class LineSplitter {
  private readonly raw: RawLineSplitter;

  /** @param maxLineBytes longest line kept; the default is the longest string the runtime can make. */
  constructor(maxLineBytes?: number) {
    this.raw = new RawLineSplitter(maxLineBytes);
  }

  /** The lines that this chunk completes; its unfinished last line is held for the next. */
  push(chunk: Buffer): LineBatch {
    const batch = emptyBatch();
    this.raw.push(chunk, batchSink(batch));
    return batch;
  }

  /** The last line, when the input did not end with a newline. */
  end(): LineBatch {
    const batch = emptyBatch();
    this.raw.end(batchSink(batch));
    return batch;
  }
}
