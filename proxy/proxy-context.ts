import type { ControlPlane } from '../src/control/control-plane.js';
import type { Exchange, Headers, Violation } from '../src/validate/exchange.js';
import type { TapOptions } from './body-tap.js';
import type { Authority, ForwardDoor } from './forward-door.js';
import type { RecordedExchange } from './recorder.js';
import type { TargetPool } from './target-pool.js';
import type { UpstreamRoute } from './upstream-route.js';

// What every connection of one proxy shares: where it forwards to, its limits and switches, and
// the judge and recorder its exchanges go to.

export interface ProxyContext {
  target: URL;
  targetBase: string;
  /** Where connections to the target go (after --connect-to), and what its certificate must verify against. */
  route: UpstreamRoute;
  /** Idle target connections that outlived their client connections, for the next ones. */
  targetPool?: TargetPool;
  /** The control API on the proxy's own port (absent inside an intercepted host, whose paths are the service's). */
  control?: ControlPlane;
  /** The client test a request belongs to, from its head (see ControlPlane.testOf). */
  testOf?(headers: Headers): string | undefined;
  /** The client team a request belongs to (--clients-by), from its head; its header removed when it is the proxy's. */
  clientOf?(headers: Headers): string | undefined;
  /** The forward proxy on the same port (CONNECT, absolute-form requests). */
  door?: ForwardDoor;
  /** The context of intercepted requests: paths unchanged under the target's origin, nothing rewritten. */
  intercepting?: ProxyContext;
  /** Whether a client at this address is on this machine (only such clients reach other hosts). */
  localClient(address: string | undefined): boolean;
  /** A request or tunnel for another host was passed on, unjudged. */
  passedOn?(authority: Authority): void;
  /** A connection handed its socket over (to a tunnel or TLS): it no longer counts as a connection. */
  release?(connection: object): void;
  /** host:port of this proxy, for URLs in answers to requests that name no Host. */
  ownAuthority: string;
  hostAllowed(value: string | undefined): boolean;
  validateLimit: number;
  tapOptions: TapOptions;
  enforce: boolean;
  rewriteUrls: boolean;
  violationsHeader: boolean;
  clientTimeoutMs: number;
  /** A request head must be whole this long after its first byte (0: no limit). */
  headersTimeoutMs: number;
  answerTimeoutMs: number;
  /** Once the target has begun an answer, how long it may send nothing more of it. */
  targetTimeoutMs: number;
  judge(exchange: Exchange): Violation[];
  /** Writes the finished exchange to the tally, recording and log. */
  record(exchange: RecordedExchange, started: number): void;
  /** A request turned away before its exchange began (a refused path or Host, a late or malformed head); `body` as answered. */
  refused(status: number, body: string): void;
  /** Counts an exchange in flight; the returned function says it is over. */
  begin(): () => void;
  stopping(): boolean;
  log(line: string): void;
}

export const VIOLATIONS_HEADER = 'print-conformance-violations';

export function describeViolations(violations: Violation[]): string {
  return [...new Set(violations.map((v) => `${v.rule} (${v.side})`))].join(', ');
}
