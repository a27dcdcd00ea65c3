import { reuseAfter } from './connection-reuse.js';
import type { Flight } from './flight.js';
import { chunkFrame, LAST_CHUNK } from './message-head.js';
import type { ProxyContext } from './proxy-context.js';
import { targetHead } from './target-head.js';
import { type AnswerEvents, Upstream } from './upstream.js';

// The target connection paired with one client connection: kept alive across its exchanges, made
// anew when it closed or when a request needs another target (an intercepted one, say).

export class TargetLink {
  private upstream: Upstream | undefined;
  /** The context the connection was made in: another one's target needs another connection. */
  private madeFor: ProxyContext | undefined;

  get current(): Upstream | undefined {
    return this.upstream;
  }

  /** The request's head goes to the target; its answer comes back through `events`. */
  forward(flight: Flight, context: ProxyContext, events: AnswerEvents): void {
    if (!this.upstream?.usable() || this.madeFor?.route !== context.route) {
      this.upstream?.destroy();
      this.upstream =
        context.targetPool?.take(context.route) ??
        new Upstream(context.route, context.answerTimeoutMs, context.targetTimeoutMs);
      this.madeFor = context;
    }
    flight.forwarded = true;
    const { text, bodyFollows } = targetHead(flight, context.target.host);
    const expectForwarded = !flight.continued && flight.headers.expect !== undefined;
    this.upstream.send(text, events, bodyFollows, reuseAfter(flight.head, expectForwarded));
  }

  /** A piece of the request body; `wait` is given a way to resume once the target has taken it, if it must. */
  writeBody(flight: Flight, chunk: Buffer, wait: (until: (resume: () => void) => void) => void): void {
    const upstream = this.upstream;
    if (!upstream || flight.finished) return;
    const flowing = flight.chunked ? upstream.write(...chunkFrame(chunk)) : upstream.write(chunk);
    if (!flowing) wait((resume) => upstream.onceDrained(resume));
  }

  endBody(flight: Flight): void {
    if (flight.finished) return;
    if (flight.chunked) this.upstream?.write(LAST_CHUNK);
    this.upstream?.requestSent();
  }

  /** The connection is let go without closing it (one closed under a request about to be resent). */
  forget(): void {
    this.upstream = undefined;
  }

  /** The client connection closed: an idle target connection is kept for another one, others closed. */
  release(): void {
    const { upstream, madeFor } = this;
    this.upstream = undefined;
    if (!upstream) return;
    if (madeFor?.targetPool) madeFor.targetPool.keep(madeFor.route, upstream);
    else upstream.destroy();
  }

  /** The connection cannot carry another request: closed. */
  drop(): void {
    this.upstream?.destroy();
    this.upstream = undefined;
  }
}
