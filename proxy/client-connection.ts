import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { isTextualMediaType } from '../src/validate/document.js';
import type { Exchange, Headers, Violation } from '../src/validate/exchange.js';
import { encodeTextLike, mediaType } from '../src/validate/exchange.js';
import { BodyTap, type TapOptions } from './body-tap.js';
import { type MessageHead, MessageParser } from './http-parser.js';
import {
  chunkFrame,
  fieldLines,
  fieldValues,
  forwardedFields,
  headerRecord,
  isChunked,
  LAST_CHUNK,
  statusLine,
} from './message-head.js';
import type { RecordedExchange } from './recorder.js';
import { rewriteLocation, rewriteTargetUrls } from './rewrite-urls.js';
import { type AnswerEvents, Upstream, type UpstreamFailure } from './upstream.js';

// One client connection of the proxy and the target connection paired with it. Requests are read
// off the socket with node's HTTP parser, checked, and written to the target with a new head;
// bodies pass through as the bytes they are while taps watch them. Exchanges on a connection are
// handled one after another: a pipelined request waits until the one before it is answered.

export interface ProxyContext {
  target: URL;
  targetBase: string;
  /** host:port of this proxy, for URLs in answers to requests that name no Host. */
  ownAuthority: string;
  hostAllowed(value: string | undefined): boolean;
  validateLimit: number;
  tapOptions: TapOptions;
  enforce: boolean;
  rewriteUrls: boolean;
  violationsHeader: boolean;
  clientTimeoutMs: number;
  answerTimeoutMs: number;
  judge(exchange: Exchange): Violation[];
  /** Writes the finished exchange to the tally, recording and log. */
  record(exchange: RecordedExchange, started: number): void;
  /** Counts an exchange in flight; the returned function says it is over. */
  begin(): () => void;
  stopping(): boolean;
  log(line: string): void;
}

export const VIOLATIONS_HEADER = 'print-conformance-violations';
/** With no client timeout, idle connections are still closed after this long, as node's http server does. */
const KEEP_ALIVE_MS = 5000;
/** A client that pipelines this many parser events ahead is read no further until caught up. */
const HELD_EVENTS_LIMIT = 256;

/** Path and query characters a URL parser leaves as they are. */
const PLAIN_REQUEST_TARGET = /^[A-Za-z0-9\-._~!$&()*+,;=:@/]*(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;
const REFUSED_PATH = '{"message":"print-conformance proxy: only paths of the target are forwarded"}';
const NOT_FORWARDED_TO_TARGET = new Set(['host']);
const NOT_FORWARDED_WITH_EXPECT = new Set(['host', 'expect']);
const NOT_ANSWERED = new Set(['content-length']);
const NOT_ANSWERED_WITH_LOCATION = new Set(['content-length', 'location']);
const KEPT_FOR_EMPTY_BODY = new Set<string>();
const KEPT_FOR_EMPTY_BODY_WITH_LOCATION = new Set(['location']);

export function describeViolations(violations: Violation[]): string {
  return [...new Set(violations.map((v) => `${v.rule} (${v.side})`))].join(', ');
}

interface Answer {
  status: number;
  statusText: string;
  rawHeaders: string[];
  headers: Headers;
  tap: BodyTap;
  location: string | undefined;
  /** Answers to HEAD, 204 and 304: no body, and the head's Content-Length describes another. */
  empty: boolean;
  declaredLength: number;
  encoded: boolean;
  /** Kept whole until it ends: judged before its head goes out, URLs rewritten. */
  buffered: Buffer[] | undefined;
  bufferedSize: number;
  /** Streaming to the client in chunks the proxy frames itself. */
  chunked: boolean;
}

interface Flight {
  exchange: RecordedExchange;
  started: number;
  head: MessageHead;
  headers: Headers;
  path: string;
  proxyBase: string;
  requestTap: BodyTap;
  /** The request body goes to the target in chunks (it came so, without a length). */
  chunked: boolean;
  /** Enforce mode: body bytes held back until the request is judged. */
  peeked: Buffer[] | undefined;
  peekLimit: number;
  peekedSize: number;
  /** The client sent "Expect: 100-continue" and the proxy answered it itself. */
  continued: boolean;
  /** Sent again on a new connection after a kept one closed under it. */
  resent: boolean;
  forwarded: boolean;
  /** The rest of the request body is read and dropped (it was refused, blocked or answered). */
  discarding: boolean;
  requestEnded: boolean;
  answer: Answer | undefined;
  /** The answer's head has gone to the client. */
  headSent: boolean;
  finished: boolean;
  /** The connection is closed once this exchange is over. */
  closeAfter: boolean;
  done: () => void;
}

export class ClientConnection {
  private readonly parser: MessageParser;
  private upstream: Upstream | undefined;
  private flight: Flight | undefined;
  /** Parser events of pipelined requests, waiting for the exchange before them. */
  private held: (() => void)[] | undefined;
  private ignoring = false;
  private closing = false;
  private clientEnded = false;
  private silent = false;
  /** The Host this connection's requests were last allowed for. */
  private allowedHost: string | undefined;
  /** Waiting for the target, or the client, to take more bytes. */
  private requestStalled = false;
  private answerStalled = false;
  private readonly idleMs: number;

  constructor(
    private readonly client: Socket,
    private readonly context: ProxyContext,
  ) {
    // One timer for the connection's life, set once: the client timeout, which is also how long
    // the connection may idle between requests. Whether a silence counts is decided when it fires.
    this.idleMs = context.clientTimeoutMs > 0 ? context.clientTimeoutMs : KEEP_ALIVE_MS;
    // Events are handled at once unless an exchange before them is still being answered.
    this.parser = new MessageParser('request', {
      head: (head) => {
        if (this.held) this.hold(() => this.requestHead(head));
        else this.requestHead(head);
        return false;
      },
      body: (chunk) => (this.held ? this.hold(() => this.requestBody(chunk)) : this.requestBody(chunk)),
      end: () => (this.held ? this.hold(() => this.requestEnd()) : this.requestEnd()),
    });
    client.setNoDelay(true);
    client.setTimeout(this.idleMs);
    client.on('data', (chunk: Buffer) => this.read(chunk));
    client.on('timeout', () => this.timedOut());
    client.on('end', () => this.ended());
    client.on('error', () => {});
    client.on('close', () => this.closed());
  }

  /** The proxy stops: an idle connection closes now, a busy one after its exchange. */
  stop(): void {
    this.closing = true;
    if (!this.flight) this.endClient();
  }

  /** The proxy stops and cannot wait any longer. */
  cutOff(): void {
    this.client.destroy();
  }

  private read(chunk: Buffer): void {
    if (this.ignoring) return;
    try {
      const error = this.parser.execute(chunk);
      if (error) this.malformed(error);
    } catch (error) {
      // Whatever goes wrong in handling a request fails that exchange, never the proxy.
      const message = `print-conformance proxy: ${(error as Error).message}`;
      this.context.log(message);
      if (this.flight && !this.flight.finished) this.fail(this.flight, 502, message);
      else this.client.destroy();
    }
  }

  private hold(event: () => void): void {
    const held = this.held ?? [];
    this.held = held;
    held.push(event);
    if (held.length > HELD_EVENTS_LIMIT) this.client.pause();
  }

  private requestHead(head: MessageHead): void {
    if (head.upgrade) {
      this.refuse(head.method === 'CONNECT' ? 405 : 501, '');
      return;
    }
    const headers = headerRecord(head.rawHeaders);
    const host = headers.host;
    if (host === undefined ? head.version !== '1.0' : fieldValues(head.rawHeaders, 'host').length > 1) {
      this.refuse(400, '{"message":"print-conformance proxy: a request needs exactly one Host"}');
      return;
    }
    // Only origin-form requests ("/path"): the proxy is no open proxy and reaches only its target.
    if (!head.url.startsWith('/') || head.url.startsWith('//')) {
      this.refuse(400, REFUSED_PATH);
      return;
    }
    // A connection keeps its Host from one request to the next: it is checked once.
    if (host !== this.allowedHost && !this.context.hostAllowed(host)) {
      this.context.log(`refused a request for Host ${JSON.stringify(host)}`);
      this.refuse(
        403,
        JSON.stringify({
          message: `print-conformance proxy: Host ${JSON.stringify(host)} is not a name of this proxy; allow it with --allowed-host`,
        }),
      );
      return;
    }
    this.allowedHost = host;
    const targetUrl = this.targetUrlOf(head.url);
    if (!targetUrl) {
      this.refuse(400, REFUSED_PATH);
      return;
    }

    const flight: Flight = {
      exchange: {
        id: randomUUID(),
        startedAt: new Date().toISOString(),
        request: { method: head.method, url: targetUrl.href, headers },
        violations: [],
      },
      started: performance.now(),
      head,
      headers,
      path: targetUrl.path,
      proxyBase: `http://${host ?? this.context.ownAuthority}/`,
      requestTap: new BodyTap(headers, this.context.tapOptions),
      chunked: isChunked(headers),
      peeked: undefined,
      peekLimit: 0,
      peekedSize: 0,
      continued: false,
      resent: false,
      forwarded: false,
      discarding: false,
      requestEnded: false,
      answer: undefined,
      headSent: false,
      finished: false,
      closeAfter: !head.keepAlive,
      done: this.context.begin(),
    };
    this.flight = flight;

    // In enforce mode a small JSON/XML/form or multipart head is read before anything is forwarded.
    if (this.context.enforce && head.method !== 'GET' && head.method !== 'HEAD') {
      const type = mediaType(headers['content-type']);
      flight.peekLimit =
        type === 'multipart/form-data' ? 64 * 1024 : isTextualMediaType(type) ? this.context.validateLimit : 0;
      if (flight.peekLimit > 0) {
        flight.peeked = [];
        if (/^100-continue$/i.test(headers.expect ?? '')) {
          flight.continued = true;
          this.client.write(`${statusLine(100)}\r\n`, 'latin1');
        }
        return;
      }
    }
    this.forward(flight);
  }

  /**
   * Where a request target leads on the target, or undefined when it would leave the target's
   * base path. Joined as text, never resolved as a relative URL: "/http://elsewhere/" must not
   * leave the target, and dot segments ("/../admin") must not climb out of its base path.
   */
  private targetUrlOf(requestTarget: string): { href: string; path: string } | undefined {
    const { target, targetBase } = this.context;
    const rest = requestTarget.slice(1);
    // Most request targets are plain: nothing in them a URL parser would change.
    if (PLAIN_REQUEST_TARGET.test(rest) && !DOT_SEGMENT.test(requestTarget))
      return { href: `${targetBase}${rest}`, path: `${target.pathname}${rest}` };
    const url = new URL(`${targetBase}${rest}`);
    if (url.origin !== target.origin || !url.pathname.startsWith(target.pathname)) return undefined;
    return { href: url.href, path: `${url.pathname}${url.search}` };
  }

  private requestBody(chunk: Buffer): void {
    const flight = this.flight;
    if (!flight || flight.discarding) return;
    flight.requestTap.push(chunk);
    if (flight.peeked) {
      flight.peeked.push(chunk);
      flight.peekedSize += chunk.length;
      if (flight.peekedSize > flight.peekLimit) this.judgePeeked(flight);
      return;
    }
    this.writeBody(flight, chunk);
  }

  private requestEnd(): void {
    const flight = this.flight;
    if (!flight) return;
    flight.requestEnded = true;
    if (flight.finished) {
      this.next(flight);
      return;
    }
    // Pipelined requests wait for this one's answer.
    this.held = [];
    if (flight.peeked) {
      this.judgePeeked(flight);
      return;
    }
    if (flight.forwarded) this.endBody(flight);
  }

  /** Enforce mode: the request's head and first bytes are judged; a must violation blocks it. */
  private judgePeeked(flight: Flight): void {
    const peeked = flight.peeked ?? [];
    flight.peeked = undefined;
    const previewTap = new BodyTap(flight.headers, this.context.tapOptions);
    for (const chunk of peeked) previewTap.push(chunk);
    const preview: Exchange = {
      request: { ...flight.exchange.request, body: previewTap.finish(flight.headers['content-encoding']) },
    };
    const blocking = this.context.judge(preview).filter((v) => v.side === 'request' && v.severity === 'must');
    if (blocking.length === 0) {
      this.forward(flight);
      for (const chunk of peeked) this.writeBody(flight, chunk);
      if (flight.requestEnded) this.endBody(flight);
      return;
    }
    const rules = [...new Set(blocking.map((v) => v.rule))];
    const body = JSON.stringify({
      message: `print-conformance blocked this request: it breaks ${rules.join(', ')}`,
      violations: blocking,
    });
    const status = rules.every((r) => r === 'upload.content-type') ? 415 : 400;
    const headers: Headers = {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      [VIOLATIONS_HEADER]: describeViolations(blocking),
    };
    flight.discarding = true;
    flight.exchange.request.body = preview.request.body;
    flight.exchange.response = { status, headers, body: { text: body, size: Buffer.byteLength(body) } };
    flight.exchange.violations = blocking;
    flight.exchange.blocked = true;
    this.answerItself(flight, status, headers, body);
    this.finish(flight);
  }

  private forward(flight: Flight): void {
    if (!this.upstream?.usable()) {
      this.upstream?.destroy();
      this.upstream = new Upstream(this.context.target, this.context.answerTimeoutMs);
    }
    flight.forwarded = true;
    const head = flight.head;
    let text = `${head.method} ${flight.path} HTTP/1.1\r\nhost: ${this.context.target.host}\r\n`;
    text += forwardedFields(head.rawHeaders, flight.continued ? NOT_FORWARDED_WITH_EXPECT : NOT_FORWARDED_TO_TARGET);
    // The proxy frames the body itself; codings before "chunked" (rare) stay in the bytes, so are named.
    if (flight.chunked) text += `transfer-encoding: ${flight.headers['transfer-encoding']}\r\n`;
    const bodyFollows = flight.chunked || (flight.headers['content-length'] ?? '0') !== '0';
    this.upstream.send(`${text}\r\n`, this.answerEvents(flight), bodyFollows);
  }

  private writeBody(flight: Flight, chunk: Buffer): void {
    const upstream = this.upstream;
    if (!upstream || flight.finished) return;
    const flowing = flight.chunked ? upstream.write(...chunkFrame(chunk)) : upstream.write(chunk);
    if (!flowing && !this.requestStalled) {
      // The target reads slower than the client sends: the client waits.
      this.requestStalled = true;
      this.client.pause();
      upstream.onceDrained(() => {
        this.requestStalled = false;
        this.client.resume();
      });
    }
  }

  private endBody(flight: Flight): void {
    if (flight.chunked && !flight.finished) this.upstream?.write(LAST_CHUNK);
  }

  private answerEvents(flight: Flight): AnswerEvents {
    return {
      interim: (head) => {
        if (flight.continued || flight.finished) return;
        this.client.write(
          `${statusLine(head.status, head.statusText)}${forwardedFields(head.rawHeaders, NOT_ANSWERED)}\r\n`,
          'latin1',
        );
      },
      head: (head) => this.answerHead(flight, head),
      body: (chunk) => this.answerBody(flight, chunk),
      end: () => this.answerEnd(flight),
      failed: (failure) => this.answerFailed(flight, failure),
    };
  }

  private answerHead(flight: Flight, head: MessageHead): boolean {
    if (flight.finished) return true;
    const headers = headerRecord(head.rawHeaders);
    const { context } = this;
    const location =
      context.rewriteUrls && headers.location !== undefined
        ? rewriteLocation(headers.location, context.targetBase, flight.proxyBase)
        : undefined;
    const empty = flight.head.method === 'HEAD' || head.status === 204 || head.status === 304;
    const declaredLength = headers['content-length'] === undefined ? Number.NaN : Number(headers['content-length']);
    const encoding = headers['content-encoding'];
    const answer: Answer = {
      status: head.status,
      statusText: head.statusText,
      rawHeaders: head.rawHeaders,
      headers,
      tap: new BodyTap(headers, context.tapOptions),
      location,
      empty,
      declaredLength,
      encoded: Boolean(encoding && encoding !== 'identity'),
      buffered: undefined,
      bufferedSize: 0,
      chunked: false,
    };
    flight.answer = answer;
    const bufferable =
      isTextualMediaType(mediaType(headers['content-type'])) &&
      (!Number.isFinite(declaredLength) || declaredLength <= context.validateLimit);
    if (empty) return true;
    if (bufferable) answer.buffered = [];
    else this.startStreaming(flight, answer);
    return false;
  }

  /** Binary or large: the answer streams through; the header can only name request-side findings. */
  private startStreaming(flight: Flight, answer: Answer): void {
    const extra: Record<string, string> = {};
    if (this.context.violationsHeader) {
      const early = this.context
        .judge({
          request: { ...flight.exchange.request, body: flight.requestTap.finish(flight.headers['content-encoding']) },
        })
        .filter((v) => v.severity !== 'observe');
      if (early.length > 0) extra[VIOLATIONS_HEADER] = describeViolations(early);
    }
    if (Number.isFinite(answer.declaredLength)) extra['content-length'] = String(answer.declaredLength);
    else if (flight.head.version === '1.0') flight.closeAfter = true;
    else {
      answer.chunked = true;
      const codings = answer.headers['transfer-encoding'];
      extra['transfer-encoding'] = codings !== undefined && isChunked(answer.headers) ? codings : 'chunked';
    }
    this.writeAnswerHead(flight, answer, extra);
  }

  private answerBody(flight: Flight, chunk: Buffer): void {
    const answer = flight.answer;
    if (!answer || flight.finished) return;
    answer.tap.push(chunk);
    if (answer.buffered) {
      answer.buffered.push(chunk);
      answer.bufferedSize += chunk.length;
      if (answer.bufferedSize <= this.context.validateLimit) return;
      // Larger than announced: passed on from here, unvalidated.
      const kept = answer.buffered;
      answer.buffered = undefined;
      this.startStreaming(flight, answer);
      for (const piece of kept) this.writeAnswerBody(answer, piece);
      return;
    }
    this.writeAnswerBody(answer, chunk);
  }

  private writeAnswerBody(answer: Answer, chunk: Buffer): void {
    const flowing = answer.chunked ? this.writeClient(...chunkFrame(chunk)) : this.client.write(chunk);
    if (!flowing && this.upstream && !this.answerStalled) {
      // The client reads slower than the target sends: the target waits.
      const upstream = this.upstream;
      this.answerStalled = true;
      upstream.pause();
      this.client.once('drain', () => {
        this.answerStalled = false;
        upstream.resume();
      });
    }
  }

  private answerEnd(flight: Flight): void {
    const answer = flight.answer;
    if (!answer || flight.finished) return;
    const { exchange } = flight;
    // A streamed answer is complete for the client before it is judged.
    if (!answer.buffered) {
      if (answer.chunked) this.client.write(LAST_CHUNK);
      if (answer.empty) this.writeAnswerHead(flight, answer, {});
    }
    exchange.request.body = flight.requestTap.finish(flight.headers['content-encoding']);
    // The tap kept a buffered answer too, and reads it as text once: judged, recorded and rewritten.
    const body = answer.tap.finish(answer.headers['content-encoding']);
    exchange.response = { status: answer.status, headers: answer.headers, body };
    exchange.violations = this.context.judge(exchange);
    if (!answer.buffered) {
      this.finish(flight);
      return;
    }
    let bytes = answer.buffered.length === 1 ? (answer.buffered[0] as Buffer) : Buffer.concat(answer.buffered);
    if (this.context.rewriteUrls && !answer.encoded) {
      const original = body.text ?? bytes.toString('utf8');
      const rewritten = rewriteTargetUrls(original, this.context.targetBase, flight.proxyBase);
      // Written back in the body's own encoding; a body that was not read faithfully is left alone.
      if (rewritten !== original) bytes = encodeTextLike(rewritten, bytes, original) ?? bytes;
    }
    const extra: Record<string, string> = { 'content-length': String(bytes.length) };
    const reportable = exchange.violations.filter((v) => v.severity !== 'observe');
    if (this.context.violationsHeader && reportable.length > 0)
      extra[VIOLATIONS_HEADER] = describeViolations(reportable);
    this.writeAnswerHead(flight, answer, extra, bytes);
    this.finish(flight);
  }

  private writeAnswerHead(flight: Flight, answer: Answer, extra: Record<string, string>, body?: Buffer): void {
    const dropped = answer.empty
      ? answer.location === undefined
        ? KEPT_FOR_EMPTY_BODY
        : KEPT_FOR_EMPTY_BODY_WITH_LOCATION
      : answer.location === undefined
        ? NOT_ANSWERED
        : NOT_ANSWERED_WITH_LOCATION;
    let text = statusLine(answer.status, answer.statusText) + forwardedFields(answer.rawHeaders, dropped);
    if (answer.location !== undefined) extra.location = answer.location;
    text += fieldLines(extra) + this.connectionFields(flight);
    flight.headSent = true;
    if (body) this.writeWhole(text, body);
    else this.client.write(text, 'latin1');
  }

  private connectionFields(flight: Flight): string {
    // A client that has ended its side still gets the requests it pipelined: the last one says close.
    const lastOfEnded = this.clientEnded && !(this.held && this.held.length > 0);
    if (flight.closeAfter || this.closing || lastOfEnded || this.context.stopping()) {
      flight.closeAfter = true;
      return 'connection: close\r\n\r\n';
    }
    return `connection: keep-alive\r\nkeep-alive: timeout=${Math.floor(this.idleMs / 1000)}\r\n\r\n`;
  }

  private answerFailed(flight: Flight, failure: UpstreamFailure): void {
    if (flight.finished) return;
    const { targetBase, answerTimeoutMs } = this.context;
    if (this.context.stopping()) {
      this.fail(flight, 503, 'the proxy stopped before the exchange completed');
    } else if (failure.kind === 'timeout') {
      this.fail(flight, 504, `the target ${targetBase} did not answer within ${answerTimeoutMs / 1000} s`);
    } else if (failure.kind === 'stale' && this.canResend(flight)) {
      flight.resent = true;
      this.upstream = undefined;
      this.forward(flight);
    } else if (failure.kind === 'stale') {
      this.fail(
        flight,
        502,
        `the target ${targetBase} closed a kept-alive connection before answering (${failure.code}); a request with a body or of a method that is not idempotent is not sent twice`,
      );
    } else if (failure.kind === 'unreachable') {
      this.fail(flight, 502, `the target ${targetBase} cannot be reached (${failure.code})`);
    } else if (failure.kind === 'malformed') {
      this.fail(flight, 502, `the target ${targetBase} sent no valid HTTP answer (${failure.code})`);
    } else if (failure.kind === 'internal') {
      this.fail(flight, 502, `print-conformance proxy: ${failure.message}`);
    } else {
      // Broken off: the client has had part of an answer, or waits on one that cannot come whole.
      flight.headSent = true;
      this.fail(flight, 502, 'the target broke off the answer');
    }
  }

  /**
   * Whether a request may go out again after a kept connection closed under it (RFC 9110 §9.2.2):
   * once, for an idempotent method without a body, which the proxy can send again whole.
   */
  private canResend(flight: Flight): boolean {
    const method = flight.head.method;
    const idempotent = method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || method === 'DELETE';
    const bodiless = !flight.chunked && (flight.headers['content-length'] ?? '0') === '0';
    return idempotent && bodiless && !flight.resent && !flight.continued;
  }

  /** The exchange cannot complete: it is recorded as failed, and the client told if it still can be. */
  private fail(flight: Flight, status: number, message: string): void {
    if (flight.finished) return;
    const { exchange } = flight;
    exchange.request.body = flight.requestTap.finish(flight.headers['content-encoding']);
    exchange.error = message;
    exchange.violations = this.context.judge(exchange);
    flight.discarding = true;
    flight.closeAfter = true;
    this.upstream?.destroy();
    this.upstream = undefined;
    if (!flight.headSent && !this.client.destroyed) {
      const body = JSON.stringify({ message: `print-conformance proxy: ${message}` });
      this.answerItself(flight, status, { 'content-type': 'application/json; charset=utf-8' }, body);
    } else this.client.destroy();
    this.finish(flight);
  }

  /** An answer of the proxy's own, written whole. */
  private answerItself(flight: Flight, status: number, headers: Headers, body: string): void {
    const bytes = Buffer.from(body);
    const fields = { ...headers, 'content-length': String(bytes.length) };
    flight.headSent = true;
    this.writeWhole(statusLine(status) + fieldLines(fields) + this.connectionFields(flight), bytes);
  }

  private finish(flight: Flight): void {
    if (flight.finished) return;
    flight.finished = true;
    flight.discarding = true;
    if (!flight.requestEnded && flight.forwarded) {
      // The target has not had the whole request: its connection cannot carry another one.
      this.upstream?.destroy();
      this.upstream = undefined;
    }
    this.context.record(flight.exchange, flight.started);
    flight.done();
    if (flight.requestEnded) this.next(flight);
    else if (flight.closeAfter) {
      this.flight = undefined;
      this.endClient();
    }
    // Else the rest of the request body is read and dropped before the next request.
  }

  /** The exchange is over on both sides: the connection closes or goes on with the next request. */
  private next(flight: Flight): void {
    if (this.flight !== flight) return;
    this.flight = undefined;
    if (flight.closeAfter || this.closing) {
      this.endClient();
      return;
    }
    const held = this.held ?? [];
    this.held = undefined;
    for (let index = 0; index < held.length; index += 1) {
      if (this.held) {
        (this.held as (() => void)[]).push(...held.slice(index));
        return;
      }
      (held[index] as () => void)();
    }
    if (this.clientEnded) {
      // Nothing more will come: a request left unfinished is broken off; with none, the connection ends.
      // (Replaying the held events may have started a new exchange.)
      const pending = this.flight as Flight | undefined;
      if (!pending) this.endClient();
      else if (!pending.requestEnded) this.fail(pending, 499, 'the client broke off the request');
      return;
    }
    this.client.resume();
  }

  /** A request the proxy does not forward: answered at once, and the connection closed. */
  private refuse(status: number, body: string): void {
    this.ignoring = true;
    const bytes = Buffer.from(body);
    const fields: Record<string, string> = { 'content-length': String(bytes.length) };
    if (body) fields['content-type'] = 'application/json';
    this.writeClient(`${statusLine(status)}${fieldLines(fields)}connection: close\r\n\r\n`, bytes);
    this.endClient();
  }

  private malformed(code: string): void {
    this.ignoring = true;
    const message = `the client sent no valid HTTP request (${code})`;
    if (this.flight && !this.flight.finished) {
      this.fail(this.flight, 400, message);
      return;
    }
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    this.writeClient(`${statusLine(status)}content-length: 0\r\nconnection: close\r\n\r\n`);
    this.endClient();
  }

  private timedOut(): void {
    const flight = this.flight;
    if (flight && !flight.finished) {
      // Waiting for the target is the answer timeout's business, not the client's.
      if (flight.requestEnded) return;
      // Without a client timeout, a client sending its request is never cut off.
      if (this.context.clientTimeoutMs === 0) return;
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
    if (!flight.requestEnded) this.fail(flight, 499, 'the client broke off the request');
    // Else the answer still comes, and the connection closes after it.
  }

  private closed(): void {
    const flight = this.flight;
    if (flight && !flight.finished) {
      if (this.context.stopping()) this.fail(flight, 503, 'the proxy stopped before the exchange completed');
      else if (this.silent)
        this.fail(flight, 408, `the client sent nothing for ${this.context.clientTimeoutMs / 1000} s`);
      else this.fail(flight, 499, 'the client broke off the request');
    }
    this.flight = undefined;
    this.upstream?.destroy();
    this.parser.close();
  }

  private endClient(): void {
    this.ignoring = true;
    // Read on, so that the client's own end is seen and the socket closes.
    this.client.resume();
    this.client.end();
  }

  /** A head and a whole body in one buffer and one write: cheaper than a corked pair of writes. */
  private writeWhole(head: string, body: Buffer): void {
    if (this.client.destroyed) return;
    const bytes = Buffer.allocUnsafe(head.length + body.length);
    bytes.write(head, 0, 'latin1');
    body.copy(bytes, head.length);
    this.client.write(bytes);
  }

  private writeClient(...pieces: (Buffer | string)[]): boolean {
    if (this.client.destroyed) return true;
    this.client.cork();
    let flowing = true;
    for (const piece of pieces) flowing = this.client.write(piece, 'latin1');
    this.client.uncork();
    return flowing;
  }
}
