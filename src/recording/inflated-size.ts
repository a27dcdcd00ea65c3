import { closeSync, openSync, readSync } from 'node:fs';

// How many bytes a recording holds once decompressed, to size the judging by: a gzip-compressed
// recording is a tenth of its text or less, and judging by its stored size kept a large one on a
// single thread. Loads nothing but Node.js's own, so that the CLI can ask before its code loads.

/**
 * The decompressed size of a gzip file (`stored` bytes long): its trailer's ISIZE, which holds it
 * modulo 4 GiB, taken as at least the stored size; `stored` itself for any other file, and for one
 * that cannot be read here (the reading proper says why).
 */
export function inflatedSize(file: string, stored: number): number {
  if (stored < 18) return stored;
  let descriptor: number | undefined;
  try {
    descriptor = openSync(file, 'r');
    const head = Buffer.alloc(2);
    readSync(descriptor, head, 0, 2, 0);
    if (head[0] !== 0x1f || head[1] !== 0x8b) return stored;
    const trailer = Buffer.alloc(4);
    readSync(descriptor, trailer, 0, 4, stored - 4);
    return Math.max(stored, trailer.readUInt32LE(0));
  } catch {
    return stored;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}
