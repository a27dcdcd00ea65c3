// The deadline of a target connection (--connect-timeout): for the connection, its TLS handshake
// and each answer's head. A deadline, not an idle timer: a target that trickles its handshake or its
// answer's head byte by byte still answers 504 in time. Apart from upstream.ts, which decides when
// the deadline counts and what being past it means.

export class AnswerDeadline {
  private timer: NodeJS.Timeout | undefined;
  /** The deadline counts: disarmed, the timer may still fire, and is let pass. */
  armed = false;

  constructor(
    private readonly ms: number,
    private readonly overdue: () => void,
  ) {}

  // One timer for the connection's life, restarted for each request rather than made anew (no
  // allocation per exchange).
  arm(): void {
    this.armed = true;
    if (this.timer) this.timer.refresh();
    else this.timer = setTimeout(() => this.fired(), this.ms);
  }

  disarm(): void {
    this.armed = false;
  }

  /** The connection is done with: the timer goes. */
  clear(): void {
    this.armed = false;
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fired(): void {
    if (!this.armed) return;
    this.armed = false;
    this.overdue();
  }
}
