import type { Socket } from 'node:net';
import { isTextualMediaType } from '../src/validate/document.js';
import { type Exchange, mediaType, type RecordedBody } from '../src/validate/exchange.js';
import type { Unread } from './body-tap.js';
import { type BlockingAnswer, blockingAnswer, previewBody } from './enforcement.js';
import type { Flight } from './flight.js';
import { HeldBytes } from './held-bytes.js';
import { statusLine } from './message-head.js';
import type { ProxyContext } from './proxy-context.js';

// Enforce mode's gate on a client connection: every request is judged before anything of it is
// forwarded. A JSON, XML or form body is held whole by its tap, the start of a multipart or
// untyped one here; any other request (an upload of a binary type, a GET) is judged by its head.
// A must violation is answered by the proxy itself, and so is a body the gate cannot read: a gate
// that cannot see fails closed.

/** What the gate needs of its connection. */
export interface GateHost {
  readonly client: Socket;
  readonly context: ProxyContext;
  forward(flight: Flight): void;
  writeBody(flight: Flight, chunk: Buffer): void;
  endBody(flight: Flight): void;
  answerItself(flight: Flight, status: number, headers: Record<string, string>, body: string): void;
  finish(flight: Flight): void;
  fail(flight: Flight, status: number, message: string, extra?: Record<string, string>): void;
}

export class EnforceGate {
  constructor(private readonly host: GateHost) {}

  /**
   * A request's head has come: true when the gate holds the request (its body is read first) or
   * has answered it, false when it goes on to the target as it is.
   */
  admit(flight: Flight): boolean {
    if (flight.peekLimit === 0) return this.blockedByHead(flight);
    flight.gated = true;
    // JSON, XML and forms are held by their tap, whole, and forwarded from it once judged; of
    // others the start is held here.
    if (!isTextualMediaType(mediaType(flight.headers['content-type']))) flight.peeked = new HeldBytes();
    else flight.requestTap.forwardsHeld = true;
    // An HTTP/1.0 client knows no interim answers (RFC 9110 §15.2): it sends its body anyway.
    if (/^100-continue$/i.test(flight.headers.expect ?? '') && flight.head.version !== '1.0') {
      flight.continued = true;
      this.host.client.write(`${statusLine(100)}\r\n`, 'latin1');
    }
    return true;
  }

  /** A piece of a held request's body (its tap has had it already). */
  body(flight: Flight, chunk: Buffer): void {
    // A body the gate cannot hold whole is not read on: it cannot be judged, so it is refused.
    if (!flight.peeked) {
      if (!flight.requestTap.keeping) this.refuseUnread(flight);
      return;
    }
    // The start of a multipart body, held against the budget like any other.
    const budget = this.host.context.tapOptions.budget;
    const cost = flight.peeked.costOf(chunk);
    if (budget && !budget.take(cost)) {
      this.refuseUnread(flight, 'budget');
      return;
    }
    flight.peekedCost += cost;
    flight.peeked.add(chunk);
    if (flight.peeked.size > flight.peekLimit) this.judge(flight);
  }

  /**
   * The held request is judged from its whole body (JSON, XML, forms) or its start (multipart):
   * forwarded with what was held, or answered by the proxy.
   */
  judge(flight: Flight): void {
    flight.gated = false;
    const peeked = flight.peeked;
    flight.peeked = undefined;
    let previewed: RecordedBody;
    let held: Buffer[];
    if (peeked) {
      held = peeked.all();
      previewed = previewBody(flight.headers, held, this.host.context.tapOptions);
    } else {
      previewed = flight.requestTap.finish(flight.headers['content-encoding']);
      if (flight.requestTap.unread) {
        this.refuseUnread(flight);
        return;
      }
      held = flight.requestTap.held();
    }
    const preview: Exchange = { request: { ...flight.exchange.request, body: previewed } };
    const blocked = blockingAnswer(this.host.context.judge(preview));
    if (!blocked) {
      this.host.forward(flight);
      for (const chunk of held) this.host.writeBody(flight, chunk);
      if (peeked) this.host.context.tapOptions.budget?.give(flight.peekedCost);
      flight.peekedCost = 0;
      if (flight.requestEnded) this.host.endBody(flight);
      return;
    }
    this.block(flight, preview, blocked);
  }

  /** The proxy answers a request that breaks a must rule itself; the rest of its body is let go. */
  private block(flight: Flight, preview: Exchange, blocked: BlockingAnswer): void {
    const { status, headers, body } = blocked;
    flight.discarding = true;
    flight.exchange.request.body = preview.request.body;
    flight.exchange.response = { status, headers, body: { text: body, size: Buffer.byteLength(body) } };
    flight.exchange.violations = blocked.violations;
    flight.exchange.blocked = true;
    this.host.answerItself(flight, status, headers, body);
    this.host.finish(flight);
  }

  /**
   * A request whose body is not held first (an upload of a binary type, a GET) is judged by its
   * head before it is forwarded: its type and its URL can break a must rule alone.
   * Its body, unread yet, is judged by no rule: it is known only by its announced size.
   */
  private blockedByHead(flight: Flight): boolean {
    const { framing } = flight.head;
    const announced = framing.kind === 'length' ? framing.length : framing.kind === 'none' ? 0 : Number.NaN;
    const request = { ...flight.exchange.request };
    if (announced !== 0)
      request.body = {
        size: Number.isNaN(announced) ? 0 : announced,
        skipped: 'judged by its head, before it was read',
      };
    const preview: Exchange = { request };
    const blocked = blockingAnswer(this.host.context.judge(preview));
    if (!blocked) return false;
    this.block(flight, preview, blocked);
    return true;
  }

  /** A body the gate cannot read (too large, over the budget, in an unknown coding) is refused. */
  private refuseUnread(flight: Flight, unread: Unread | undefined = flight.requestTap.unread): void {
    const limit = this.host.context.validateLimit;
    const budget = this.host.context.tapOptions.budget;
    const refusal =
      unread === 'coding'
        ? {
            status: 415,
            message: `enforce mode cannot read a body in the content coding ${JSON.stringify(flight.headers['content-encoding'] ?? '')}, so does not forward it`,
          }
        : unread === 'budget'
          ? {
              status: 503,
              message: `enforce mode cannot hold this body to judge it now (the memory budget of ${budget?.limit} bytes, --memory-budget, is spent), so does not forward it; try again later`,
            }
          : {
              status: 413,
              message: `enforce mode reads bodies up to ${limit} bytes (--validate-limit) to judge them; this one is larger, so it is not forwarded`,
            };
    flight.gated = false;
    this.host.fail(flight, refusal.status, refusal.message, unread === 'budget' ? { 'retry-after': '1' } : undefined);
  }
}
