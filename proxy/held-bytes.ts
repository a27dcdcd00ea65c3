// Bytes of one body held while it is read (for validation, or until enforce mode has judged it),
// and what holding them costs. A Buffer costs a few hundred bytes of memory besides its bytes: a
// body that comes in many small pieces (one-byte chunks, a trickle of one-byte reads) held as its
// pieces would cost that for every byte. Small pieces are copied into blocks instead, and the
// memory budget is charged with what is held: the bytes, the blocks' room, and each Buffer.

/** What a Buffer held costs beyond its bytes (its object, its backing store's record). */
export const PIECE_COST = 256;
/** Pieces smaller than this (after a body's first) are copied into a block. */
const SMALL = 4096;
/** The room of a block small pieces are copied into. */
const BLOCK = 16 * 1024;

export class HeldBytes {
  private readonly pieces: Buffer[] = [];
  /** The block small pieces go into, and how much of it is used. */
  private block: Buffer | undefined;
  private blockUsed = 0;
  /** Bytes held. */
  size = 0;

  /**
   * What holding `chunk` adds to the memory used. The first piece of a body is held as it came
   * (most bodies come in one); a large one too; a small one goes into a block.
   */
  costOf(chunk: Buffer): number {
    if (this.pieces.length === 0 || chunk.length >= SMALL) return chunk.length + PIECE_COST;
    if (this.block && this.blockUsed + chunk.length <= this.block.length) return 0;
    return BLOCK + PIECE_COST;
  }

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.pieces.length === 0 || chunk.length >= SMALL) {
      this.closeBlock();
      this.pieces.push(chunk);
      return;
    }
    if (!this.block || this.blockUsed + chunk.length > this.block.length) {
      this.closeBlock();
      // Memory of its own: a block is never a slice of node's shared pool.
      this.block = Buffer.allocUnsafeSlow(BLOCK);
      this.blockUsed = 0;
    }
    chunk.copy(this.block, this.blockUsed);
    this.blockUsed += chunk.length;
  }

  /** What the block holds becomes a piece; its room left (already paid for) takes the next small pieces. */
  private closeBlock(): void {
    if (!this.block || this.blockUsed === 0) return;
    this.pieces.push(this.block.subarray(0, this.blockUsed));
    this.block = this.block.length - this.blockUsed >= 256 ? this.block.subarray(this.blockUsed) : undefined;
    this.blockUsed = 0;
  }

  /** The pieces, in order. */
  all(): Buffer[] {
    this.closeBlock();
    return this.pieces;
  }

  /** The bytes as one Buffer, which from then on is the one piece held. */
  whole(): Buffer {
    const pieces = this.all();
    if (pieces.length === 1) return pieces[0] as Buffer;
    const whole = Buffer.concat(pieces, this.size);
    pieces.length = 0;
    pieces.push(whole);
    this.block = undefined;
    return whole;
  }
}
