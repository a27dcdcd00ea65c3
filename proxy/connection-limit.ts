// The cap on client connections open at once (--max-connections): a new connection past it first
// makes an idle or trickling one give way, and is otherwise answered 503 and closed. Apart from
// proxy-server.ts, which wires the session together, since how places are counted and given up is
// a policy of its own.
import type { Socket } from 'node:net';
import type { ClientConnection } from './client-connection.js';
import { lingerThenClose } from './socket-writes.js';

export const TOO_MANY = 'too many connections; try again later';

/** A connection over the limit: told so in HTTP (nginx's limit_conn answers 503 too), and closed. */
function refuseConnection(socket: Socket): void {
  const body = `{"message":"print-conformance proxy: ${TOO_MANY}"}`;
  socket.on('error', () => {});
  // What the client sends is read and dropped, so that closing does not reset the connection
  // before the answer is read.
  socket.resume();
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
  lingerThenClose(socket);
}

export class ConnectionLimit {
  /**
   * Every connection accepted holds a place until its socket closes, whatever it becomes: a
   * connection handed over to a tunnel, to TLS or to an event stream leaves `connections` (it has
   * no exchange to make room with) but still holds a descriptor, and still counts here.
   */
  private readonly sockets = new Set<Socket>();
  private full = false;

  /**
   * @param connections the connections reading requests, each with the socket accepted for it
   * @param refused told of each connection refused, as the session counts refusals
   */
  constructor(
    private readonly max: number,
    private readonly connections: Map<ClientConnection, Socket>,
    private readonly log: (line: string) => void,
    private readonly refused: (status: number, reason: string) => void,
  ) {}

  /** Client connections open now, whatever they became (requests, tunnels, event streams). */
  get open(): number {
    return this.sockets.size;
  }

  /** Takes a new connection's socket in, or refuses it when no place can be made: false then. */
  admit(socket: Socket): boolean {
    if (this.sockets.size >= this.max) this.makeRoom();
    if (this.sockets.size >= this.max) {
      if (!this.full) this.log(`${this.max} client connections are open (--max-connections): more are answered 503`);
      this.full = true;
      this.refused(503, TOO_MANY);
      refuseConnection(socket);
      return false;
    }
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      if (this.sockets.size < this.max) this.full = false;
    });
    return true;
  }

  /** Cuts off every socket still open, tunnels too (they have no exchange to finish). */
  destroyAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /**
   * Every place is taken: a connection idle between requests (the longest idle first), else one
   * whose head has trickled in the longest, gives way, so that slow or idle clients cannot lock
   * out a new one. A connection that closes takes its place out of the set once it is gone.
   */
  private makeRoom(): void {
    const now = performance.now();
    let best: ClientConnection | undefined;
    let bestSpare: { idle: boolean; since: number } | undefined;
    for (const connection of this.connections.keys()) {
      const spare = connection.spareFor(now);
      if (!spare) continue;
      const better =
        !bestSpare ||
        (spare.idle && !bestSpare.idle) ||
        (spare.idle === bestSpare.idle && spare.since < bestSpare.since);
      if (better) {
        best = connection;
        bestSpare = spare;
      }
    }
    if (!best) return;
    best.giveWay();
    // Counted out at once: it is closing, and no longer holds a place.
    const accepted = this.connections.get(best);
    this.connections.delete(best);
    if (accepted) this.sockets.delete(accepted);
  }
}
