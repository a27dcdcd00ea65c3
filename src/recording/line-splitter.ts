import { constants } from 'node:buffer';

// Splits a stream of bytes into the lines of an NDJSON recording. Each byte is looked at once: a
// line that spans many read buffers is kept as the list of its pieces and joined once, when its
// newline comes, so a line of hundreds of megabytes costs time in proportion to its length.
// Splitting bytes, not text, is safe: a newline byte never occurs inside a UTF-8 sequence, and a
// character cut between two buffers is whole again once the pieces are joined.

export interface LineBatch {
  /** The non-blank lines, without their line ends. */
  lines: string[];
  /** Each line's number in the file, counting from 1. */
  numbers: number[];
  /** Lines that could not be kept (longer than any string can be). */
  warnings: { line: number; message: string }[];
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

const emptyBatch = (): LineBatch => ({ lines: [], numbers: [], warnings: [] });

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return false;
  return true;
}

export class LineSplitter {
  private pieces: Buffer[] = [];
  private held = 0;
  /** The line being read grew past the limit: its bytes are dropped until its newline. */
  private overlong = false;
  private number = 0;

  /** @param maxLineBytes longest line kept; the default is the longest string the runtime can make. */
  constructor(private readonly maxLineBytes = constants.MAX_STRING_LENGTH) {}

  /** The lines that this chunk completes; its unfinished last line is held for the next. */
  push(chunk: Buffer): LineBatch {
    const batch = emptyBatch();
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      this.complete(chunk.subarray(start, end), batch);
      start = end + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
    return batch;
  }

  /** The last line, when the input did not end with a newline. */
  end(): LineBatch {
    const batch = emptyBatch();
    if (this.held > 0 || this.overlong) this.complete(Buffer.alloc(0), batch);
    return batch;
  }

  private hold(piece: Buffer): void {
    if (this.overlong) return;
    if (this.held + piece.length > this.maxLineBytes) {
      this.overlong = true;
      this.pieces = [];
      this.held = 0;
      return;
    }
    this.pieces.push(piece);
    this.held += piece.length;
  }

  private complete(tail: Buffer, batch: LineBatch): void {
    this.number += 1;
    let bytes = tail;
    if (this.pieces.length > 0) {
      this.pieces.push(tail);
      bytes = Buffer.concat(this.pieces, this.held + tail.length);
      this.pieces = [];
    }
    this.held = 0;
    if (this.overlong || bytes.length > this.maxLineBytes) {
      this.overlong = false;
      batch.warnings.push({
        line: this.number,
        message: `line ${this.number} is longer than ${this.maxLineBytes} bytes, more than can be read as text; skipped`,
      });
      return;
    }
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1);
    if (isBlank(bytes)) return;
    batch.lines.push(bytes.toString('utf8'));
    batch.numbers.push(this.number);
  }
}
