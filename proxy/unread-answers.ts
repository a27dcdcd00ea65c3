import type { Socket } from 'node:net';
import type { MemoryBudget } from './memory-budget.js';

// Answers written whole wait in the client's socket until it reads them: they stay charged to the
// memory budget until then, so that a client that does not read cannot make the proxy hold more.

export class UnreadAnswers {
  private unread = 0;

  constructor(
    private readonly client: Socket,
    private readonly budget: () => MemoryBudget | undefined,
  ) {}

  /** `bytes` were just written to the client. */
  held(bytes: number): void {
    if (!this.client.writableNeedDrain || this.client.destroyed) return;
    const budget = this.budget();
    if (!budget) return;
    budget.hold(bytes);
    this.unread += bytes;
    if (this.unread === bytes) this.client.once('drain', () => this.read());
  }

  /** The client has read them (or is gone). */
  read(): void {
    if (this.unread === 0) return;
    this.budget()?.give(this.unread);
    this.unread = 0;
  }
}
