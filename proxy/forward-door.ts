import { connect as netConnect, type Socket } from 'node:net';
import { type SecureContext, TLSSocket } from 'node:tls';
import { canonicalHostName } from '../src/http/host-names.js';
import type { MessageHead } from './http-parser.js';
import { statusLine } from './message-head.js';
import { lingerThenClose } from './socket-writes.js';

// The proxy's second door: its port is also a forward proxy, as HTTP_PROXY and HTTPS_PROXY name
// it. A CONNECT to a host of the interface is intercepted: TLS is terminated with a certificate
// from the local CA and the requests inside go through the same pipeline as reverse-proxied ones.
// A CONNECT to any other host is a blind tunnel, judged and recorded by nothing, and open to
// loopback clients alone, so that the proxy is never an open proxy to the network.

/** curl's --connect-to: connections for HOST:PORT go to HOST2:PORT2 (TLS still names HOST). */
export interface ConnectTo {
  host: string;
  port: number;
  toHost: string;
  toPort: number;
}

/** A host the proxy intercepts: any port when `port` is undefined. */
export interface InterceptedHost {
  host: string;
  port?: number;
}

/** A request's authority as host and port, the host as DNS compares it (canonicalHostName). */
export interface Authority {
  host: string;
  port: number;
}

/** "host:port" (a CONNECT's request target), or undefined when it is none. */
export function parseAuthority(text: string, defaultPort: number): Authority | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/i.exec(text);
  if (!match?.[1]) return undefined;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  const host = canonicalHostName(match[1]);
  if (!host || host.endsWith('.')) return undefined;
  return { host, port };
}

/** Where a connection for `authority` is made, after --connect-to. */
export function connectionFor(authority: Authority, connectTo: readonly ConnectTo[]): Authority {
  const host = canonicalHostName(authority.host);
  const rule = connectTo.find((entry) => canonicalHostName(entry.host) === host && entry.port === authority.port);
  return rule ? { host: rule.toHost, port: rule.toPort } : authority;
}

export interface ForwardDoorOptions {
  intercepted: readonly InterceptedHost[];
  connectTo: readonly ConnectTo[];
  /** The TLS context for an intercepted host (its certificate made on first use). */
  hostContext(host: string): Promise<SecureContext>;
  /** An intercepted connection, TLS terminated: its requests go through the pipeline (`accepted`: the socket TLS runs on). */
  intercept(socket: TLSSocket, authority: Authority, accepted: Socket): void;
  /** Whether a client at this address is on this machine. */
  localClient(address: string | undefined): boolean;
  /** A blind tunnel or request passed on, counted apart from the interface. */
  passedOn(authority: Authority): void;
  /** A blind tunnel's host must take the connection within this long (--connect-timeout), else 504. */
  connectTimeoutMs: number;
  /** A client must complete the TLS handshake of an intercepted host within this long (0: no limit). */
  handshakeTimeoutMs: number;
  refused(status: number, reason: string): void;
  /** A client ended the TLS handshake of an intercepted host (`alert`: what it said, or what ended it). */
  handshakeRefused(authority: Authority, alert: string): void;
  log(line: string): void;
}

/**
 * What ended a TLS handshake, as the client said it: the alert OpenSSL names ("unknown ca",
 * "bad certificate", "certificate unknown"), else the error's code or message.
 */
export function handshakeAlert(error: NodeJS.ErrnoException): string {
  const coded = /^ERR_SSL_(?:SSLV3|TLSV1|TLSV13)_ALERT_(.+)$/.exec(error.code ?? '')?.[1];
  if (coded) return coded.toLowerCase().replaceAll('_', ' ');
  const said = /alert ([a-z ]+?)(?::|$)/i.exec(error.message)?.[1];
  if (said) return said.toLowerCase();
  if (error.code === 'ECONNRESET') return 'the connection was reset';
  return error.code ?? error.message;
}

export class ForwardDoor {
  /** The intercepted hosts, each as DNS compares it. */
  private readonly intercepted: readonly InterceptedHost[];

  constructor(private readonly options: ForwardDoorOptions) {
    this.intercepted = options.intercepted.map((entry) => ({ ...entry, host: canonicalHostName(entry.host) }));
  }

  /**
   * Whether requests for this authority are the interface's: judged, recorded, sent to the target.
   * Compared as DNS compares names: "SVC.test." is "svc.test", and is intercepted like it.
   */
  intercepts(authority: Authority): boolean {
    const host = canonicalHostName(authority.host);
    return this.intercepted.some(
      (entry) => entry.host === host && (entry.port === undefined || entry.port === authority.port),
    );
  }

  /** Where a blind connection for `authority` goes. */
  route(authority: Authority): Authority {
    return connectionFor(authority, this.options.connectTo);
  }

  /**
   * A CONNECT request, whose socket is handed over (`rest`: bytes the client sent after its head).
   * Intercepted, tunnelled blind, or refused with the status a forward proxy answers.
   */
  connect(head: MessageHead, socket: Socket, rest: Buffer): void {
    const authority = parseAuthority(head.url, 443);
    if (!authority) {
      this.refuse(socket, 400, `a CONNECT to ${JSON.stringify(head.url.slice(0, 100))}, which names no host and port`);
      return;
    }
    if (this.intercepts(authority)) {
      this.terminate(socket, authority, rest);
      return;
    }
    if (!this.options.localClient(socket.remoteAddress)) {
      this.refuse(
        socket,
        403,
        `a CONNECT to ${authority.host}:${authority.port} from ${socket.remoteAddress}: only the interface's hosts are reached for clients on other machines`,
      );
      return;
    }
    this.tunnel(socket, authority, rest);
  }

  private refuse(socket: Socket, status: number, reason: string): void {
    this.options.refused(status, reason);
    const body = JSON.stringify({ message: `print-conformance proxy: ${reason}` });
    socket.on('error', () => {});
    socket.end(
      `${statusLine(status)}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    lingerThenClose(socket);
  }

  /** TLS terminated with the host's certificate from the local CA; HTTP/1.1 offered alone (ALPN). */
  private terminate(socket: Socket, authority: Authority, rest: Buffer): void {
    // A TLS client waits for the 200 before its first byte: bytes before it are no TLS handshake.
    if (rest.length > 0) {
      this.refuse(socket, 400, `a CONNECT to ${authority.host} whose client sent bytes before the tunnel was open`);
      return;
    }
    socket.pause();
    socket.on('error', () => {});
    this.options
      .hostContext(authority.host)
      .then(
        (secureContext) => {
          if (socket.destroyed) return;
          socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          const secure = new TLSSocket(socket, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
          // A client that does not trust the certificate ends the handshake with an alert: nothing
          // of the interface goes through, and only the proxy can say why.
          let secured = false;
          // A deadline, as for a request head: a client that trickles its handshake is cut off.
          const limit = this.options.handshakeTimeoutMs;
          const overdue =
            limit > 0
              ? setTimeout(() => {
                  if (secured) return;
                  secured = true;
                  socket.destroy();
                }, limit)
              : undefined;
          secure.once('secure', () => {
            secured = true;
            clearTimeout(overdue);
          });
          socket.once('close', () => clearTimeout(overdue));
          secure.on('error', (error: NodeJS.ErrnoException) => {
            if (!secured) {
              secured = true;
              this.options.handshakeRefused(authority, handshakeAlert(error));
            }
            socket.destroy();
          });
          this.options.intercept(secure, authority, socket);
          socket.resume();
        },
        (error: Error) => {
          this.options.log(`print-conformance proxy: no certificate for ${authority.host}: ${error.message}`);
          this.refuse(socket, 502, `no certificate could be made for ${authority.host}`);
        },
      )
      // A fault in opening the tunnel ends this tunnel, never the proxy.
      .catch((error: Error) => {
        this.options.log(`print-conformance proxy: the tunnel to ${authority.host} failed: ${error.message}`);
        socket.destroy();
      });
  }

  /** Bytes passed both ways to the host, unread. */
  /** Blind tunnels open now. */
  openTunnels = 0;

  private tunnel(socket: Socket, authority: Authority, rest: Buffer): void {
    const to = this.route(authority);
    socket.pause();
    const far = netConnect({ host: to.host, port: to.port });
    far.setNoDelay(true);
    let open = false;
    // A deadline for the connection, as for the target's: the OS would wait minutes.
    const limit = this.options.connectTimeoutMs;
    const overdue = setTimeout(() => {
      if (open) return;
      far.destroy();
      this.refuse(
        socket,
        504,
        `${authority.host}:${authority.port} did not accept a connection within ${limit / 1000} s`,
      );
    }, limit);
    far.once('connect', () => {
      clearTimeout(overdue);
      if (socket.destroyed) {
        far.destroy();
        return;
      }
      open = true;
      this.openTunnels += 1;
      far.once('close', () => {
        this.openTunnels -= 1;
      });
      this.options.passedOn(authority);
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (rest.length > 0) far.write(rest);
      socket.pipe(far);
      far.pipe(socket);
      socket.resume();
    });
    far.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(overdue);
      if (!open)
        this.refuse(
          socket,
          502,
          `${authority.host}:${authority.port} cannot be reached (${error.code ?? error.message})`,
        );
      else socket.destroy();
    });
    socket.on('error', () => far.destroy());
    socket.on('close', () => {
      clearTimeout(overdue);
      far.destroy();
    });
    far.on('close', () => {
      if (open) socket.destroy();
    });
  }
}
