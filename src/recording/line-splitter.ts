import { constants } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';

// Splits a stream of bytes into the lines of an NDJSON recording. Each byte is looked at once: a
// line that spans many read buffers is kept as the text of its pieces and joined once, when its
// newline comes, so a line of hundreds of megabytes costs time in proportion to its length, and
// memory about twice its length until it is parsed. Splitting bytes, not text, is safe: a newline
// byte never occurs inside a UTF-8 sequence; a character cut between two buffers is held by the
// decoder until its last bytes come.

export interface LineBatch {
  /** The non-blank lines, without their line ends. */
  lines: string[];
  /** Each line's number in the file, counting from 1. */
  numbers: number[];
  /** Lines that could not be kept (longer than any string can be). */
  warnings: { line: number; message: string }[];
}

const NEWLINE = 0x0a;

const emptyBatch = (): LineBatch => ({ lines: [], numbers: [], warnings: [] });

/** Spaces and tabs only; looks no further than the first other character. */
function isBlank(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09) return false;
  }
  return true;
}

export class LineSplitter {
  /** The text of the line being read, piece by piece; `held` counts its bytes. */
  private pieces: string[] = [];
  private held = 0;
  private readonly decoder = new StringDecoder('utf8');
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
      this.drop();
      this.overlong = true;
      return;
    }
    this.pieces.push(this.decoder.write(piece));
    this.held += piece.length;
  }

  private complete(tail: Buffer, batch: LineBatch): void {
    this.number += 1;
    if (this.overlong || this.held + tail.length > this.maxLineBytes) {
      this.drop();
      batch.warnings.push({
        line: this.number,
        message: `line ${this.number} is longer than ${this.maxLineBytes} bytes, more than can be read as text; skipped`,
      });
      return;
    }
    let text: string;
    if (this.pieces.length > 0) {
      this.pieces.push(this.decoder.write(tail), this.decoder.end());
      // One join makes one flat string; adding to a string would make a chain to copy again.
      text = this.pieces.join('');
      this.pieces = [];
      this.held = 0;
    } else text = tail.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (isBlank(text)) return;
    batch.lines.push(text);
    batch.numbers.push(this.number);
  }

  private drop(): void {
    this.pieces = [];
    this.held = 0;
    this.decoder.end();
    this.overlong = false;
  }
}
