import { createHash } from 'node:crypto';
import { isTextualMediaType } from '../validate/document.js';
import { decodeText, type Exchange, type Headers, mediaType, type RecordedBody } from '../validate/exchange.js';
import type { Violation } from '../validate/index.js';
import { judgeTraffic, TrafficState } from '../validate/traffic.js';

// An exchange from a JavaScript test, judged by the one core: a fetch Request and the Response it
// got, or an exchange in the recorded shape. A judge keeps what a session teaches (the URLs an
// order gave, a checkout's set-up for the GET after it) from one exchange to the next.

/** What a test hands over: a fetch pair, or an exchange as the proxy records one. */
export type ExchangeLike = { request: Request; response: Response } | Exchange;

export interface PairJudgement {
  /** Whether a rule judged it (an exchange of the interface); orders and other paths are not. */
  judged: boolean;
  /** Why it was not judged, when it was not. */
  why?: string;
  violations: Violation[];
  exchange: Exchange;
}

const KEPT_HEAD = 64;

function headersOf(headers: globalThis.Headers): Headers {
  const record: Headers = Object.create(null);
  headers.forEach((value, name) => {
    record[name.toLowerCase()] = value;
  });
  return record;
}

async function bodyOf(message: Request | Response, contentType: string | undefined): Promise<RecordedBody | undefined> {
  if (message.body === null) return undefined;
  if (message.bodyUsed) return { size: 0, skipped: 'its body was read before it was judged: judge a clone()' };
  const bytes = Buffer.from(await message.clone().arrayBuffer());
  if (bytes.length === 0) return undefined;
  const type = mediaType(contentType);
  if (type === undefined || isTextualMediaType(type))
    return { text: decodeText(bytes, contentType), size: bytes.length };
  return {
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    headBase64: bytes.subarray(0, KEPT_HEAD).toString('base64'),
  };
}

function isFetchPair(value: ExchangeLike): value is { request: Request; response: Response } {
  return (
    typeof Request !== 'undefined' &&
    value.request instanceof Request &&
    (value as { response?: unknown }).response instanceof Response
  );
}

/** The recorded shape of a fetch pair (bodies read from clones: the test may still read them). */
export async function exchangeOf(value: ExchangeLike): Promise<Exchange> {
  if (!isFetchPair(value)) return value;
  const { request, response } = value;
  const requestHeaders = headersOf(request.headers);
  const responseHeaders = headersOf(response.headers);
  return {
    request: {
      method: request.method,
      url: request.url,
      headers: requestHeaders,
      body: await bodyOf(request, requestHeaders['content-type']),
    },
    response: {
      status: response.status,
      headers: responseHeaders,
      body: await bodyOf(response, responseHeaders['content-type']),
    },
  };
}

export class Judge {
  private readonly state: TrafficState;

  /** `baseUrl`: the service's base (where orders, checkout and files live), when known. */
  constructor(baseUrl?: string) {
    this.state = new TrafficState(baseUrl);
  }

  async judge(value: ExchangeLike): Promise<PairJudgement> {
    const exchange = await exchangeOf(value);
    const sorted = judgeTraffic(exchange, this.state);
    if (!sorted.judgement) {
      const why =
        sorted.scope.kind === 'order'
          ? 'an order answer: read for the URLs it gives, judged by no rule'
          : `not an exchange of the interface (${sorted.scope.kind === 'outside' ? sorted.scope.reason : 'unknown'})`;
      return { judged: false, why, violations: [], exchange };
    }
    return { judged: true, violations: sorted.judgement.violations, exchange };
  }
}
