// When a client connection's request head began and when the connection last went idle. The
// proxy's sweep reads it for the head deadline (408), the connection limit for which connection is
// worth least when every place is taken. Apart from client-connection.ts, which moves requests
// through, since these times are about the connection's place among the others, not an exchange.

export class ConnectionClock {
  /** When the first byte of the request head being read came (its turn, for a pipelined one); 0: none. */
  private headStartedAt = 0;
  /** Exchanges this connection has finished, and when the last one ended. */
  private finished = 0;
  private idleSince = 0;

  /** Exchanges this connection has finished. */
  get served(): number {
    return this.finished;
  }

  /** A request head is being read and has not come whole yet. */
  get readingHead(): boolean {
    return this.headStartedAt !== 0;
  }

  headBegun(): void {
    this.headStartedAt = performance.now();
  }

  /** The head came whole, or was cut off. */
  headEnded(): void {
    this.headStartedAt = 0;
  }

  exchangeDone(): void {
    this.finished += 1;
    this.idleSince = performance.now();
  }

  /** The head being read has taken longer than `limitMs` (0: no limit). */
  headOverdue(now: number, limitMs: number): boolean {
    return this.headStartedAt !== 0 && limitMs !== 0 && now - this.headStartedAt > limitMs;
  }

  /**
   * What a connection not busy with an exchange is worth to a new one: idle between requests since
   * its last exchange, or trickling a head in for a second or more; otherwise undefined.
   */
  spare(now: number): { idle: boolean; since: number } | undefined {
    if (this.headStartedAt === 0) return this.finished > 0 ? { idle: true, since: this.idleSince } : undefined;
    return now - this.headStartedAt >= 1000 ? { idle: false, since: this.headStartedAt } : undefined;
  }
}
