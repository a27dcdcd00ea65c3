import type { Socket } from 'node:net';

// Why a client connection's request body is not read on: the target has not taken what it was
// sent, or the worker thread has not hashed it. The client is read again once neither holds.

export class RequestBackpressure {
  private target = false;
  private hash = false;

  /** @param holding a pipelined request waits for its turn: it is read when that comes, not here. */
  constructor(
    private readonly client: Socket,
    private readonly holding: () => boolean,
  ) {}

  /** Something holds the body back. */
  get stalled(): boolean {
    return this.target || this.hash;
  }

  /** The target reads slower than the client sends: the client waits for `drained`. */
  waitForTarget(onceDrained: (resume: () => void) => void): void {
    if (this.target) return;
    this.target = true;
    this.client.pause();
    onceDrained(() => {
      this.target = false;
      this.readOn();
    });
  }

  /** The worker thread hashes slower than the client sends: the client waits for it too. */
  waitForHash(onceCaughtUp: (resume: () => void) => void): void {
    if (this.hash) return;
    this.hash = true;
    this.client.pause();
    onceCaughtUp(() => {
      this.hash = false;
      this.readOn();
    });
  }

  private readOn(): void {
    if (!this.stalled && !this.holding()) this.client.resume();
  }
}
