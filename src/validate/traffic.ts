import { checkGivenUrl } from './client-urls.js';
import { type Document, formatOfMediaType, readDocument, sniffFormat } from './document.js';
import { bodyText, type Exchange, header, mediaType, type RecordedResponse } from './exchange.js';
import { baseOfGivenUrl, GivenUrls, givenUrlsOf } from './given-urls.js';
import { type Judgement, judgeExchange, judgeMisaddressed } from './index.js';
import { answersOnly, isRefusalProbe } from './probe-refusal.js';
import { type Scope, ServiceBase } from './scope.js';
import { CheckoutState } from './state.js';

// Traffic (the proxy's, a recording's) holds more than the interface: it is sorted first, order
// answers teach the URLs a client must use, and only the interface is judged.

export class TrafficState {
  readonly checkouts = new CheckoutState();
  readonly given = new GivenUrls();
  readonly base: ServiceBase;

  /** `base`: the service's base URL when known (the proxy's target, validate --base-url). */
  constructor(base?: string) {
    this.base = new ServiceBase(base);
  }
}

export interface TrafficJudgement {
  scope: Scope;
  /** Absent for what is not judged: order answers and what is not the interface. */
  judgement?: Judgement;
}

/** An accepted answer's body as a document, when it is JSON or XML that parses. */
export function answerDocument(exchange: Exchange): Document | undefined {
  const response = exchange.response;
  if (!response || response.status < 200 || response.status >= 300) return undefined;
  return responseDocument(response);
}

/** Any answer's body as a document, when it is JSON or XML that parses (by its type, else its start). */
export function responseDocument(response: RecordedResponse): Document | undefined {
  const contentType = header(response.headers, 'content-type');
  const text = bodyText(response.body, contentType);
  if (text === undefined) return undefined;
  const format = formatOfMediaType(mediaType(contentType)) ?? sniffFormat(text);
  if (!format) return undefined;
  const read = readDocument(text, format);
  return read.ok ? read.document : undefined;
}

/** An accepted order answer, read for the URLs and values it gives. */
function learnOrder(exchange: Exchange, id: string | undefined, given: GivenUrls): void {
  const document = answerDocument(exchange);
  if (document) given.learn(document, id);
}

const ORDER_PATH = /\/orders(?:\/[^/?#]+)?\/?$/i;

/**
 * The service's base an order answer names through the URLs it gives, or undefined when the
 * exchange is no order answer that gives one: what a recording's other hosts cannot mislead.
 */
export function baseNamedByOrder(exchange: Exchange): string | undefined {
  const method = exchange.request.method.toUpperCase();
  const path = exchange.request.url.split(/[?#]/, 1)[0] ?? '';
  if ((method !== 'POST' && method !== 'GET') || !ORDER_PATH.test(path)) return undefined;
  const document = answerDocument(exchange);
  if (!document) return undefined;
  for (const url of givenUrlsOf(document)) {
    const base = baseOfGivenUrl(url);
    if (base) return base;
  }
  return undefined;
}

/** Sorts one exchange of traffic and judges it when it is the interface. */
export function judgeTraffic(exchange: Exchange, state: TrafficState): TrafficJudgement {
  const sorted = sortAndJudge(exchange, state);
  if (sorted.judgement && isRefusalProbe(exchange)) return { ...sorted, judgement: answersOnly(sorted.judgement) };
  return sorted;
}

function sortAndJudge(exchange: Exchange, state: TrafficState): TrafficJudgement {
  const scope = state.base.scopeOf(exchange);
  if (scope.kind === 'order') {
    learnOrder(exchange, scope.id, state.given);
    return { scope };
  }
  if (scope.kind === 'outside') return { scope };
  const method = exchange.request.method.toUpperCase();
  const path = scope.urlPath;
  if (scope.kind === 'misaddressed')
    return { scope, judgement: judgeMisaddressed((out) => checkGivenUrl(scope, method, path, state.given, out)) };
  const judgement = judgeExchange(exchange, state.checkouts, (out) =>
    checkGivenUrl(scope, method, path, state.given, out),
  );
  return { scope, judgement };
}
