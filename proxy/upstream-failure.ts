import { connectedElsewhere, type UpstreamRoute } from './upstream-route.js';

// What can go wrong with the answer to a request sent to the target, and what a connection that
// broke or was not made in time means, told by how far it had come. Apart from upstream.ts, which
// sees these happen; answer-checks.ts turns them into what the client is told.

export type UpstreamFailure =
  /** No final answer's head within the connect timeout; `phase` when the connection itself was not made in it. */
  | { kind: 'timeout'; phase?: 'connect' | 'handshake' }
  /** The answer had begun, then nothing more came for the target timeout. */
  | { kind: 'stalled' }
  | { kind: 'unreachable'; code: string; at?: string }
  /** The target's TLS certificate does not verify against the CAs the proxy trusts. */
  | { kind: 'untrusted'; code: string; host: string }
  /** The target took the connection, then closed it without a byte of answer to the request. */
  | { kind: 'dropped'; code: string }
  /** A connection kept from an earlier exchange closed before any byte of the answer came. */
  | { kind: 'stale'; code: string }
  | { kind: 'broken'; code: string }
  | { kind: 'malformed'; code: string }
  /** A status line that parses but cannot be passed on. */
  | { kind: 'invalid'; reason: string }
  | { kind: 'internal'; message: string };

/** Node's codes for a certificate that does not verify: told as such, never as "cannot be reached". */
const UNTRUSTED =
  /^(?:UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_SELF_SIGNED|CERT_|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH|INVALID_CA)/;

/** No answer in time, told by how far the connection had come. */
export function timeoutOf(tcpConnected: boolean, connected: boolean): UpstreamFailure {
  if (!tcpConnected) return { kind: 'timeout', phase: 'connect' };
  if (!connected) return { kind: 'timeout', phase: 'handshake' };
  return { kind: 'timeout' };
}

/**
 * The connection broke or closed (`code`): what that means depends on how far the answer had come
 * (`answered`: its head did), whether the request went out unheard on a connection kept from an
 * earlier exchange (`staleReuse`), and whether the target had taken the connection (`connected`).
 */
export function lossOf(
  code: string,
  route: UpstreamRoute,
  answered: boolean,
  staleReuse: boolean,
  connected: boolean,
): UpstreamFailure {
  if (answered) return { kind: 'broken', code };
  // A target may close a kept-alive connection just as a request goes out on it (its idle
  // timeout, told to nobody): nothing of the request was handled, and it can be sent again.
  if (staleReuse) return { kind: 'stale', code };
  if (!connected && route.secure && UNTRUSTED.test(code)) return { kind: 'untrusted', code, host: route.host };
  if (connected) return { kind: 'dropped', code };
  const elsewhere = connectedElsewhere(route);
  return { kind: 'unreachable', code, ...(elsewhere ? { at: elsewhere } : {}) };
}
