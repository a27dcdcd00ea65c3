import type { Socket } from 'node:net';
import type { BlindRequest } from './blind-request.js';
import { malformedStatus, tlsOnPlainPort, writeBare, writeRefusal } from './client-refusals.js';
import { ConnectionExchanges } from './connection-exchanges.js';
import type { ControlCall } from './control-call.js';
import { type Flight, newFlight } from './flight.js';
import { type MessageHead, MessageParser } from './http-parser.js';
import type { ProxyContext } from './proxy-context.js';
import { routeRequest } from './request-route.js';
import { lingerThenClose } from './socket-writes.js';

// One client connection of the proxy and the target connection paired with it (target-link.ts).
// Requests are read off the socket with node's HTTP parser, admitted (admission.ts), in enforce
// mode judged first (enforce-gate.ts), and written to the target with a new head; bodies pass
// through as the bytes they are while taps watch them, and the answer comes back through the relay
// (answer-relay.ts). What becomes of an exchange from its head on (forwarded, answered, failed,
// finished) is in connection-exchanges.ts, which this class extends; here are the socket, the
// requests read off it, and the connection's place among the others. Where a request goes is
// decided in request-route.ts: a control call or a request for another host takes its own path.
// Exchanges on a connection are handled one after another: a pipelined request is read when the
// one before it has been answered (held-events.ts). When its head began and when it went idle are
// kept in connection-clock.ts.

/** With no client timeout, idle connections are still closed after this long, as node's http server does. */
const KEEP_ALIVE_MS = 5000;

export class ClientConnection extends ConnectionExchanges {
  private readonly parser: MessageParser;
  /** A CONNECT read, handed over to the forward door once the bytes after it are known. */
  private connectHead: MessageHead | undefined;
  /** The socket went to a tunnel or to TLS: this connection no longer reads or answers it. */
  private handedOver = false;
  /**
   * The connection's last request, not an exchange of the interface: a call to the control API
   * (answered by the proxy itself) or an absolute-form request for another host (passed on blind).
   */
  private aside: BlindRequest | ControlCall | undefined;
  private readonly listeners: [string, (chunk: Buffer) => void][];
  private ignoring = false;
  private closing = false;
  private clientEnded = false;
  private silent = false;
  /** The Host this connection's requests were last allowed for. */
  private allowedHost: string | undefined;
  private readonly idleMs: number;
  /** The next request waits until the client has read the answers before it (see `next`). */
  private waitingForClient = false;

  constructor(
    client: Socket,
    private readonly ownContext: ProxyContext,
  ) {
    super(client, ownContext);
    // One timer for the connection's life, set once: the client timeout, which is also how long
    // the connection may idle between requests. Whether a silence counts is decided when it fires.
    this.idleMs = ownContext.clientTimeoutMs > 0 ? ownContext.clientTimeoutMs : KEEP_ALIVE_MS;
    // Events are handled at once unless an exchange before them is still being answered.
    this.parser = new MessageParser('request', {
      begin: () => this.held.run(() => this.clock.headBegun()),
      head: (head) => {
        this.held.run(() => this.requestHead(head));
        return false;
      },
      body: (chunk) => this.held.run(() => this.requestBody(chunk)),
      end: () => this.held.run(() => this.requestEnd()),
    });
    client.setNoDelay(true);
    client.setTimeout(this.idleMs);
    this.listeners = [
      ['data', (chunk: Buffer) => this.read(chunk)],
      ['timeout', () => this.timedOut()],
      ['end', () => this.ended()],
      ['close', () => this.closed()],
    ];
    for (const [event, listener] of this.listeners) client.on(event, listener);
    client.on('error', () => {});
  }

  /** The proxy stops: an idle connection closes now, a busy one after its exchange. */
  stop(): void {
    // A tunnel has no exchange to finish: it is cut off with the others once they are done.
    if (this.handedOver) return;
    this.closing = true;
    if (!this.flight) this.endClient();
  }

  /** The proxy stops and cannot wait any longer. */
  cutOff(): void {
    this.client.destroy();
  }

  /** The head being read has had its time (checked by the proxy's sweep): 408, and the connection closes. */
  checkHeadDeadline(now: number): void {
    const limit = this.context.headersTimeoutMs;
    if (this.ignoring || !this.clock.headOverdue(now, limit)) return;
    this.cutHead(`the request head was not complete within ${limit / 1000} s`);
  }

  private cutHead(why: string): void {
    this.clock.headEnded();
    this.refuse(408, JSON.stringify({ message: `print-conformance proxy: ${why}` }));
    lingerThenClose(this.client);
  }

  /**
   * What this connection is worth to a new one when every place is taken: one idle between
   * requests can be closed at once (as nginx does when it runs short of connections), one whose
   * head has been trickling in for a second or more can be cut off; others are busy (undefined).
   * The number says how long it has been so.
   */
  spareFor(now: number): { idle: boolean; since: number } | undefined {
    if (this.handedOver || this.ignoring || this.flight || this.held.holding) return undefined;
    return this.clock.spare(now);
  }

  /** Makes room for a new connection (see spareFor). */
  giveWay(): void {
    if (!this.clock.readingHead) {
      this.endClient();
      lingerThenClose(this.client);
    } else this.cutHead('the request head was cut off to make room for another connection (--max-connections)');
  }

  private read(chunk: Buffer): void {
    if (this.ignoring) return;
    try {
      const error = this.parser.execute(chunk);
      if (this.connectHead) this.handOverConnect();
      else if (error) this.held.run(() => this.malformed(error, chunk));
    } catch (error) {
      // Whatever goes wrong in handling a request fails that exchange, never the proxy.
      const message = `print-conformance proxy: ${(error as Error).message}`;
      this.context.log(message);
      if (this.flight && !this.flight.finished) this.fail(this.flight, 502, message);
      else this.client.destroy();
    }
  }

  private requestHead(given: MessageHead): void {
    this.clock.headEnded();
    // A control call or a blind request is the connection's last: what a client pipelined after it is dropped.
    if (this.aside) return;
    if (given.method === 'CONNECT' && this.ownContext.door) {
      this.connectHead = given;
      return;
    }
    this.context = this.ownContext;
    const route = routeRequest(given, this.ownContext, this.client, this.allowedHost, () => this.detach());
    this.context = route.context;
    if (route.kind === 'refused') {
      if (route.log) this.context.log(route.log);
      this.refuse(route.status, route.body);
      return;
    }
    if (route.kind === 'aside') {
      this.aside = route.call;
      this.client.resume();
      return;
    }
    this.allowedHost = route.admission.host;
    const flight = newFlight(route.head, route.admission, this.context);
    this.flight = flight;
    // In enforce mode the request is judged before anything of it is forwarded (enforce-gate.ts).
    if (this.context.enforce && this.gate.admit(flight)) return;
    this.forward(flight);
  }

  /** A CONNECT: the socket, and what came after the head, go to the forward door. */
  private handOverConnect(): void {
    const head = this.connectHead;
    const door = this.ownContext.door;
    if (!head || !door) return;
    this.connectHead = undefined;
    if (this.flight) {
      this.refuse(
        400,
        JSON.stringify({ message: 'print-conformance proxy: a CONNECT after other requests on one connection' }),
      );
      return;
    }
    const rest = this.parser.takeAfterUpgrade();
    this.detach();
    door.connect(head, this.client, rest);
  }

  /** The socket goes to something else (a tunnel, TLS, an event stream): this connection lets go of it. */
  private detach(): void {
    this.handedOver = true;
    this.ignoring = true;
    for (const [event, listener] of this.listeners) this.client.off(event, listener);
    this.client.setTimeout(0);
    // Not at once: a control call is handed over from inside the parser's own callback.
    queueMicrotask(() => this.parser.close());
    this.ownContext.release?.(this);
  }

  private requestBody(chunk: Buffer): void {
    if (this.aside) {
      this.aside.body(chunk);
      return;
    }
    const flight = this.flight;
    if (!flight || flight.discarding) return;
    // Bytes forwarded go to the target before the tap hashes them: the target reads them meanwhile.
    if (!flight.gated) this.writeBody(flight, chunk);
    flight.requestTap.push(chunk);
    if (flight.gated) {
      this.gate.body(flight, chunk);
      return;
    }
    if (flight.requestTap.hashBehind)
      this.backpressure.waitForHash((resume) => flight.requestTap.onceHashCaughtUp(resume));
  }

  private requestEnd(): void {
    if (this.aside) {
      this.ignoring = true;
      this.aside.end();
      return;
    }
    const flight = this.flight;
    if (!flight) return;
    flight.requestEnded = true;
    if (flight.finished) {
      this.next(flight);
      return;
    }
    if (flight.answeredEarly) {
      this.judgeWhole(flight);
      return;
    }
    // Pipelined requests wait for this one's answer, and are not read before their turn.
    this.held.hold();
    this.client.pause();
    if (flight.gated) {
      this.gate.judge(flight);
      return;
    }
    if (flight.forwarded) this.endBody(flight);
  }

  protected connectionFields(flight: Flight): string {
    // A client that has ended its side still gets the requests it pipelined: the last one says close.
    const lastOfEnded = this.clientEnded && !this.held.pending;
    if (flight.closeAfter || this.closing || lastOfEnded || this.context.stopping()) {
      flight.closeAfter = true;
      return 'connection: close\r\n\r\n';
    }
    return `connection: keep-alive\r\nkeep-alive: timeout=${Math.floor(this.idleMs / 1000)}\r\n\r\n`;
  }

  /** The exchange is over on both sides: the connection closes or goes on with the next request. */
  protected next(flight: Flight): void {
    if (this.flight !== flight) return;
    this.flight = undefined;
    if (flight.closeAfter || this.closing) {
      this.endClient();
      return;
    }
    // A client that does not read its answers gets no more of them: the next request it sent
    // is read once it has read what is waiting for it (as node:http and nginx do), so that
    // pipelined requests cannot pile answers up in the proxy.
    if (this.client.writableNeedDrain) {
      if (!this.held.holding) this.held.hold();
      this.client.pause();
      if (this.waitingForClient) return;
      this.waitingForClient = true;
      this.client.once('drain', () => {
        this.waitingForClient = false;
        if (!this.flight && !this.ignoring) this.readNext();
      });
      return;
    }
    this.readNext();
  }

  /** The next request: the one held (pipelined), else whatever the client sends next. */
  private readNext(): void {
    this.held.replay();
    if (this.held.holding) return;
    if (this.clientEnded) {
      // Nothing more will come: a request left unfinished is broken off; with none, the connection ends.
      // (Replaying the held events may have started a new exchange.)
      const pending = this.flight as Flight | undefined;
      if (!pending) this.endClient();
      else if (!pending.requestEnded) this.brokenOff(pending, 499, 'the client broke off the request');
      return;
    }
    // Read on, unless the request now in flight waits for the target (or the hash) to take its body.
    if (!this.backpressure.stalled) this.client.resume();
  }

  /** A request the proxy does not forward: answered at once, and the connection closed. */
  private refuse(status: number, body: string): void {
    this.ignoring = true;
    this.context.refused(status, body);
    writeRefusal(this.client, status, body);
    this.endClient();
  }

  private malformed(code: string, chunk: Buffer): void {
    this.ignoring = true;
    // TLS where HTTP was due: said in one line; the client itself sees only that TLS failed.
    const hint =
      this.clock.served === 0 && !this.flight ? tlsOnPlainPort(chunk, this.ownContext.ownAuthority) : undefined;
    if (hint) {
      this.ownContext.log(`print-conformance proxy: ${hint}`);
      this.ownContext.refused(400, hint);
      writeBare(this.client, 400);
      this.endClient();
      return;
    }
    const message = `the client sent no valid HTTP request (${code})`;
    if (this.flight && !this.flight.finished) {
      this.fail(this.flight, 400, message);
      return;
    }
    const status = malformedStatus(code);
    this.context.refused(status, message);
    writeBare(this.client, status);
    this.endClient();
  }

  private timedOut(): void {
    const flight = this.flight;
    if (flight && !flight.finished) {
      // Waiting for the target is the answer timeout's business, not the client's.
      if (flight.requestEnded) return;
      // Without a client timeout, a client sending its request is never cut off; one already
      // answered is waited for as long as an idle connection.
      if (this.context.clientTimeoutMs === 0 && !flight.answeredEarly) return;
      this.silent = true;
    }
    this.client.destroy();
  }

  /** The client will send no more (it may still read): answered if it is waiting, then closed. */
  private ended(): void {
    this.clientEnded = true;
    const flight = this.flight;
    if (!flight || flight.finished) {
      this.flight = undefined;
      this.endClient();
      return;
    }
    if (!flight.requestEnded) this.brokenOff(flight, 499, 'the client broke off the request');
    // Else the answer still comes, and the connection closes after it.
  }

  private closed(): void {
    this.unread.read();
    const flight = this.flight;
    if (flight && !flight.finished) {
      if (this.context.stopping() && !flight.answeredEarly)
        this.fail(flight, 503, 'the proxy stopped before the exchange completed');
      else if (this.silent)
        this.brokenOff(flight, 408, `the client sent nothing for ${this.context.clientTimeoutMs / 1000} s`);
      else this.brokenOff(flight, 499, 'the client broke off the request');
    }
    this.flight = undefined;
    this.target.release();
    this.parser.close();
  }

  protected endClient(): void {
    this.ignoring = true;
    // Read on, so that the client's own end is seen and the socket closes.
    this.client.resume();
    this.client.end();
  }
}
