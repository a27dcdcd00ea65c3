import { checkGivenUrl } from './client-urls.js';
import { formatOfMediaType, readDocument, sniffFormat } from './document.js';
import { bodyText, type Exchange, header, mediaType } from './exchange.js';
import { GivenUrls } from './given-urls.js';
import { type Judgement, judgeExchange, judgeMisaddressed } from './index.js';
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

/** An accepted order answer, read for the URLs and values it gives. */
function learnOrder(exchange: Exchange, id: string | undefined, given: GivenUrls): void {
  const response = exchange.response;
  if (!response || response.status < 200 || response.status >= 300) return;
  const contentType = header(response.headers, 'content-type');
  const text = bodyText(response.body, contentType);
  if (text === undefined) return;
  const format = formatOfMediaType(mediaType(contentType)) ?? sniffFormat(text);
  if (!format) return;
  const read = readDocument(text, format);
  if (read.ok) given.learn(read.document, id);
}

/** Sorts one exchange of traffic and judges it when it is the interface. */
export function judgeTraffic(exchange: Exchange, state: TrafficState): TrafficJudgement {
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
