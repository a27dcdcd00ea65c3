import type { Socket } from 'node:net';
import { failureAnswer, mayResend } from './answer-checks.js';
import { AnswerRelay } from './answer-relay.js';
import { ConnectionClock } from './connection-clock.js';
import { EnforceGate } from './enforce-gate.js';
import { judgeFailed, settle } from './exchange-end.js';
import type { Flight } from './flight.js';
import { HeldEvents } from './held-events.js';
import { fieldLines, statusLine } from './message-head.js';
import type { ProxyContext } from './proxy-context.js';
import { RequestBackpressure } from './request-backpressure.js';
import { requestBodyOf } from './request-body.js';
import { writeWhole } from './socket-writes.js';
import { TargetLink } from './target-link.js';
import { UnreadAnswers } from './unread-answers.js';
import type { UpstreamFailure } from './upstream-failure.js';

// The exchanges of one client connection, from a request's head on: forwarded to the target
// (target-link.ts), answered through the relay (answer-relay.ts) or by the enforce gate
// (enforce-gate.ts), sent again on a fresh connection, failed or broken off, and finished. The
// client connection (client-connection.ts) extends it: it reads requests off the socket, says
// whether an answer closes the connection and when the next request is read. A base class rather
// than a part held apart: each step of an exchange reaches the connection's state, and calls within
// one object add nothing per exchange.

export abstract class ConnectionExchanges {
  protected readonly relay: AnswerRelay;
  protected readonly gate: EnforceGate;
  protected readonly target = new TargetLink();
  protected flight: Flight | undefined;
  /** The context of the request being handled: the connection's own, or interception's for an absolute-form request. */
  protected context: ProxyContext;
  /** Parser events of pipelined requests, waiting for the exchange before them. */
  protected readonly held = new HeldEvents();
  /** When the head being read began and when the connection went idle (the sweep's and the limit's). */
  protected readonly clock = new ConnectionClock();
  protected readonly backpressure: RequestBackpressure;
  /** Answers waiting in the client's socket, charged to the memory budget until it reads them. */
  protected readonly unread: UnreadAnswers;

  constructor(
    protected readonly client: Socket,
    context: ProxyContext,
  ) {
    this.context = context;
    // The relay and the gate read the context of the request in hand.
    const current = () => this.context;
    this.backpressure = new RequestBackpressure(client, () => this.held.holding);
    this.unread = new UnreadAnswers(client, () => this.context.tapOptions.budget);
    this.relay = new AnswerRelay({
      client,
      get context() {
        return current();
      },
      upstream: () => this.target.current,
      connectionFields: (flight) => this.connectionFields(flight),
      answered: (flight) => this.answered(flight),
      failed: (flight, failure) => this.answerFailed(flight, failure),
      heldUntilRead: (bytes) => this.unread.held(bytes),
    });
    this.gate = new EnforceGate({
      client,
      get context() {
        return current();
      },
      forward: (flight) => this.forward(flight),
      writeBody: (flight, chunk) => this.writeBody(flight, chunk),
      endBody: (flight) => this.endBody(flight),
      answerItself: (flight, status, headers, body) => this.answerItself(flight, status, headers, body),
      finish: (flight) => this.finish(flight),
      fail: (flight, status, message, extra) => this.fail(flight, status, message, extra),
    });
  }

  /** The connection's own fields that end an answer's head: whether the connection closes after it. */
  protected abstract connectionFields(flight: Flight): string;

  /** The exchange is over on both sides: the connection closes or goes on with the next request. */
  protected abstract next(flight: Flight): void;

  /** No more is answered on the connection: the client's socket is ended. */
  protected abstract endClient(): void;

  protected forward(flight: Flight): void {
    this.target.forward(flight, this.context, this.relay.events(flight));
  }

  protected writeBody(flight: Flight, chunk: Buffer): void {
    this.target.writeBody(flight, chunk, (until) => this.backpressure.waitForTarget(until));
  }

  protected endBody(flight: Flight): void {
    this.target.endBody(flight);
  }

  private answerFailed(flight: Flight, failure: UpstreamFailure): void {
    if (flight.finished) return;
    const answer = failureAnswer(failure, {
      targetBase: this.context.targetBase,
      answerTimeoutMs: this.context.answerTimeoutMs,
      targetTimeoutMs: this.context.targetTimeoutMs,
      stopping: this.context.stopping(),
      canResend: mayResend(flight.head.method, flight.head.framing, flight.resent || flight.continued),
    });
    if (answer.resend) {
      flight.resent = true;
      this.target.forget();
      this.forward(flight);
      return;
    }
    // A client that has had nothing of the answer yet (one held to be judged) is told, with a 502;
    // one that has had part of it can only see its connection close.
    this.fail(flight, answer.status, answer.message);
  }

  /** The answer has gone to the client whole. */
  private answered(flight: Flight): void {
    if (flight.finished) return;
    if (flight.requestEnded) {
      this.finish(flight);
      return;
    }
    // Answered before the request's body had all come: the body is read on (within the client
    // timeout) and the exchange judged once it is whole. The target has not had the whole request:
    // its connection cannot carry another one.
    flight.answeredEarly = true;
    flight.answer?.tap.release();
    this.target.drop();
  }

  /** An exchange answered early: its request has come whole (or never will), and it is judged on what came. */
  protected judgeWhole(flight: Flight): void {
    flight.exchange.request.body = requestBodyOf(flight);
    flight.exchange.violations = this.context.judge(flight.exchange);
    if (!flight.requestEnded) flight.closeAfter = true;
    this.finish(flight);
  }

  /** The client will send no more of the request in hand. */
  protected brokenOff(flight: Flight, status: number, message: string): void {
    if (flight.answeredEarly) this.judgeWhole(flight);
    else this.fail(flight, status, message);
  }

  /** The exchange cannot complete: it is recorded as failed, and the client told if it still can be. */
  protected fail(flight: Flight, status: number, message: string, extra?: Record<string, string>): void {
    if (flight.finished) return;
    judgeFailed(flight, this.context, status, message);
    flight.discarding = true;
    flight.closeAfter = true;
    this.target.drop();
    if (!flight.headSent && !this.client.destroyed) {
      const body = JSON.stringify({ message: `print-conformance proxy: ${message}` });
      this.answerItself(flight, status, { 'content-type': 'application/json; charset=utf-8', ...extra }, body);
    } else this.client.destroy();
    this.finish(flight);
  }

  /** An answer of the proxy's own, written whole. */
  private answerItself(flight: Flight, status: number, headers: Record<string, string>, body: string): void {
    const bytes = Buffer.from(body);
    const fields = { ...headers, 'content-length': String(bytes.length) };
    flight.headSent = true;
    writeWhole(this.client, statusLine(status) + fieldLines(fields) + this.connectionFields(flight), bytes);
  }

  protected finish(flight: Flight): void {
    if (flight.finished) return;
    this.clock.exchangeDone();
    settle(flight, this.context);
    if (!flight.requestEnded && flight.forwarded) {
      // The target has not had the whole request: its connection cannot carry another one.
      this.target.drop();
    }
    if (flight.requestEnded) this.next(flight);
    else if (flight.closeAfter) {
      this.flight = undefined;
      this.endClient();
    }
    // Else the rest of the request body is read and dropped before the next request.
  }
}
