import { constants } from 'node:buffer';

// Splits a stream of bytes into the lines of an NDJSON recording, as bytes: whoever takes a line
// decides whether and where to decode it (worker threads take the bytes, so the reading thread
// makes a string only of the lines it judges itself). Each byte is searched once: a line that spans many read
// buffers is kept as its pieces and joined once, when its newline comes, so a line of hundreds of
// megabytes costs time in proportion to its length. Splitting bytes is safe: a newline byte never
// occurs inside a UTF-8 sequence, nor does a carriage return, a space or a tab.

/** Where the lines go. A line is `bytes[start, end)`, valid only during the call. */
export interface RawLineSink {
  /** A non-blank line, without its line end; `number` counts lines of the input from 1. */
  line(bytes: Buffer, start: number, end: number, number: number): void;
  /** A line that could not be kept (longer than any string can be). */
  warning(number: number, message: string): void;
}

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

/** Spaces and tabs only; looks no further than the first other byte. */
function isBlank(bytes: Buffer, start: number, end: number): boolean {
  for (let index = start; index < end; index += 1) {
    const byte = bytes[index];
    if (byte !== SPACE && byte !== TAB) return false;
  }
  return true;
}

export class RawLineSplitter {
  /** The pieces of the line being read, from earlier read buffers; `held` counts their bytes. */
  private pieces: Buffer[] = [];
  private held = 0;
  /** The line being read grew past the limit: its bytes are dropped until its newline. */
  private overlong = false;
  private number = 0;

  /** @param maxLineBytes longest line kept; the default is the longest string the runtime can make. */
  constructor(private readonly maxLineBytes = constants.MAX_STRING_LENGTH) {}

  /** Gives `sink` the lines that this chunk completes; its unfinished last line is held for the next. */
  push(chunk: Buffer, sink: RawLineSink): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      this.complete(chunk, start, end, sink);
      start = end + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
  }

  /** The last line, when the input did not end with a newline. */
  end(sink: RawLineSink): void {
    if (this.held > 0 || this.overlong) this.complete(Buffer.alloc(0), 0, 0, sink);
  }

  private hold(piece: Buffer): void {
    if (this.overlong) return;
    if (this.held + piece.length > this.maxLineBytes) {
      this.drop();
      this.overlong = true;
      return;
    }
    this.pieces.push(piece);
    this.held += piece.length;
  }

  private complete(chunk: Buffer, start: number, end: number, sink: RawLineSink): void {
    this.number += 1;
    if (this.overlong || this.held + end - start > this.maxLineBytes) {
      this.drop();
      sink.warning(
        this.number,
        `line ${this.number} is longer than ${this.maxLineBytes} bytes, more than can be read as text; skipped`,
      );
      return;
    }
    let bytes = chunk;
    if (this.pieces.length > 0) {
      this.pieces.push(chunk.subarray(start, end));
      bytes = Buffer.concat(this.pieces, this.held + end - start);
      start = 0;
      end = bytes.length;
      this.drop();
    }
    if (end > start && bytes[end - 1] === RETURN) end -= 1;
    if (isBlank(bytes, start, end)) return;
    sink.line(bytes, start, end, this.number);
  }

  private drop(): void {
    this.pieces = [];
    this.held = 0;
    this.overlong = false;
  }
}
