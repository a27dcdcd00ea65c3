import type { WriteStream } from 'node:fs';

// Texts bound for one file, encoded as they come into a buffer that goes to the file whole when it
// is full or when asked. Under load a string per batch (joined, then encoded when written) cost the
// proxy more than the encoding itself: the joined string is copied flat, and each batch's fresh
// buffer is memory the system has to map and zero again (page faults on the forwarding thread).
// Buffers the file has taken come back to be filled again.

/** Size of one batch: a quarter of a megabyte of lines per write. */
export const BATCH_BYTES = 256 * 1024;
/** Buffers kept for reuse once written: enough for the batches a slow disk has in hand. */
const MAX_SPARE = 4;
/** Most bytes one UTF-16 code unit takes in UTF-8. */
const MAX_BYTES_PER_UNIT = 3;
const LINE_FEED = 0x0a;

export class BatchedWrites {
  private batch: Buffer | undefined;
  private used = 0;
  private readonly spare: Buffer[] = [];

  /** @param wrote told of the bytes of each write handed to the stream (the recording's byte count). */
  constructor(
    private readonly stream: WriteStream,
    private readonly wrote: (bytes: number) => void = () => {},
  ) {}

  /** Bytes waiting to be written. */
  get waiting(): number {
    return this.used;
  }

  /** `text`, then a line feed when `line`: the two are never split between writes. */
  append(text: string, line = false): void {
    if (this.stream.errored) return;
    // Room is judged by the most the text can take, so a text is never cut between batches.
    const most = text.length * MAX_BYTES_PER_UNIT + 1;
    if (this.batch && this.used + most > this.batch.length) this.flush();
    if (most > BATCH_BYTES) {
      // Larger than any batch: written on its own, and its line feed after it, not joined to it
      // (a joined copy of a large recorded body would be made only to be encoded and dropped).
      this.stream.write(text);
      if (line) this.stream.write('\n');
      this.wrote(Buffer.byteLength(text) + (line ? 1 : 0));
      return;
    }
    this.batch ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES);
    this.used += this.batch.write(text, this.used);
    if (line) {
      this.batch[this.used] = LINE_FEED;
      this.used += 1;
    }
  }

  /** What waits goes to the file now; `written` is told once the file has taken it. */
  flush(written?: () => void): void {
    const batch = this.batch;
    if (!batch || this.used === 0) return;
    const used = this.used;
    this.batch = undefined;
    this.used = 0;
    if (this.stream.errored) return;
    this.wrote(used);
    this.stream.write(batch.subarray(0, used), (error) => {
      if (this.spare.length < MAX_SPARE) this.spare.push(batch);
      if (!error) written?.();
    });
  }
}
