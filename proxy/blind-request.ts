import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Authority } from './forward-door.js';
import type { MessageHead } from './http-parser.js';
import { chunkFrame, forwardedFields, LAST_CHUNK, statusLine } from './message-head.js';
import { lingerThenClose } from './socket-writes.js';

// A plain-HTTP request in absolute form ("GET http://elsewhere/x") for a host that is not the
// interface: passed on as it came, judged and recorded by nothing. The answer is relayed as the
// bytes it is, and the client's connection closes after it, so that no second request (perhaps
// for another host) rides on what is now a pipe to this one.

const NOT_PASSED_ON = new Set(['host', 'content-length', 'proxy-authorization']);

export class BlindRequest {
  private readonly far: Socket;
  private readonly chunked: boolean;
  private answered = false;

  /** `reached`: the host took the connection, and the request is passed on (counted once, apart from failures). */
  constructor(
    client: Socket,
    head: MessageHead,
    url: URL,
    to: Authority,
    /** --connect-timeout: the first byte of the answer is due within it (connecting and TLS included), else 504. */
    connectTimeoutMs: number,
    failed: (status: number, reason: string) => void,
    reached: () => void,
  ) {
    const path = `${url.pathname}${url.search}`;
    let text = `${head.method} ${path} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    text += forwardedFields(head.rawHeaders, NOT_PASSED_ON);
    const { framing } = head;
    if (framing.kind === 'chunked') text += 'transfer-encoding: chunked\r\n';
    else if (framing.kind === 'length') text += `content-length: ${framing.length}\r\n`;
    this.chunked = framing.kind === 'chunked';
    text += 'connection: close\r\n\r\n';
    // An https:// URL asked for in plain HTTP is fetched over TLS, verified as any client would.
    this.far =
      url.protocol === 'https:'
        ? tlsConnect({
            host: to.host,
            port: to.port,
            servername: isIP(url.hostname) ? undefined : url.hostname,
            ALPNProtocols: ['http/1.1'],
          })
        : netConnect({ host: to.host, port: to.port });
    this.far.setNoDelay(true);
    this.far.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', reached);
    this.far.write(text, 'latin1');
    this.far.on('data', (chunk: Buffer) => {
      if (!this.answered) clearTimeout(overdue);
      this.answered = true;
      if (!client.write(chunk)) {
        this.far.pause();
        client.once('drain', () => this.far.resume());
      }
    });
    const noAnswer = (why: string, status = 502) => {
      clearTimeout(overdue);
      const reason = `${url.host} ${why}`;
      failed(status, reason);
      const body = JSON.stringify({ message: `print-conformance proxy: ${reason}` });
      client.end(
        `${statusLine(status)}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      lingerThenClose(client);
    };
    this.far.on('end', () => {
      // A host that closed without a byte of answer (a TLS port spoken to in plain HTTP) is told as such.
      if (!this.answered) {
        noAnswer('closed the connection without answering');
        return;
      }
      client.end();
      lingerThenClose(client);
    });
    this.far.on('error', (error: NodeJS.ErrnoException) => {
      if (this.answered) {
        client.destroy();
        return;
      }
      noAnswer(`cannot be reached (${error.code ?? error.message})`);
    });
    // A deadline, not an idle timer: a host that trickles its handshake is cut off all the same.
    const overdue = setTimeout(() => {
      if (this.answered) return;
      this.far.destroy();
      noAnswer(`did not answer within ${connectTimeoutMs / 1000} s`, 504);
    }, connectTimeoutMs);
    client.once('close', () => {
      clearTimeout(overdue);
      this.far.destroy();
    });
  }

  body(chunk: Buffer): void {
    if (this.chunked) for (const piece of chunkFrame(chunk)) this.far.write(piece, 'latin1');
    else this.far.write(chunk);
  }

  end(): void {
    if (this.chunked) this.far.write(LAST_CHUNK);
  }
}
