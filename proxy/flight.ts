import { randomUUID } from 'node:crypto';
import { TEST_HEADER } from '../src/control/control-plane.js';
import type { Headers } from '../src/validate/exchange.js';
import { type AdmittedRequest, peekLimitOf } from './admission.js';
import { BodyTap } from './body-tap.js';
import type { HeldBytes } from './held-bytes.js';
import type { MessageHead } from './http-parser.js';
import type { ProxyContext } from './proxy-context.js';
import type { RecordedExchange } from './recorder.js';
import type { StreamingUrlRewriter } from './rewrite-urls.js';

// The state of one exchange on its way through the proxy: the request as read, and the answer
// as it comes back.

export interface Answer {
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
  /** Kept whole (by its tap) until it ends: judged before its head goes out, URLs rewritten. */
  buffered: boolean;
  /** Streaming to the client in chunks the proxy frames itself. */
  chunked: boolean;
  /** Streaming with its target URLs rewritten on the way: its length is no longer the target's. */
  rewriter?: StreamingUrlRewriter;
}

export interface Flight {
  exchange: RecordedExchange;
  started: number;
  head: MessageHead;
  headers: Headers;
  path: string;
  proxyBase: string;
  requestTap: BodyTap;
  /** The request body goes to the target in chunks (it came so, without a length). */
  chunked: boolean;
  /** Enforce mode: the request is held back (by its tap, or in `peeked`) until it is judged. */
  gated: boolean;
  /** Enforce mode: the start of a multipart body, held back until the request is judged. */
  peeked: HeldBytes | undefined;
  /** What `peeked` took from the memory budget. */
  peekedCost: number;
  peekLimit: number;
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
  /**
   * The answer was written whole before the request's body had all come (a 401 or 404 given
   * without reading it): the body is still read, and the exchange judged once it is whole.
   */
  answeredEarly: boolean;
  finished: boolean;
  /** The connection is closed once this exchange is over. */
  closeAfter: boolean;
  done: () => void;
}

/**
 * The scheme the client used: https when a TLS terminator in front of the proxy says so
 * (X-Forwarded-Proto, or Forwarded's proto), so that rewritten URLs keep it; else http.
 */
function clientScheme(headers: Headers): 'http' | 'https' {
  if (headers['x-forwarded-proto'] === undefined && headers.forwarded === undefined) return 'http';
  const forwarded =
    headers['x-forwarded-proto'] ?? /(?:^|[;,\s])proto=("?)(https?)\1/i.exec(headers.forwarded ?? '')?.[2];
  return forwarded?.split(',')[0]?.trim().toLowerCase() === 'https' ? 'https' : 'http';
}

/** A request admitted: its exchange begins. */
export function newFlight(head: MessageHead, admitted: AdmittedRequest, context: ProxyContext): Flight {
  const { headers } = admitted;
  const test = context.testOf?.(headers);
  // The test's name is the proxy's to read: neither the target nor the recording's headers get it.
  if (headers[TEST_HEADER] !== undefined) delete headers[TEST_HEADER];
  const client = context.clientOf?.(headers);
  const exchange: RecordedExchange = {
    id: randomUUID(),
    startedAt: new Date().toISOString(),
    request: { method: head.method, url: admitted.href, headers },
    violations: [],
  };
  if (test !== undefined) exchange.test = test;
  if (client !== undefined) exchange.client = client;
  return {
    exchange,
    started: performance.now(),
    head,
    headers,
    path: admitted.path,
    proxyBase: `${clientScheme(headers)}://${admitted.host ?? context.ownAuthority}/`,
    // A large upload is hashed on a worker thread.
    requestTap: new BodyTap(headers, context.tapOptions, true),
    chunked: head.framing.kind === 'chunked',
    gated: false,
    peeked: undefined,
    peekedCost: 0,
    peekLimit: peekLimitOf(head.method, headers, context.enforce, context.validateLimit),
    continued: false,
    resent: false,
    forwarded: false,
    discarding: false,
    requestEnded: false,
    answer: undefined,
    headSent: false,
    answeredEarly: false,
    finished: false,
    closeAfter: !head.keepAlive,
    done: context.begin(),
  };
}
