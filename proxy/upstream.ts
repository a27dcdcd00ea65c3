import type { Socket } from 'node:net';
import { statusProblem } from './answer-checks.js';
import { AnswerDeadline } from './answer-deadline.js';
import type { ReuseAfter } from './connection-reuse.js';
import { type MessageEvents, type MessageHead, MessageParser } from './http-parser.js';
import { UNDECODED_CODING } from './message-framing.js';
import { fieldValues } from './message-head.js';
import { lossOf, timeoutOf, type UpstreamFailure } from './upstream-failure.js';
import { keepSession, openConnection, type UpstreamRoute } from './upstream-route.js';

// One connection to the target, kept open between exchanges of one client connection: requests
// are written to it as text and bytes, answers read back with node's HTTP parser. Where it goes
// and how it is opened are in upstream-route.ts, the deadline for its answers in answer-deadline.ts,
// and what a failure of it means in upstream-failure.ts.

export interface AnswerEvents extends MessageEvents {
  /** An interim answer (100 Continue, 103 Early Hints) before the final one. */
  interim(head: MessageHead): void;
  /** The answer cannot be had, or was cut off. */
  failed(failure: UpstreamFailure): void;
}

/** How long an idle connection is kept when the target names no keep-alive timeout. */
const DEFAULT_IDLE_MS = 4000;
/** Interim answers (1xx) passed on before one request's final answer; past them the target is cut off. */
const MAX_INTERIM = 32;

export class Upstream {
  private readonly socket: Socket;
  private readonly parser: MessageParser;
  private waiting: AnswerEvents | undefined;
  private answered = false;
  private interim = false;
  private idleMs = DEFAULT_IDLE_MS;
  closed = false;
  private idleSince = 0;
  /** The request now out went on a connection an earlier exchange had used. */
  private reused = false;
  /** Some byte of the answer to the request now out has come. */
  private heard = false;
  /** The target took the connection (TLS included): what fails after that is no "cannot be reached". */
  private connected = false;
  /** The TCP connection was made (TLS may still be under way). */
  private tcpConnected = false;
  /** The client is still sending the request's body: no deadline for the answer yet. */
  private uploading = false;
  /** The connection, its TLS handshake and each answer's head are due by it. */
  private readonly deadline: AnswerDeadline;

  /** The idle timeout the socket has now: the answer timeout until an answer's head came, then the target timeout. */
  private timeoutMs: number;
  /** Reading is paused because the client takes the answer slower than it comes: silence is not the target's. */
  private paused = false;
  /** Interim answers to the request now out, and when the first came (0: none yet). */
  private interims = 0;
  private firstInterimAt = 0;
  /** The final answer ended in the bytes being read: what follows it in them is more than the answer. */
  private ended: AnswerEvents | undefined;
  private reading = false;
  /** Whether the connection may carry another request after the answer to this one. */
  private reuse: ReuseAfter = 'keep';
  /** The target said 100 Continue to the request now out. */
  private continued = false;

  constructor(
    private readonly route: UpstreamRoute,
    private readonly answerTimeoutMs: number,
    private readonly targetTimeoutMs: number,
  ) {
    const { secure } = route;
    this.socket = openConnection(route);
    this.socket.setNoDelay(true);
    // A deadline, not an idle timer: a target that trickles its handshake or its answer's head
    // byte by byte still answers 504 within the connect timeout.
    this.deadline = new AnswerDeadline(answerTimeoutMs, () => this.overdue());
    this.deadline.arm();
    if (secure) {
      this.socket.once('connect', () => {
        this.tcpConnected = true;
      });
      // TLS 1.2 tells its session during the handshake, before the certificate is verified.
      let session: Buffer | undefined;
      this.socket.on('session', (given: Buffer) => {
        if (this.connected) keepSession(route, given);
        else session = given;
      });
      this.socket.once('secureConnect', () => {
        if (session) keepSession(route, session);
      });
    }
    this.socket.once(secure ? 'secureConnect' : 'connect', () => {
      this.tcpConnected = true;
      this.connected = true;
      // While the client still sends the body, silences are timed by the idle timer alone.
      if (this.uploading) this.deadline.disarm();
    });
    // The socket's idle timer, changed only when the timeout it should have changes (each change
    // costs an allocation); whether a silence counts is decided when it fires.
    this.timeoutMs = answerTimeoutMs;
    this.socket.setTimeout(answerTimeoutMs);
    this.parser = new MessageParser('response', {
      begin: () => this.begin(),
      head: (head) => this.head(head),
      body: (chunk) => this.waiting?.body(chunk),
      end: () => this.end(),
    });
    this.socket.on('data', (chunk: Buffer) => {
      this.heard = true;
      this.reading = true;
      let error: string | undefined;
      try {
        error = this.parser.execute(chunk);
      } catch (thrown) {
        // Whatever goes wrong in handling an answer fails that exchange, never the proxy.
        this.reading = false;
        this.ended = undefined;
        this.fail({ kind: 'internal', message: (thrown as Error).message });
        return;
      }
      this.reading = false;
      // An answer that ended in these bytes is passed on once they are all read: bytes after it
      // (a body on a HEAD answer, more than its Content-Length) must not become the next answer.
      const ended = this.ended;
      this.ended = undefined;
      if (ended) {
        if (this.closed) this.socket.destroy();
        ended.end();
        return;
      }
      if (error === UNDECODED_CODING)
        this.fail({
          kind: 'invalid',
          reason: 'a Transfer-Encoding other than chunked, which the proxy does not decode',
        });
      else if (error) this.fail({ kind: 'malformed', code: error });
    });
    this.socket.on('end', () => {
      // A kept connection the target closed as a request went out on it: nothing of it was heard.
      if (this.waiting && this.reused && !this.heard) {
        this.lost('ECONNRESET');
        return;
      }
      // A body that runs to the end of the connection ends here; any other is cut off.
      const error = this.waiting ? this.parser.finish() : undefined;
      if (error) this.fail({ kind: 'broken', code: 'ECONNRESET' });
    });
    this.socket.on('timeout', () => {
      if (this.waiting && !this.answered) this.fail(timeoutOf(this.tcpConnected, this.connected));
      // Once it has begun to answer, a target may take its time between reads, up to the target
      // timeout (nginx's proxy_read_timeout), unless the proxy itself stopped reading.
      else if (this.waiting && !this.paused) this.fail({ kind: 'stalled' });
      else if (!this.waiting) this.destroy();
    });
    this.socket.on('error', (error: NodeJS.ErrnoException) => this.lost(error.code ?? error.message));
    this.socket.on('close', () => {
      this.closed = true;
      this.deadline.clear();
      this.parser.close();
      this.lost('ECONNRESET');
    });
  }

  /**
   * Whether the connection can carry another request: open, and idle for less than the target
   * said it keeps connections (less a second, so that the target does not close it just as a
   * request is on its way).
   */
  usable(): boolean {
    return !this.closed && (this.idleSince === 0 || performance.now() - this.idleSince < this.idleMs);
  }

  /**
   * Between exchanges: an answer was read to its end, no request is out, the connection reads on
   * and can carry another request (what another client connection may take, see target-pool.ts).
   */
  idle(): boolean {
    return this.idleSince !== 0 && !this.waiting && !this.ended && !this.paused && !this.surplus && this.usable();
  }

  /** Writes a request head; `events` hear its answer; `reuse` says whether the connection outlives it. */
  send(head: string, events: AnswerEvents, bodyFollows: boolean, reuse: ReuseAfter = 'keep'): void {
    this.waiting = events;
    this.uploading = bodyFollows;
    // The answer is due within the connect timeout of the request going out whole (see requestSent).
    // (A connection still being made keeps the deadline it was made with.)
    if (!bodyFollows) {
      if (this.connected || !this.deadline.armed) this.deadline.arm();
    } else if (this.connected) this.deadline.disarm();
    this.reuse = reuse;
    this.continued = false;
    this.answered = false;
    this.interims = 0;
    this.idleTimeout(this.answerTimeoutMs);
    this.reused = this.idleSince !== 0;
    this.heard = false;
    if (!bodyFollows) {
      this.socket.write(head, 'latin1');
      return;
    }
    // The head waits for the body bytes that came in the same read: one packet, not two.
    this.socket.cork();
    this.socket.write(head, 'latin1');
    process.nextTick(() => this.socket.uncork());
  }

  /** Writes body bytes (already framed); false when the caller should wait for `drain`. */
  write(...pieces: (Buffer | string)[]): boolean {
    if (this.closed) return true;
    if (pieces.length === 1) return this.socket.write(pieces[0] as Buffer | string, 'latin1');
    this.socket.cork();
    let flowing = true;
    for (const piece of pieces) flowing = this.socket.write(piece, 'latin1');
    this.socket.uncork();
    return flowing;
  }

  /** The request's body has gone whole: its answer's head is due within the connect timeout. */
  requestSent(): void {
    if (!this.uploading || !this.waiting || this.answered) return;
    this.uploading = false;
    this.deadline.arm();
  }

  /** The connection, its TLS handshake or the answer's head was not had by the deadline: 504. */
  private overdue(): void {
    if (!this.waiting) {
      this.destroy();
      return;
    }
    if (!this.answered) this.fail(timeoutOf(this.tcpConnected, this.connected));
  }

  onceDrained(resume: () => void): void {
    this.socket.once('drain', resume);
  }

  pause(): void {
    this.paused = true;
    this.socket.pause();
  }

  resume(): void {
    this.paused = false;
    this.socket.resume();
    // A timeout that fired while paused was let pass and does not fire again by itself.
    if (this.waiting) this.socket.setTimeout(this.timeoutMs);
  }

  private idleTimeout(ms: number): void {
    if (this.timeoutMs === ms) return;
    this.timeoutMs = ms;
    this.socket.setTimeout(ms);
  }

  destroy(): void {
    this.waiting = undefined;
    this.deadline.clear();
    this.socket.destroy();
  }

  /** More than an answer: bytes after one ended, or while no request was out. */
  private surplus = false;

  /** A message begins: unless a request is out and unanswered, the target sent more than its answers. */
  private begin(): void {
    if (this.ended || !this.waiting) {
      this.surplus = true;
      this.closeAfterAnswer();
    }
  }

  /** The connection carries no other request (what else it sends is dropped with it). */
  private closeAfterAnswer(): void {
    this.closed = true;
    if (!this.ended && !this.waiting) this.socket.destroy();
  }

  private head(head: MessageHead): boolean {
    const events = this.waiting;
    if (!events || this.surplus) return true;
    const problem = statusProblem(head.status, false);
    if (problem) {
      this.fail({ kind: 'invalid', reason: problem });
      return true;
    }
    if (head.status < 200) {
      // Interim answers do not stand for the final one: however many come, it is due within the
      // answer timeout of the first, and a target that sends them without end is cut off.
      const now = performance.now();
      if (this.interims === 0) this.firstInterimAt = now;
      this.interims += 1;
      if (this.interims > MAX_INTERIM) {
        this.fail({ kind: 'invalid', reason: `more than ${MAX_INTERIM} interim answers (1xx) before the final one` });
        return true;
      }
      if (now - this.firstInterimAt > this.answerTimeoutMs) {
        this.fail({ kind: 'timeout' });
        return true;
      }
      this.interim = true;
      if (head.status === 100) this.continued = true;
      events.interim(head);
      return true;
    }
    this.answered = true;
    this.deadline.disarm();
    this.idleTimeout(this.targetTimeoutMs);
    const hint = /timeout=(\d+)/i.exec(fieldValues(head.rawHeaders, 'keep-alive')[0] ?? '');
    if (hint) this.idleMs = Math.max(0, Number(hint[1]) * 1000 - 1000);
    // Closed after this answer, never given another request (connection-reuse.ts).
    if (!head.keepAlive || this.reuse === 'close' || (this.reuse === 'if-continued' && !this.continued))
      this.closed = true;
    return events.head(head);
  }

  private end(): void {
    if (this.interim) {
      this.interim = false;
      return;
    }
    if (this.surplus) return;
    const events = this.waiting;
    this.waiting = undefined;
    this.idleSince = performance.now();
    if (this.reading && events) {
      // Passed on once the rest of the bytes read is known to hold nothing more.
      this.ended = events;
      return;
    }
    if (this.closed) this.socket.destroy();
    events?.end();
  }

  /** The connection broke or closed: what that means depends on how far the answer had come. */
  private lost(code: string): void {
    this.fail(lossOf(code, this.route, this.answered, this.reused && !this.heard, this.connected));
  }

  private fail(failure: UpstreamFailure): void {
    this.deadline.clear();
    const events = this.waiting;
    this.waiting = undefined;
    this.closed = true;
    this.socket.destroy();
    events?.failed(failure);
  }
}
