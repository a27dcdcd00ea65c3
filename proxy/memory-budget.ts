// One budget for the whole process for the memory bodies are held in (JSON/XML bodies kept whole
// until they end, enforce mode's look at a request before it is forwarded, bodies kept for
// --record-bodies, answers written whole that their client has not read yet). It is charged what
// holding costs, not just the bytes (held-bytes.ts). Past it a body is forwarded and recorded as not
// validated rather than held (refused in enforce mode): a crowd of slow uploads, or of clients that
// do not read, cannot make the proxy hold more than this, however many connections.

export class MemoryBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  /**
   * Counts memory that is held already and cannot be refused (an answer waiting in a socket for
   * its client to read it): the budget may go over its limit, and takes nothing more until it is back under.
   */
  hold(bytes: number): void {
    this.used += bytes;
  }

  give(bytes: number): void {
    this.used -= bytes;
  }

  get inUse(): number {
    return this.used;
  }

  /** What a body not held for lack of budget is recorded with. */
  get reason(): string {
    return `not validated: the proxy's memory budget for bodies held for validation (${this.limit} bytes, --memory-budget) was spent`;
  }
}
