import type { Socket } from 'node:net';
import { encodeTextLike } from '../src/validate/exchange.js';
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
import { rewriteLocation, rewriteTargetUrls } from './rewrite-urls.js';
import { writeClient, writeWhole } from './socket-writes.js';
import type { AnswerEvents, Upstream, UpstreamFailure } from './upstream.js';

// The target's answer on its way back to the client: small JSON/XML answers are held whole,
// judged and written with the verdict in a header; the rest streams through while a tap watches.

export interface RelayHost {
  readonly client: Socket;
  readonly context: ProxyContext;
  upstream(): Upstream | undefined;
  /** The Connection fields (and the head's end) for this exchange's answer. */
  connectionFields(flight: Flight): string;
  finish(flight: Flight): void;
  failed(flight: Flight, failure: UpstreamFailure): void;
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
        if (flight.continued || flight.finished) return;
        this.host.client.write(
          `${statusLine(head.status, head.statusText)}${forwardedFields(head.rawHeaders, NOT_ANSWERED)}\r\n`,
          'latin1',
        );
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
      declaredLength: plan.declaredLength,
      encoded: plan.encoded,
      buffered: undefined,
      bufferedSize: 0,
      chunked: false,
    };
    flight.answer = answer;
    if (plan.empty) return true;
    if (plan.bufferable) answer.buffered = [];
    else this.startStreaming(flight, answer);
    return false;
  }

  /** Binary or large: the answer streams through; the header can only name request-side findings. */
  private startStreaming(flight: Flight, answer: Answer): void {
    const { context } = this.host;
    const extra: Record<string, string> = {};
    if (context.violationsHeader) {
      const early = context
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
    this.writeHead(flight, answer, extra);
  }

  private body(flight: Flight, chunk: Buffer): void {
    const answer = flight.answer;
    if (!answer || flight.finished) return;
    answer.tap.push(chunk);
    if (answer.buffered) {
      answer.buffered.push(chunk);
      answer.bufferedSize += chunk.length;
      if (answer.bufferedSize <= this.host.context.validateLimit && !answer.tap.overBudget) return;
      // Larger than announced, or more than the memory budget allows: passed on from here, unvalidated.
      const kept = answer.buffered;
      answer.buffered = undefined;
      this.startStreaming(flight, answer);
      for (const piece of kept) this.writeBody(answer, piece);
      return;
    }
    this.writeBody(answer, chunk);
  }

  private writeBody(answer: Answer, chunk: Buffer): void {
    const { client } = this.host;
    const flowing = answer.chunked ? writeClient(client, ...chunkFrame(chunk)) : client.write(chunk);
    const upstream = this.host.upstream();
    if (!flowing && upstream && !this.stalled) {
      // The client reads slower than the target sends: the target waits.
      this.stalled = true;
      upstream.pause();
      client.once('drain', () => {
        this.stalled = false;
        upstream.resume();
      });
    }
  }

  private end(flight: Flight): void {
    const answer = flight.answer;
    if (!answer || flight.finished) return;
    const { exchange } = flight;
    const { client, context } = this.host;
    // A streamed answer is complete for the client before it is judged.
    if (!answer.buffered) {
      if (answer.chunked) client.write(LAST_CHUNK);
      if (answer.empty) this.writeHead(flight, answer, {});
    }
    exchange.request.body = flight.requestTap.finish(flight.headers['content-encoding']);
    // The tap kept a buffered answer too, and reads it as text once: judged, recorded and rewritten.
    const body = answer.tap.finish(answer.headers['content-encoding']);
    exchange.response = { status: answer.status, headers: answer.headers, body };
    exchange.violations = context.judge(exchange);
    if (!answer.buffered) {
      this.host.finish(flight);
      return;
    }
    let bytes = answer.buffered.length === 1 ? (answer.buffered[0] as Buffer) : Buffer.concat(answer.buffered);
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
    this.host.finish(flight);
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
