import type { Upstream } from './upstream.js';
import type { UpstreamRoute } from './upstream-route.js';

// Idle target connections left by client connections that closed, taken by the next client
// connection to the same target: a client that opens a tunnel or a connection per request does
// not cost the proxy a TCP connection and a TLS handshake to the target each time. Only a
// connection between exchanges is kept (Upstream.idle): never one that may hold an unread request
// body, an answer not read to its end, or bytes past an answer (connection-reuse.ts closes them).

/** Idle connections kept per target: as many as the connections a busy client keeps open. */
const MAX_IDLE = 32;

export class TargetPool {
  private readonly idle = new Map<UpstreamRoute, Upstream[]>();
  private closed = false;

  /** An idle connection to `route` that can carry a request now, if one is kept. */
  take(route: UpstreamRoute): Upstream | undefined {
    const kept = this.idle.get(route);
    while (kept && kept.length > 0) {
      const upstream = kept.pop() as Upstream;
      if (upstream.idle()) return upstream;
      upstream.destroy();
    }
    return undefined;
  }

  /** Keeps a connection for the next client connection, or closes it when it cannot be kept. */
  keep(route: UpstreamRoute, upstream: Upstream): void {
    if (this.closed || !upstream.idle()) {
      upstream.destroy();
      return;
    }
    // Those the target has closed (or timed out) since they were kept make room first.
    const kept: Upstream[] = [];
    for (const other of this.idle.get(route) ?? []) {
      if (other.idle()) kept.push(other);
      else other.destroy();
    }
    if (kept.length >= MAX_IDLE) {
      upstream.destroy();
      return;
    }
    kept.push(upstream);
    this.idle.set(route, kept);
  }

  /** The proxy stops: the kept connections close, and none is kept any more. */
  closeAll(): void {
    this.closed = true;
    for (const kept of this.idle.values()) for (const upstream of kept) upstream.destroy();
    this.idle.clear();
  }
}
