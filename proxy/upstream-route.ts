import { isIP, connect as netConnect, type Socket } from 'node:net';
import { checkServerIdentity, type SecureContext, connect as tlsConnect } from 'node:tls';

// Where a target's connections go and how one is opened: TCP, or TLS verified against the host the
// target's URL names. Apart from upstream.ts, which carries requests and answers over the socket.

/** Where a target's connections go: its host and port, or those --connect-to puts in their place. */
export interface UpstreamRoute {
  /** The host the target's URL names: TLS asks for it (SNI) and verifies its certificate against it. */
  host: string;
  /** Where the connection is made. */
  connectHost: string;
  connectPort: number;
  secure: boolean;
  /** The CAs a secure target's certificate must verify against. */
  trust?: SecureContext;
}

/** The route to a target URL, before --connect-to. */
export function routeOf(target: URL, trust?: SecureContext): UpstreamRoute {
  const secure = target.protocol === 'https:';
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, connectHost: host, connectPort: Number(target.port) || (secure ? 443 : 80), secure, trust };
}

/**
 * The latest TLS session of each secure route, offered when the next connection to it is made: a
 * resumed handshake skips the certificate's checks (made for the session's first connection) and
 * costs the proxy a quarter of a full one. Kept only from connections whose certificate verified.
 */
const sessions = new WeakMap<UpstreamRoute, Buffer>();

/** A session of a connection along the route whose certificate verified, for the next one to resume. */
export function keepSession(route: UpstreamRoute, session: Buffer): void {
  sessions.set(route, session);
}

/** A connection to the target along its route, being made (resuming the route's latest session). */
export function openConnection(route: UpstreamRoute): Socket {
  const { host } = route;
  return route.secure
    ? tlsConnect({
        host: route.connectHost,
        port: route.connectPort,
        servername: isIP(host) ? undefined : host,
        // Verified against the host the URL names, also when --connect-to sends the connection elsewhere.
        checkServerIdentity: (_, cert) => checkServerIdentity(host, cert),
        secureContext: route.trust,
        ALPNProtocols: ['http/1.1'],
        session: sessions.get(route),
      })
    : netConnect({ port: route.connectPort, host: route.connectHost, noDelay: true });
}

/** Where --connect-to sends the route's connections, when not to the host itself ("[::1]:8443"). */
export function connectedElsewhere(route: UpstreamRoute): string | undefined {
  const { host, connectHost, connectPort } = route;
  return connectHost !== host
    ? `${connectHost.includes(':') ? `[${connectHost}]` : connectHost}:${connectPort}`
    : undefined;
}
