// Parser events of requests pipelined behind one still being answered. The connection stops
// reading the client (its socket is paused) as soon as a request has been read whole while its
// exchange goes on, so what is held here is at most the rest of the one read that held both:
// a pipelined request is read when its turn comes, not buffered ahead.

export class HeldEvents {
  private events: (() => void)[] | undefined;

  /** From now on events wait, until `replay`. */
  hold(): void {
    this.events = [];
  }

  get holding(): boolean {
    return this.events !== undefined;
  }

  get pending(): boolean {
    return this.events !== undefined && this.events.length > 0;
  }

  /** Handles an event now, or keeps it for later while holding. */
  run(event: () => void): void {
    if (this.events) this.events.push(event);
    else event();
  }

  /** Handles the held events in order, until one of them makes the events wait again. */
  replay(): void {
    const events = this.events ?? [];
    this.events = undefined;
    for (let index = 0; index < events.length; index += 1) {
      if (this.events) {
        (this.events as (() => void)[]).push(...events.slice(index));
        return;
      }
      (events[index] as () => void)();
    }
  }
}
