// TLS handshakes a client refused on an intercepted host (it did not trust the proxy's local CA):
// nothing of the interface went through them, so no exchange stands for them. Kept apart, a few
// at a time, for the control API and the live page (GET api/handshakes, `handshake` events).

export interface RefusedHandshake {
  /** When it was refused (ISO 8601). */
  at: string;
  /** The host the client asked to reach (the CONNECT's). */
  host: string;
  port: number;
  /** The alert the client sent, as OpenSSL names it ("unknown ca"), or what ended the handshake. */
  alert: string;
  /** The likely cause and its remedy, one sentence. */
  cause: string;
}

const KEPT = 100;

type Listener = (handshake: RefusedHandshake) => void;

export class RefusedHandshakes {
  private readonly kept: RefusedHandshake[] = [];
  private readonly listeners = new Set<Listener>();
  /** All refused so far, including those no longer kept. */
  count = 0;

  record(handshake: RefusedHandshake): void {
    this.count += 1;
    this.kept.push(handshake);
    if (this.kept.length > KEPT) this.kept.shift();
    for (const listener of this.listeners) listener(handshake);
  }

  /** The newest few, oldest first. */
  all(): RefusedHandshake[] {
    return [...this.kept];
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
