// Lines of text kept outside V8's heap, in chunks of bytes. The live window keeps a thousand
// exchanges that live a third of a second each at a few thousand exchanges a second: as strings
// they are young objects that every collection of the young generation copies, then promotes, and
// that cost the proxy more CPU than judging them. Bytes in a Buffer are never copied by the
// collector; a line is decoded again only when someone reads it.

/** A chunk's bytes, how many are written, and how many lines in it are still kept. */
interface Chunk {
  bytes: Buffer;
  used: number;
  kept: number;
}

/** Where a kept line is: its chunk, and its place and length in bytes there. */
export interface StoredLine {
  chunk: Chunk;
  offset: number;
  length: number;
}

const CHUNK_BYTES = 256 * 1024;
/** Chunks emptied and kept for reuse, rather than given back and asked for again. */
const SPARE_CHUNKS = 2;

export class LineStore {
  private current: Chunk | undefined;
  private readonly spare: Chunk[] = [];

  /** Keeps a line of `length` bytes in UTF-8 (as Buffer.byteLength counts them). */
  put(line: string, length = Buffer.byteLength(line, 'utf8')): StoredLine {
    // A long line has a chunk of its own: it goes with the line.
    if (length > CHUNK_BYTES / 4) {
      const chunk: Chunk = { bytes: Buffer.from(line, 'utf8'), used: length, kept: 1 };
      return { chunk, offset: 0, length };
    }
    let chunk = this.current;
    if (!chunk || chunk.used + length > chunk.bytes.length) {
      if (chunk && chunk.kept === 0) this.retire(chunk);
      chunk = this.spare.pop() ?? { bytes: Buffer.allocUnsafeSlow(CHUNK_BYTES), used: 0, kept: 0 };
      this.current = chunk;
    }
    const offset = chunk.used;
    chunk.bytes.write(line, offset, length, 'utf8');
    chunk.used += length;
    chunk.kept += 1;
    return { chunk, offset, length };
  }

  /** The line as it was put. */
  get(stored: StoredLine): string {
    return stored.chunk.bytes.toString('utf8', stored.offset, stored.offset + stored.length);
  }

  /** The line is no longer kept: its chunk goes once no kept line is in it. */
  release(stored: StoredLine): void {
    const { chunk } = stored;
    chunk.kept -= 1;
    if (chunk.kept === 0 && chunk !== this.current) this.retire(chunk);
  }

  private retire(chunk: Chunk): void {
    if (chunk.bytes.length !== CHUNK_BYTES || this.spare.length >= SPARE_CHUNKS) return;
    chunk.used = 0;
    this.spare.push(chunk);
  }
}
