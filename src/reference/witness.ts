import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClientIdentity } from '../control/client-identity.js';
import type { ExchangeFeed } from '../control/exchange-feed.js';
import type { TestVerdicts } from '../control/test-verdicts.js';
import { summariseExchange } from '../http/exchange-summary.js';
import type { OperationsMetrics } from '../operations/metrics.js';
import { sessionRedaction } from '../redaction/index.js';
import type { ClientTally } from '../validate/client-tally.js';
import { isTextualMediaType } from '../validate/document.js';
import {
  decodeText,
  type Exchange,
  type Headers,
  mediaType,
  type RecordedBody,
  type Violation,
} from '../validate/exchange.js';
import { Tally } from '../validate/tally.js';
import { judgeTraffic, TrafficState } from '../validate/traffic.js';

// serve as a client team's test double judges its clients too: each exchange it answers is built
// as the proxy records one (the request as read, the answer as written, redacted), judged by the
// same core, and handed to the control API's feed and the client tests' verdicts. Bodies are seen
// where the service reads and writes them; uploads by their size, digest and first bytes.

/** Answers held for judging up to this size; past it the answer's body is not judged. */
const ANSWER_LIMIT = 8 * 1024 * 1024;
/** Request bodies of a textual type held whole up to this size; files are kept by size, digest and first bytes. */
const REQUEST_TEXT_LIMIT = 8 * 1024 * 1024;
const KEPT_HEAD = 64;

/**
 * A request's body as it comes off the connection, whoever reads it and whether or not anyone does
 * (an answer given before reading, a 404 that drains it): the parser pushes every chunk.
 */
class RequestBodyTap {
  private readonly chunks: Buffer[] = [];
  private readonly hash = createHash('sha256');
  private head = Buffer.alloc(0);
  size = 0;

  constructor(
    request: IncomingMessage,
    private readonly textual: boolean,
  ) {
    const push = request.push.bind(request) as (chunk: unknown, encoding?: BufferEncoding) => boolean;
    request.push = ((chunk: unknown, encoding?: BufferEncoding) => {
      if (Buffer.isBuffer(chunk)) this.take(chunk);
      return push(chunk, encoding);
    }) as IncomingMessage['push'];
  }

  private take(chunk: Buffer): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    if (this.head.length < KEPT_HEAD) this.head = Buffer.concat([this.head, chunk.subarray(0, KEPT_HEAD)]);
    if (this.textual && this.size <= REQUEST_TEXT_LIMIT) this.chunks.push(chunk);
  }

  body(contentType: string | undefined): RecordedBody | undefined {
    if (this.size === 0) return undefined;
    if (this.textual && this.size <= REQUEST_TEXT_LIMIT) return textBody(Buffer.concat(this.chunks), contentType);
    return {
      size: this.size,
      sha256: this.hash.digest('hex'),
      headBase64: this.head.subarray(0, KEPT_HEAD).toString('base64'),
      ...(this.textual ? { skipped: 'too large to judge' } : {}),
    };
  }
}

function unfinishedBody(size: number, declared: string | undefined): RecordedBody {
  const of = declared === undefined ? '' : ` of ${declared}`;
  return { size, skipped: `not validated: the client did not finish the body (${size}${of} bytes came)` };
}

const noted = new WeakMap<IncomingMessage, RecordedBody>();

/** The request's body as the service read it, for judging (no-op unless a witness watches). */
export function noteRequestBody(request: IncomingMessage, body: RecordedBody): void {
  noted.set(request, body);
}

/** A small body read whole: its text as a recording holds it. */
export function textBody(bytes: Buffer, contentType: string | undefined): RecordedBody {
  return { text: decodeText(bytes, contentType), size: bytes.length };
}

function headersOf(raw: NodeJS.Dict<string | string[] | number>): Headers {
  const headers: Headers = Object.create(null);
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

export class ServiceWitness {
  private readonly state: TrafficState;
  private readonly redact = sessionRedaction({ headers: [], members: [] });
  /** The session's tally, as the proxy keeps one: the control API's verdicts so far. */
  readonly tally = new Tally({
    summarise: (exchange, violation) => summariseExchange(this.redact.exchange(exchange), [], [], violation),
  });

  constructor(
    private readonly publicBase: string,
    private readonly feed: ExchangeFeed,
    private readonly tests: TestVerdicts,
    private readonly testOf: (headers: Headers) => string | undefined,
    private readonly metrics?: OperationsMetrics,
    /** --clients-by: who each exchange's client is, and the tally keyed by client. */
    private readonly clients?: { identity: ClientIdentity; tally: ClientTally },
  ) {
    this.state = new TrafficState(publicBase);
  }

  /** Watches one request and its answer; judges them when the answer is written. */
  watch(request: IncomingMessage, response: ServerResponse): void {
    const contentType = request.headers['content-type'];
    const type = mediaType(contentType);
    const tap = new RequestBodyTap(
      request,
      type !== undefined && isTextualMediaType(type) && type !== 'multipart/form-data',
    );
    const startedAt = new Date().toISOString();
    const started = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const bytes = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += bytes.length;
      if (size <= ANSWER_LIMIT) chunks.push(bytes);
    };
    // Headers given to writeHead are not in getHeaders(): they are kept as they go out.
    let written: Headers = Object.create(null);
    const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
    let headMs: number | undefined;
    response.writeHead = ((status: number, ...rest: unknown[]) => {
      headMs ??= Math.round(performance.now() - started);
      const fields = rest.find((value) => typeof value === 'object' && value !== null);
      if (Array.isArray(fields)) {
        for (let index = 0; index + 1 < fields.length; index += 2)
          written[String(fields[index]).toLowerCase()] = String(fields[index + 1]);
      } else if (fields) written = headersOf(fields as NodeJS.Dict<string | string[] | number>);
      return writeHead(status, ...rest);
    }) as ServerResponse['writeHead'];
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    response.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return end(chunk, ...rest);
    }) as ServerResponse['end'];
    let judged = false;
    const judgeOnce = () => {
      if (judged) return;
      judged = true;
      try {
        // A multipart upload is known by its parts as the service read them; anything else by its
        // bytes. A body the client did not finish is no document and no file: its rules stay untested.
        const body = !request.complete
          ? unfinishedBody(tap.size, request.headers['content-length'])
          : noted.get(request)?.parts
            ? noted.get(request)
            : tap.body(contentType);
        this.judge(request, response, written, body, {
          startedAt,
          durationMs: Math.round(performance.now() - started),
          headMs,
          chunks,
          size,
        });
      } catch {
        // A witness that cannot judge an exchange leaves it out; the service has answered it.
      }
    };
    // Judged once both are over: an answer may go out before the request's body has all come.
    response.once('finish', () => {
      if (request.complete || request.destroyed) judgeOnce();
      else {
        request.once('end', judgeOnce);
        // A request whose answer has gone out hears nothing of its connection closing: the socket does.
        const brokenOff = () => {
          if (!request.complete) judgeOnce();
        };
        request.once('close', brokenOff);
        request.socket?.once('close', brokenOff);
      }
    });
  }

  private judge(
    request: IncomingMessage,
    response: ServerResponse,
    written: Headers,
    requestBody: RecordedBody | undefined,
    answer: { startedAt: string; durationMs: number; headMs: number | undefined; chunks: Buffer[]; size: number },
  ): void {
    const requestHeaders = headersOf(request.headers);
    const responseHeaders = { ...headersOf(response.getHeaders()), ...written };
    const base = new URL(this.publicBase);
    const url = new URL(request.url ?? '/', base.origin).href;
    const bytes = Buffer.concat(answer.chunks);
    const responseBody: RecordedBody | undefined =
      answer.size === 0
        ? undefined
        : answer.size > ANSWER_LIMIT
          ? { size: answer.size, skipped: 'too large to judge' }
          : textBody(bytes, responseHeaders['content-type']);
    const exchange: Exchange & { violations: Violation[] } = {
      startedAt: answer.startedAt,
      durationMs: answer.durationMs,
      ...(answer.headMs === undefined ? {} : { headMs: answer.headMs }),
      request: { method: request.method ?? 'GET', url, headers: requestHeaders, body: requestBody },
      response: { status: response.statusCode, headers: responseHeaders, body: responseBody },
      violations: [],
    };
    const test = this.testOf(requestHeaders);
    const client = this.clients?.identity.of(requestHeaders);
    if (client !== undefined) (exchange as { client?: string }).client = client;
    // A token call names its client, and the token it hands out is that client's: read before redaction.
    this.clients?.identity.learn(exchange);
    const sorted = judgeTraffic(exchange, this.state);
    const violations = sorted.judgement ? this.redact.findings(sorted.judgement.violations) : [];
    exchange.violations = violations;
    if (sorted.scope.kind === 'outside') this.tally.outside(sorted.scope.reason);
    else if (sorted.scope.kind === 'order') this.tally.order();
    else if (sorted.judgement) this.tally.record(exchange, { ...sorted.judgement, violations });
    const redacted = this.redact.exchange(exchange) as typeof exchange;
    this.feed.push({ ...redacted, violations }, sorted.judgement !== undefined, test);
    if (test !== undefined) this.tests.record(test, sorted.judgement !== undefined, violations);
    if (this.metrics) {
      const shown = violations.filter((violation) => violation.severity !== 'observe');
      this.metrics.exchange(sorted.judgement ? (shown.length > 0 ? 'broken' : 'clean') : 'not judged', shown, client);
      if (answer.headMs !== undefined)
        this.metrics.answered(exchange.request.method, url, this.publicBase, answer.headMs);
    }
    const named = (exchange as { client?: string }).client;
    if (this.clients && named !== undefined)
      this.clients.tally.record(named, sorted.judgement !== undefined, violations);
  }
}
