import { randomBytes } from 'node:crypto';
import { sameSecret } from '../http/same-secret.js';
import type { Headers } from '../validate/exchange.js';
import { exchangeDetail } from './exchange-detail.js';
import type { ExchangeFeed, FeedEntry } from './exchange-feed.js';
import { detailPage, type ListFilters, listPage } from './live-page.js';
import type { RefusedHandshakes } from './refused-handshakes.js';
import type { TestVerdicts } from './test-verdicts.js';

// The control API under /__print-conformance/ on the proxy's and serve's own port (WireMock's
// /__admin/ convention): the exchanges since a sequence number, an event stream of them, the
// verdicts so far, the tests of a client's suite and their verdicts, and the live page. It reads
// the one stream of judged exchanges; it is never forwarded and never judged. Transport apart:
// the proxy feeds it from its raw sockets, serve from node:http.

export const CONTROL_PREFIX = '/__print-conformance/';
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

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Where an event stream writes; `buffered` is what waits in the socket unread. */
export interface StreamSink {
  write(text: string): void;
  end(): void;
  buffered(): number;
  onClose(listener: () => void): void;
}

export type ControlAnswer = Answer | { stream: (sink: StreamSink) => void };

export interface ControlOptions {
  feed: ExchangeFeed;
  tests: TestVerdicts;
  /** What the page's title names (the target, or the reference service). */
  title: string;
  /** When given, every request needs `Authorization: Bearer TOKEN` (or `?token=`), from anywhere. */
  token?: string;
  /** The session's verdicts so far, in results.json's shape. */
  verdicts?: () => unknown;
  /** The proxy only: TLS handshakes clients refused (GET api/handshakes, `handshake` events). */
  handshakes?: RefusedHandshakes;
  /** serve only: ends a checkout's payment step as the payment page would. */
  pay?: (code: string, outcome: string) => Answer;
}

/** A stream's client that reads this much less than is sent is dropped (it reconnects from where it was). */
const STREAM_BACKLOG = 4 * 1024 * 1024;
const HEARTBEAT_MS = 15_000;

function json(status: number, value: unknown): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: `${JSON.stringify(value, null, 2)}\n`,
  };
}

function problem(status: number, message: string): Answer {
  return json(status, { message: `print-conformance: ${message}` });
}

function html(body: string, nonce: string): Answer {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // Traffic on the page is inert: no script runs but the page's own, nothing loads from outside.
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    },
    body,
  };
}

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

/** The methods a known path takes, or undefined for a path that is not the API's. */
function allowedMethods(path: string, payments: boolean): string | undefined {
  if (path === 'api/tests') return 'GET, POST';
  if (
    /^(?:|index\.html|exchanges\/\d+|api\/(?:events|exchanges|exchanges\/\d+|handshakes|verdicts|tests\/.+))$/.test(
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

  handle(request: ControlRequest): ControlAnswer {
    const refused = this.refusal(request);
    if (refused) return refused;
    const url = new URL(request.target, 'http://control.invalid/');
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
      };
      const entries = feed.newestFirst();
      const rules = [...new Set(entries.flatMap((entry) => entry.violations.map((v) => v.rule)))].sort();
      return html(
        listPage(entries, filters, {
          title: this.options.title,
          tokenQuery,
          nonce,
          rules,
          tests: tests.names(),
          last: feed.last,
        }),
        nonce,
      );
    }
    const opened = /^(api\/)?exchanges\/(\d+)$/.exec(path);
    if (get && opened) {
      const item = feed.item(Number(opened[2]));
      if (!item) return problem(404, `exchange ${opened[2]} is not held (the newest ${feed.first}–${feed.last} are)`);
      const detail = exchangeDetail(item);
      if (opened[1]) return json(200, detail);
      const nonce = randomBytes(16).toString('base64');
      return html(detailPage(detail, { title: this.options.title, tokenQuery, nonce }), nonce);
    }
    if (get && path === 'api/exchanges') {
      const after = Number(query.get('after') ?? 0);
      if (!Number.isInteger(after) || after < 0) return problem(400, 'after must be a sequence number (0 or more)');
      return json(200, { first: feed.first, last: feed.last, exchanges: feed.since(after) });
    }
    if (get && path === 'api/events') {
      const after = request.headers['last-event-id'] ?? query.get('after');
      if (after !== undefined && after !== null && !/^\d+$/.test(after))
        return problem(400, 'after (or Last-Event-ID) must be a sequence number (0 or more)');
      return { stream: (sink) => this.stream(sink, request, query) };
    }
    if (get && path === 'api/handshakes')
      return json(200, {
        count: this.options.handshakes?.count ?? 0,
        handshakes: this.options.handshakes?.all() ?? [],
      });
    if (get && path === 'api/verdicts') {
      const verdicts = this.options.verdicts?.();
      return verdicts === undefined ? problem(404, 'no verdicts here') : json(200, verdicts);
    }
    if (get && path === 'api/tests') return json(200, { current: this.currentTest ?? null, tests: tests.all() });
    const tested = /^api\/tests\/(.+)$/.exec(path);
    if (get && tested) {
      const name = decodeURIComponent(tested[1] as string);
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
      return this.options.pay(decodeURIComponent(paying[1] as string), outcome);
    }
    const allowed = allowedMethods(path, Boolean(this.options.pay));
    if (allowed)
      return {
        ...problem(405, `${request.method} is not taken here; ${allowed} is`),
        headers: { ...json(405, {}).headers, allow: allowed },
      };
    return problem(404, `nothing at ${CONTROL_PREFIX}${path} (see ${CONTROL_PREFIX} for the live page)`);
  }

  /** Why a control request is refused: another machine without the token, a wrong token, another site. */
  private refusal(request: ControlRequest): Answer | undefined {
    const token = this.options.token;
    if (token) {
      const given =
        /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ??
        new URL(request.target, 'http://control.invalid/').searchParams.get('token') ??
        '';
      if (!sameSecret(given, token))
        return problem(401, 'the control API wants Authorization: Bearer <--control-token>');
    } else if (!request.local) {
      return problem(403, 'the control API answers clients on this machine only; give --control-token to open it');
    }
    // A page of another site in the user's browser must not drive it (a cross-site form post).
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site')
      return problem(403, 'the control API takes no cross-site request');
    return undefined;
  }

  private nameTest(body: string): Answer {
    let name: unknown;
    try {
      name = (JSON.parse(body) as { name?: unknown }).name;
    } catch {
      return problem(400, 'the body must be JSON: {"name": "the test"} (null ends it)');
    }
    if (name !== null && (typeof name !== 'string' || name.trim() === '' || name.length > TEST_NAME_LIMIT))
      return problem(400, `name must be a test name (1-${TEST_NAME_LIMIT} characters), or null to end the test`);
    this.currentTest = name === null ? undefined : name.trim();
    // A test named is known from now on: one that sends nothing passes with no exchange, not a 404.
    if (this.currentTest !== undefined) this.options.tests.start(this.currentTest);
    return json(200, { current: this.currentTest ?? null });
  }

  private stream(sink: StreamSink, request: ControlRequest, query: URLSearchParams): void {
    const { feed } = this.options;
    const from = Number(request.headers['last-event-id'] ?? query.get('after') ?? feed.last);
    const send = (entry: FeedEntry) => {
      if (sink.buffered() > STREAM_BACKLOG) {
        // A reader this far behind reconnects and asks from its last event: the window has it, or says what it lost.
        sink.end();
        return;
      }
      sink.write(`event: exchange\nid: ${entry.seq}\ndata: ${JSON.stringify(entry)}\n\n`);
    };
    sink.write(`retry: 1000\n\n`);
    for (const entry of feed.since(Number.isInteger(from) && from >= 0 ? from : feed.last)) send(entry);
    const unsubscribe = feed.subscribe(send);
    // Refused handshakes are no exchanges: events without a sequence number, from now on.
    const unsubscribeHandshakes = this.options.handshakes?.subscribe((handshake) =>
      sink.write(`event: handshake\ndata: ${JSON.stringify(handshake)}\n\n`),
    );
    const heartbeat = setInterval(() => sink.write(': still here\n\n'), HEARTBEAT_MS).unref();
    this.streams.add(sink);
    sink.onClose(() => {
      unsubscribe();
      unsubscribeHandshakes?.();
      clearInterval(heartbeat);
      this.streams.delete(sink);
    });
  }
}
