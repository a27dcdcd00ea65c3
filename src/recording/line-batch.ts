import type { LineRef } from '../findings/types.js';

// A batch of recorded lines on their way to a worker thread, kept as bytes: the lines back to back
// in one buffer, with where each ends and where it was read. The buffers are moved to the worker,
// not copied, and the worker makes the only string of each line, the one it parses. Bytes are
// copied once, from the read buffer into the batch of the judge the line goes to.

export interface WireBatch {
  /** The lines' bytes, back to back; its buffer is the batch's own. */
  bytes: Uint8Array;
  /** Where each line ends in `bytes` (each starts where the one before ended). */
  ends: Uint32Array;
  /** Each line's file (an index into the files judged) and line number in it. */
  files: Uint32Array;
  lines: Float64Array;
  /** 1 for an order answer that another judge counts: this one only learns the URLs it gave. */
  learnOnly: Uint8Array;
}

export class LineBatchBuilder {
  private bytes: Buffer;
  private used = 0;
  private ends: number[] = [];
  private files: number[] = [];
  private lines: number[] = [];
  private learnOnly: number[] = [];

  /** @param capacity bytes a batch is given room for; a longer line gets a batch of its own size. */
  constructor(private readonly capacity: number) {
    this.bytes = Buffer.allocUnsafeSlow(capacity);
  }

  get count(): number {
    return this.ends.length;
  }

  /** Whether `length` more bytes fit without a new buffer. */
  fits(length: number): boolean {
    return this.used + length <= this.bytes.length;
  }

  /** Whether the batch is as large as it was meant to be: time to send it. */
  get full(): boolean {
    return this.used >= this.capacity;
  }

  /** Copies `source[start, end)` in as a line; a batch with lines that it does not fit should be sent first. */
  add(source: Uint8Array, start: number, end: number, at: LineRef, learnOnly: boolean): void {
    const length = end - start;
    if (!this.fits(length)) {
      // A line longer than the room left (in practice, in an empty batch): the buffer grows to hold it.
      const larger = Buffer.allocUnsafeSlow(this.used + length);
      this.bytes.copy(larger, 0, 0, this.used);
      this.bytes = larger;
    }
    this.bytes.set(source.subarray(start, end), this.used);
    this.used += length;
    this.ends.push(this.used);
    this.files.push(at.file);
    this.lines.push(at.line);
    this.learnOnly.push(learnOnly ? 1 : 0);
  }

  /** The batch so far, with the buffers to move rather than copy; the builder starts a new one. */
  take(): { batch: WireBatch; transfer: ArrayBuffer[] } {
    const batch: WireBatch = {
      bytes: new Uint8Array(this.bytes.buffer, this.bytes.byteOffset, this.used),
      ends: Uint32Array.from(this.ends),
      files: Uint32Array.from(this.files),
      lines: Float64Array.from(this.lines),
      learnOnly: Uint8Array.from(this.learnOnly),
    };
    this.bytes = Buffer.allocUnsafeSlow(this.capacity);
    this.used = 0;
    this.ends = [];
    this.files = [];
    this.lines = [];
    this.learnOnly = [];
    return {
      batch,
      transfer: [
        batch.bytes.buffer,
        batch.ends.buffer,
        batch.files.buffer,
        batch.lines.buffer,
        batch.learnOnly.buffer,
      ] as ArrayBuffer[],
    };
  }
}

/** Gives `judge` each line of a batch, as the text of its bytes, with where it was read. */
export function eachLine(batch: WireBatch, judge: (text: string, at: LineRef, learnOnly: boolean) => void): void {
  const bytes = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  let start = 0;
  for (let index = 0; index < batch.ends.length; index += 1) {
    const end = batch.ends[index] as number;
    const at = { file: batch.files[index] as number, line: batch.lines[index] as number };
    judge(bytes.toString('utf8', start, end), at, batch.learnOnly[index] === 1);
    start = end;
  }
}
