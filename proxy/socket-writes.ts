import type { Socket } from 'node:net';

// Writes to a client socket that may already be gone: a closed socket takes nothing, quietly.

/** A head and a whole body in one buffer and one write: cheaper than a corked pair of writes. */
export function writeWhole(socket: Socket, head: string, body: Buffer): void {
  if (socket.destroyed) return;
  const bytes = Buffer.allocUnsafe(head.length + body.length);
  bytes.write(head, 0, 'latin1');
  body.copy(bytes, head.length);
  socket.write(bytes);
}

/** Pieces written as one packet; false when the caller should wait for `drain`. */
export function writeClient(socket: Socket, ...pieces: (Buffer | string)[]): boolean {
  if (socket.destroyed) return true;
  socket.cork();
  let flowing = true;
  for (const piece of pieces) flowing = socket.write(piece, 'latin1');
  socket.uncork();
  return flowing;
}

/** How long a connection the proxy has ended may linger for the client to read its last answer. */
const LINGER_MS = 1000;

/**
 * A connection the proxy has answered and ended is closed soon even if the client never ends its
 * side: one that keeps sending (a trickled head) would otherwise keep it open, read and ignored.
 */
export function lingerThenClose(socket: Socket): void {
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
