import type { Socket } from 'node:net';
import { isTextualMediaType } from '../src/validate/document.js';
import { encodeTextLike, mediaType } from '../src/validate/exchange.js';
import { answerPlan } from './answer-checks.js';
import { BodyTap } from './body-tap.js';
import type { Answer, Flight } from './flight.js';
import type { MessageHead } from './http-parser.js';
import {
  chunkFrame,
  fieldLines,
  forwardedFields,
  headerRecord,
  isChunked,
  LAST_CHUNK,
  statusLine,
} from './message-head.js';
import { describeViolations, type ProxyContext, VIOLATIONS_HEADER } from './proxy-context.js';
import { requestBodySoFar } from './request-body.js';
import { rewriteLocation, rewriteTargetUrls, StreamingUrlRewriter } from './rewrite-urls.js';
import { writeClient, writeWhole } from './socket-writes.js';
import type { AnswerEvents, Upstream } from './upstream.js';
import type { UpstreamFailure } from './upstream-failure.js';

// The target's answer on its way back to the client: small JSON/XML answers are held whole,
// judged and written with the verdict in a header; the rest streams through while a tap watches.

export interface RelayHost {
  readonly client: Socket;
  readonly context: ProxyContext;
  upstream(): Upstream | undefined;
  /** The Connection fields (and the head's end) for this exchange's answer. */
  connectionFields(flight: Flight): string;
  /** The answer has gone to the client whole: the exchange ends once the request has too. */
  answered(flight: Flight): void;
  failed(flight: Flight, failure: UpstreamFailure): void;
  /** `bytes` written to the client wait in its socket until it reads them: charged to the memory budget until then. */
  heldUntilRead(bytes: number): void;
}

const NOT_ANSWERED = new Set(['content-length']);
const NOT_ANSWERED_WITH_LOCATION = new Set(['content-length', 'location']);
const KEPT_FOR_EMPTY_BODY = new Set<string>();
const KEPT_FOR_EMPTY_BODY_WITH_LOCATION = new Set(['location']);

export class AnswerRelay {
  /** Waiting for the client to take more bytes. */
  private stalled = false;

  constructor(private readonly host: RelayHost) {}

  events(flight: Flight): AnswerEvents {
    return {
      interim: (head) => {
        // An HTTP/1.0 client knows no interim answers (RFC 9110 §15.2).
        if (flight.continued || flight.finished || flight.head.version === '1.0') return;
        const flowing = this.host.client.write(
          `${statusLine(head.status, head.statusText)}${forwardedFields(head.rawHeaders, NOT_ANSWERED)}\r\n`,
          'latin1',
        );
        // A client that does not read them holds the target back, as a body it does not read does.
        if (!flowing) this.holdTarget();
      },
      head: (head) => this.head(flight, head),
      body: (chunk) => this.body(flight, chunk),
      end: () => this.end(flight),
      failed: (failure) => this.host.failed(flight, failure),
    };
  }

  private head(flight: Flight, head: MessageHead): boolean {
    if (flight.finished) return true;
    const headers = headerRecord(head.rawHeaders);
    const { context } = this.host;
    const location =
      context.rewriteUrls && headers.location !== undefined
        ? rewriteLocation(headers.location, context.targetBase, flight.proxyBase)
        : undefined;
    const plan = answerPlan(flight.head.method, head.status, headers, context.validateLimit);
    const answer: Answer = {
      status: head.status,
      statusText: head.statusText,
      rawHeaders: head.rawHeaders,
      headers,
      tap: new BodyTap(headers, context.tapOptions),
      location,
      empty: plan.empty,
      declaredLength: head.framing.kind === 'length' ? head.framing.length : Number.NaN,
      encoded: plan.encoded,
      buffered: false,
      chunked: false,
    };
    flight.answer = answer;
    flight.exchange.headMs = Math.round(performance.now() - flight.started);
    if (plan.empty) return true;
    if (plan.bufferable) {
      answer.buffered = true;
      // Held by its tap: what it held is passed on should it grow too large to hold.
      answer.tap.passesOnDropped = true;
      answer.tap.forwardsHeld = true;
    } else this.startStreaming(flight, answer);
    return false;
  }

  /** Binary or large: the answer streams through; the header can only name request-side findings. */
  private startStreaming(flight: Flight, answer: Answer): void {
    const { context } = this.host;
    const extra: Record<string, string> = {};
    if (context.violationsHeader) {
      const early = context
        .judge({ request: { ...flight.exchange.request, body: requestBodySoFar(flight) } })
        .filter((v) => v.severity !== 'observe');
      if (early.length > 0) extra[VIOLATIONS_HEADER] = describeViolations(early);
    }
    // A text answer too large to hold still has its URLs rewritten, as it streams: a client that
    // follows them must stay behind the proxy whatever --validate-limit says. Its length then
    // changes, so it goes out in chunks (to HTTP/1.0 clients, until the connection closes).
    if (context.rewriteUrls && !answer.encoded && isTextualMediaType(mediaType(answer.headers['content-type'])))
      answer.rewriter = new StreamingUrlRewriter(context.targetBase, flight.proxyBase);
    if (Number.isFinite(answer.declaredLength) && !answer.rewriter)
      extra['content-length'] = String(answer.declaredLength);
    else if (flight.head.version === '1.0') flight.closeAfter = true;
    else {
      answer.chunked = true;
      const codings = answer.headers['transfer-encoding'];
      extra['transfer-encoding'] = codings !== undefined && isChunked(answer.headers) ? codings : 'chunked';
    }
    this.writeHead(flight, answer, extra);
  }

  private body(flight: Flight, chunk: Buffer): void {
    const answer = flight.answer;
    if (!answer || flight.finished) return;
    answer.tap.push(chunk);
    if (answer.buffered) {
      // Its tap holds it, until it is larger than announced or than the memory budget allows:
      // then it is passed on from here, unvalidated.
      if (answer.tap.keeping) return;
      answer.buffered = false;
      this.startStreaming(flight, answer);
      for (const piece of answer.tap.takeDropped()) this.writeBody(answer, piece);
    }
    this.writeBody(answer, chunk);
  }

  private writeBody(answer: Answer, piece: Buffer): void {
    this.writeFramed(answer, answer.rewriter ? answer.rewriter.push(piece) : piece);
  }

  private writeFramed(answer: Answer, chunk: Buffer): void {
    // An empty chunk would end a chunked body: a rewriter may keep a whole piece back.
    if (chunk.length === 0) return;
    const { client } = this.host;
    const flowing = answer.chunked ? writeClient(client, ...chunkFrame(chunk)) : client.write(chunk);
    if (!flowing) this.holdTarget();
  }

  /** The client reads slower than the target sends: the target waits until it has read. */
  private holdTarget(): void {
    const upstream = this.host.upstream();
    if (!upstream || this.stalled) return;
    this.stalled = true;
    upstream.pause();
    this.host.client.once('drain', () => {
      this.stalled = false;
      upstream.resume();
    });
  }

  private end(flight: Flight): void {
    const answer = flight.answer;
    if (!answer || flight.finished) return;
    const { exchange } = flight;
    const { client, context } = this.host;
    // A streamed answer is complete for the client before it is judged.
    if (!answer.buffered) {
      if (answer.rewriter) this.writeFramed(answer, answer.rewriter.end());
      if (answer.chunked) client.write(LAST_CHUNK);
      if (answer.empty) this.writeHead(flight, answer, {});
    }
    // An answer given before the request's body had all come (a 401, a 404 given without reading
    // it) is judged here for its header only: the exchange is judged again once the body is whole.
    exchange.request.body = requestBodySoFar(flight);
    // The tap kept a buffered answer too, and reads it as text once: judged, recorded and rewritten.
    const body = answer.tap.finish(answer.headers['content-encoding']);
    exchange.response = { status: answer.status, headers: answer.headers, body };
    exchange.violations = context.judge(exchange);
    if (!answer.buffered) {
      this.host.answered(flight);
      return;
    }
    // Read whole by the tap: one piece now.
    let bytes = answer.tap.held()[0] ?? Buffer.alloc(0);
    if (context.rewriteUrls && !answer.encoded) {
      const original = body.text ?? bytes.toString('utf8');
      const rewritten = rewriteTargetUrls(original, context.targetBase, flight.proxyBase);
      // Written back in the body's own encoding; a body that was not read faithfully is left alone.
      if (rewritten !== original) bytes = encodeTextLike(rewritten, bytes, original) ?? bytes;
    }
    const extra: Record<string, string> = { 'content-length': String(bytes.length) };
    const reportable = exchange.violations.filter((v) => v.severity !== 'observe');
    if (context.violationsHeader && reportable.length > 0) extra[VIOLATIONS_HEADER] = describeViolations(reportable);
    this.writeHead(flight, answer, extra, bytes);
    // Until the client has read it, the answer is held in its socket: it stays charged to the budget.
    this.host.heldUntilRead(bytes.length);
    this.host.answered(flight);
  }

  private writeHead(flight: Flight, answer: Answer, extra: Record<string, string>, body?: Buffer): void {
    const dropped = answer.empty
      ? answer.location === undefined
        ? KEPT_FOR_EMPTY_BODY
        : KEPT_FOR_EMPTY_BODY_WITH_LOCATION
      : answer.location === undefined
        ? NOT_ANSWERED
        : NOT_ANSWERED_WITH_LOCATION;
    let text = statusLine(answer.status, answer.statusText) + forwardedFields(answer.rawHeaders, dropped);
    if (answer.location !== undefined) extra.location = answer.location;
    text += fieldLines(extra) + this.host.connectionFields(flight);
    flight.headSent = true;
    if (body) writeWhole(this.host.client, text, body);
    else this.host.client.write(text, 'latin1');
  }
}
