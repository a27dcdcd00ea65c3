import { endMatched, headEnd } from './head-ows.js';

// Where a chunked body ends in the bytes read, found chunk by chunk (a size line, then so many
// bytes skipped unread), so that llhttp can be given a body up to its end and the head after it
// apart (see head-ows.ts). llhttp alone frames the body: this only says where to pause it. Should
// the two ever read the framing otherwise (bytes llhttp refuses), the pause falls elsewhere and
// llhttp reads on as it would have: no body byte is ever changed either way.

const LF = 0x0a;
/** Hex digits of a size that can be counted exactly; a longer size never ends in practice. */
const MOST_DIGITS = 12;
const HEX = /^0*([0-9a-fA-F]*)/;

export class ChunkedEnd {
  private state: 'size' | 'data' | 'trailers' = 'size';
  /** The start of a size line that goes on in the next read. */
  private line = '';
  /** Data bytes, and the CRLF after them, still to come. */
  private left = 0;
  /** In the trailer section: how much of "\r\n\r\n" the bytes so far end with. */
  private matched = 0;

  /** A new chunked body begins. */
  reset(): void {
    this.state = 'size';
    this.line = '';
    this.left = 0;
    this.matched = 0;
  }

  /** Where the body ends in bytes[from…] (the index after its last byte), or -1: not in these bytes. */
  end(bytes: Buffer, from: number): number {
    let at = from;
    while (at < bytes.length) {
      if (this.state === 'data') {
        const step = Math.min(this.left, bytes.length - at);
        this.left -= step;
        at += step;
        if (this.left === 0) this.state = 'size';
      } else if (this.state === 'size') {
        const lf = bytes.indexOf(LF, at);
        const stop = lf === -1 ? bytes.length : lf;
        if (this.line.length <= MOST_DIGITS + 2)
          this.line += bytes.toString('latin1', at, Math.min(stop, at + MOST_DIGITS + 2));
        if (lf === -1) return -1;
        at = lf + 1;
        const digits = (HEX.exec(this.line) as RegExpExecArray)[1] as string;
        const zeros = this.line.length > 0 && digits.length === 0 && this.line[0] === '0';
        this.line = '';
        if (zeros) {
          // The last chunk: the trailer section ends at the first empty line (its CRLF seen already).
          this.state = 'trailers';
          this.matched = 2;
        } else {
          this.state = 'data';
          // No digits (refused by llhttp) or too many: a size never reached, llhttp reads on.
          this.left = digits.length === 0 || digits.length > MOST_DIGITS ? Infinity : Number.parseInt(digits, 16) + 2;
        }
      } else {
        const end = headEnd(bytes, at, this.matched);
        if (end !== -1) {
          this.reset();
          return end;
        }
        this.matched = endMatched(bytes, at, bytes.length, this.matched);
        return -1;
      }
    }
    return -1;
  }
}
