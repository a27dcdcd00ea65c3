import { randomBytes } from 'node:crypto';
import type { ClientVerdict } from '../findings/types.js';
import { fromAnotherSite } from '../http/request-site.js';
import { sameSecret } from '../http/same-secret.js';
import type { Headers } from '../validate/exchange.js';
import { type Answer, html, json, problem } from './control-answers.js';
import { type StreamSink, streamEvents } from './event-stream.js';
import { exchangeDetail, type ResendThrough } from './exchange-detail.js';
import { harDownload, requestBodyDownload } from './exchange-downloads.js';
import type { ExchangeFeed } from './exchange-feed.js';
import { holdsText, type ListFilters, listPage, type VerdictSummary, type WebhookCallShown } from './live-page.js';
import { detailPage } from './live-page-detail.js';
import type { RefusedHandshakes } from './refused-handshakes.js';
import type { TestVerdicts } from './test-verdicts.js';

// The control API under /__print-conformance/ on the proxy's and serve's own port (WireMock's
// /__admin/ convention): the exchanges since a sequence number, an event stream of them, the
// verdicts so far, the tests of a client's suite and their verdicts, and the live page. It reads
// the one stream of judged exchanges; it is never forwarded and never judged. Transport apart:
// the proxy feeds it from its raw sockets, serve from node:http.

export const CONTROL_PREFIX = '/__print-conformance/';
/** The variable a curl line on the live page takes the control token from: the token is never written in it. */
const CONTROL_TOKEN_VARIABLE = 'CONTROL_TOKEN';
/** The header that names the client test a request belongs to; removed before forwarding. */
export const TEST_HEADER = 'print-conformance-test';
/** The body of a control request is read whole up to this size; more is refused. */
export const CONTROL_BODY_LIMIT = 64 * 1024;

export interface ControlRequest {
  method: string;
  /** Path and query under the prefix, e.g. "api/exchanges?after=3". */
  target: string;
  headers: Headers;
  body: string;
  /** The client is on this machine. */
  local: boolean;
}

export type ControlAnswer = Answer | { stream: (sink: StreamSink) => void };

export interface ControlOptions {
  feed: ExchangeFeed;
  tests: TestVerdicts;
  /** What the page's title names (the target, or the reference service). */
  title: string;
  /** The proxy's target base: the page's curl lines send its URLs to the proxy instead, to be judged again. */
  targetBase?: string;
  /** When given, every request needs `Authorization: Bearer TOKEN` (or `?token=`), from anywhere. */
  token?: string;
  /** The session's verdicts so far, in results.json's shape. */
  verdicts?: () => unknown;
  /** The proxy only: TLS handshakes clients refused (GET api/handshakes, `handshake` events). */
  handshakes?: RefusedHandshakes;
  /** serve only: ends a checkout's payment step as the payment page would. */
  pay?: (code: string, outcome: string) => Answer;
  /** serve only: sets an order's status (Shipped …), as the service's own side would. */
  setOrderStatus?: (orderId: string, status: string) => { status: 200 | 404; message?: string };
  /** serve only: the webhook calls made so far. */
  webhooks?: () => readonly WebhookCallShown[];
  /** --clients-by: each client team's verdict so far (absent: the session tells no clients apart). */
  clients?: () => readonly ClientVerdict[];
  /** Event streams open at once; more are answered 503 (default 32). */
  maxStreams?: number;
}

/** Event streams held open at once unless told otherwise: each holds a connection for as long as its reader likes. */
export const DEFAULT_MAX_STREAMS = 32;

/** The longest test name kept; a longer one in the header is cut to it (POST api/tests refuses it). */
export const TEST_NAME_LIMIT = 200;

/**
 * A test name from the header: HTTP parsers hand header bytes over as Latin-1, so a name a client
 * wrote in UTF-8 (accents in a data-set name) is read back as UTF-8 when it is that.
 */
function testName(value: string): string {
  let name = value;
  if (/[\u0080-\u00ff]/.test(value)) {
    const decoded = Buffer.from(value, 'latin1').toString('utf8');
    if (!decoded.includes('\uFFFD')) name = decoded;
  }
  return name.slice(0, TEST_NAME_LIMIT);
}

/** A path segment that is not percent-encoded UTF-8 ("%E0%A4%A"): the request is a 400. */
class UndecodablePath extends Error {}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new UndecodablePath(`the path segment ${JSON.stringify(segment.slice(0, 100))} is not percent-encoded UTF-8`);
  }
}

/** The methods a known path takes, or undefined for a path that is not the API's. */
function allowedMethods(path: string, payments: boolean): string | undefined {
  if (path === 'api/tests') return 'GET, POST';
  if (payments && /^api\/orders\/[^/]+\/status$/.test(path)) return 'POST';
  if (payments && path === 'api/webhooks') return 'GET, HEAD';
  if (
    /^(?:|index\.html|exchanges\/\d+(?:\/request-body)?|api\/(?:events|exchanges|exchanges\/\d+|handshakes|har|verdicts|clients|tests\/.+))$/.test(
      path,
    )
  )
    return 'GET, HEAD';
  if (payments && /^api\/payments\/[^/]+$/.test(path)) return 'POST';
  return undefined;
}

export class ControlPlane {
  /** The test named through the API: requests without the header belong to it. */
  currentTest: string | undefined;
  private readonly streams = new Set<StreamSink>();

  /** Event streams open now. */
  get openStreams(): number {
    return this.streams.size;
  }

  constructor(private readonly options: ControlOptions) {}

  /** Where the session's verdicts so far come from (the CLI knows how they are reckoned). */
  setVerdicts(source: () => unknown): void {
    this.options.verdicts = source;
  }

  /** The test a request belongs to: the one its header names, else the one named through the API. */
  testOf(headers: Headers): string | undefined {
    const named = headers[TEST_HEADER]?.trim();
    return named ? testName(named) : this.currentTest;
  }

  /** Ends every event stream (the proxy or service is stopping). */
  close(): void {
    for (const sink of this.streams) sink.end();
    this.streams.clear();
  }

  /**
   * The answer to a control request. Whatever a request holds, it is answered: a path that does not
   * decode is a 400, and a fault in answering is a 500, never an exception that would reset the
   * proxy's connection or stop serve.
   */
  handle(request: ControlRequest): ControlAnswer {
    let url: URL;
    try {
      url = new URL(request.target, 'http://control.invalid/');
    } catch {
      return problem(400, 'the request target is no URL path');
    }
    try {
      return this.answer(request, url);
    } catch (error) {
      if (error instanceof UndecodablePath) return problem(400, error.message);
      return problem(500, 'the control API could not answer this request');
    }
  }

  private answer(request: ControlRequest, url: URL): ControlAnswer {
    const refused = this.refusal(request, url);
    if (refused) return refused;
    const path = url.pathname.replace(/^\//, '');
    const query = url.searchParams;
    const tokenQuery = this.options.token ? `?token=${encodeURIComponent(this.options.token)}` : '';
    const get = request.method === 'GET' || request.method === 'HEAD';
    const { feed, tests } = this.options;
    if (get && (path === '' || path === 'index.html')) {
      const nonce = randomBytes(16).toString('base64');
      const filters: ListFilters = {
        rule: query.get('rule') ?? undefined,
        status: query.get('status') ?? undefined,
        test: query.get('test') ?? undefined,
        client: query.get('client') ?? undefined,
        q: query.get('q') ?? undefined,
      };
      const items = feed.heldItems();
      const rules = [...new Set(items.flatMap((item) => item.entry.violations.map((v) => v.rule)))].sort();
      const verdicts = this.options.verdicts?.() as { summary?: VerdictSummary } | undefined;
      return html(
        listPage(items, filters, {
          title: this.options.title,
          tokenQuery,
          nonce,
          rules,
          tests: tests.all(),
          ...(this.options.clients ? { clients: this.options.clients() } : {}),
          last: feed.last,
          ...(verdicts?.summary ? { verdict: verdicts.summary } : {}),
          ...(this.options.webhooks ? { webhooks: this.options.webhooks() } : {}),
        }),
        nonce,
      );
    }
    const kept = /^exchanges\/(\d+)\/request-body$/.exec(path);
    if (get && kept) return requestBodyDownload(feed, kept[1] as string);
    if (get && path === 'api/har') return harDownload(feed, this.options.targetBase);
    const opened = /^(api\/)?exchanges\/(\d+)$/.exec(path);
    if (get && opened) {
      const item = feed.item(Number(opened[2]));
      if (!item) return problem(404, `exchange ${opened[2]} is not held (the newest ${feed.first}–${feed.last} are)`);
      const detail = exchangeDetail(item, this.resendThrough(request, item.entry.seq));
      if (opened[1]) return json(200, detail);
      const nonce = randomBytes(16).toString('base64');
      return html(detailPage(detail, { title: this.options.title, tokenQuery, nonce }), nonce);
    }
    if (get && path === 'api/exchanges') {
      const after = Number(query.get('after') ?? 0);
      if (!Number.isInteger(after) || after < 0) return problem(400, 'after must be a sequence number (0 or more)');
      const text = query.get('q')?.trim();
      // The text search reads the heads and bodies the window holds; the list and its script ask it.
      const exchanges = text
        ? feed
            .heldItems()
            .filter((item) => item.entry.seq > after && holdsText(item, text))
            .map((item) => item.entry)
        : feed.since(after);
      return json(200, { first: feed.first, last: feed.last, exchanges });
    }
    if (get && path === 'api/events') {
      const after = request.headers['last-event-id'] ?? query.get('after');
      if (after !== undefined && after !== null && !/^\d+$/.test(after))
        return problem(400, 'after (or Last-Event-ID) must be a sequence number (0 or more)');
      const maxStreams = this.options.maxStreams ?? DEFAULT_MAX_STREAMS;
      if (this.streams.size >= maxStreams)
        return {
          ...problem(503, `${maxStreams} event streams are open already; try again later`),
          headers: { ...json(503, {}).headers, 'retry-after': '5' },
        };
      return { stream: (sink) => this.stream(sink, request, query) };
    }
    if (get && path === 'api/handshakes')
      return json(200, {
        count: this.options.handshakes?.count ?? 0,
        handshakes: this.options.handshakes?.all() ?? [],
      });
    if (get && path === 'api/clients') {
      if (!this.options.clients) return problem(404, 'this session tells no clients apart (see --clients-by)');
      return json(200, { clients: this.options.clients() });
    }
    const client = query.get('client');
    if (get && path === 'api/verdicts' && client !== null) {
      if (!this.options.clients) return problem(404, 'this session tells no clients apart (see --clients-by)');
      const verdict = this.options.clients().find((c) => c.client === client);
      return verdict ? json(200, verdict) : problem(404, `no exchange of client ${JSON.stringify(client)} was seen`);
    }
    if (get && path === 'api/verdicts') {
      const verdicts = this.options.verdicts?.();
      return verdicts === undefined ? problem(404, 'no verdicts here') : json(200, verdicts);
    }
    if (get && path === 'api/tests') return json(200, { current: this.currentTest ?? null, tests: tests.all() });
    const tested = /^api\/tests\/(.+)$/.exec(path);
    if (get && tested) {
      const name = decodedSegment(tested[1] as string);
      const verdict = tests.verdict(name);
      return verdict ? json(200, verdict) : problem(404, `no exchange of test ${JSON.stringify(name)} was seen`);
    }
    if (request.method === 'POST' && path === 'api/tests') return this.nameTest(request.body);
    const paying = /^api\/payments\/([^/]+)$/.exec(path);
    if (request.method === 'POST' && paying && this.options.pay) {
      let outcome: unknown;
      try {
        outcome = (JSON.parse(request.body) as { outcome?: unknown }).outcome;
      } catch {
        outcome = undefined;
      }
      if (typeof outcome !== 'string')
        return problem(400, 'the body must be {"outcome": "Successful" | "Cancelled" | "Failed"}');
      return this.options.pay(decodedSegment(paying[1] as string), outcome);
    }
    if (get && path === 'api/webhooks' && this.options.webhooks) return json(200, { calls: this.options.webhooks() });
    const ordered = /^api\/orders\/([^/]+)\/status$/.exec(path);
    if (request.method === 'POST' && ordered && this.options.setOrderStatus)
      return this.orderStatus(decodedSegment(ordered[1] as string), request.body);
    const allowed = allowedMethods(path, Boolean(this.options.pay));
    if (allowed)
      return {
        ...problem(405, `${request.method} is not taken here; ${allowed} is`),
        headers: { ...json(405, {}).headers, allow: allowed },
      };
    return problem(404, `nothing at ${CONTROL_PREFIX}${path} (see ${CONTROL_PREFIX} for the live page)`);
  }

  /** Where the page's curl line sends a request again: through the proxy, as the page's reader reaches it. */
  private resendThrough(request: ControlRequest, seq: number): ResendThrough | undefined {
    const host = request.headers.host;
    if (this.options.targetBase === undefined || !host || /[\s/\\@]/.test(host)) return undefined;
    const scheme = request.headers['x-forwarded-proto']?.split(',')[0]?.trim() === 'https' ? 'https' : 'http';
    const proxyBase = `${scheme}://${host}/`;
    const body = this.options.feed.item(seq)?.exchange.request.body;
    return {
      targetBase: this.options.targetBase,
      proxyBase,
      ...(body?.base64 !== undefined
        ? {
            bodyUrl: `${proxyBase}${CONTROL_PREFIX.slice(1)}exchanges/${seq}/request-body`,
            // The token is sent from a variable the reader sets, never written in the command.
            ...(this.options.token ? { bodyUrlToken: CONTROL_TOKEN_VARIABLE } : {}),
          }
        : {}),
    };
  }

  /** Why a control request is refused: another machine without the token, a wrong token, another site. */
  private refusal(request: ControlRequest, url: URL): Answer | undefined {
    const token = this.options.token;
    if (token) {
      const given =
        /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? url.searchParams.get('token') ?? '';
      if (!sameSecret(given, token))
        return problem(401, 'the control API wants Authorization: Bearer <--control-token>');
    } else if (!request.local) {
      return problem(403, 'the control API answers clients on this machine only; give --control-token to open it');
    }
    // A page of another site in the user's browser must not drive it (a cross-site form post):
    // Sec-Fetch-Site says so, or, from a browser that does not send it, Origin.
    if (fromAnotherSite(request.headers)) return problem(403, 'the control API takes no cross-site request');
    return undefined;
  }

  private orderStatus(orderId: string, body: string): Answer {
    let status: unknown;
    try {
      status = (JSON.parse(body) as { status?: unknown }).status;
    } catch {
      status = undefined;
    }
    // The real service's order statuses are not all published: any one word (Shipped, Delivered …) is taken.
    if (typeof status !== 'string' || !/^[A-Z][A-Za-z]{1,39}$/.test(status))
      return problem(400, 'the body must be {"status": "Shipped"} (a status, one word)');
    const done = this.options.setOrderStatus?.(orderId, status);
    if (done?.status !== 200) return problem(404, done?.message ?? `no order ${orderId}`);
    return json(200, { orderId, status });
  }

  private nameTest(body: string): Answer {
    let name: unknown;
    try {
      name = (JSON.parse(body) as { name?: unknown }).name;
    } catch {
      return problem(400, 'the body must be JSON: {"name": "the test"} (null ends it)');
    }
    // A name is shown in reports and on the page: control characters (a NUL, an escape) have no place in it.
    if (
      name !== null &&
      (typeof name !== 'string' || name.trim() === '' || name.length > TEST_NAME_LIMIT || /\p{Cc}/u.test(name))
    )
      return problem(
        400,
        `name must be a test name (1-${TEST_NAME_LIMIT} characters, no control characters), or null to end the test`,
      );
    this.currentTest = name === null ? undefined : name.trim();
    // A test named is known from now on: one that sends nothing passes with no exchange, not a 404.
    if (this.currentTest !== undefined) this.options.tests.start(this.currentTest);
    return json(200, { current: this.currentTest ?? null });
  }

  private stream(sink: StreamSink, request: ControlRequest, query: URLSearchParams): void {
    const { feed } = this.options;
    const from = Number(request.headers['last-event-id'] ?? query.get('after') ?? feed.last);
    streamEvents(sink, feed, this.options.handshakes, from, this.streams);
  }
}
