import type { Socket } from 'node:net';
import { CONTROL_BODY_LIMIT, type ControlPlane } from '../src/control/control-plane.js';
import type { MessageHead } from './http-parser.js';
import { fieldLines, headerRecord, statusLine } from './message-head.js';
import { lingerThenClose } from './socket-writes.js';

// One request to the control API on the proxy's port, read off the client's socket and answered
// by the proxy itself: never forwarded, judged or recorded. Its answer closes the connection,
// unless it is an event stream, which then owns the socket until either side ends it.

export class ControlCall {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly plane: ControlPlane,
    private readonly head: MessageHead,
    private readonly client: Socket,
    private readonly local: boolean,
    /** The connection lets go of the socket: an event stream writes to it from now on. */
    private readonly detach: () => void,
  ) {}

  body(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= CONTROL_BODY_LIMIT) this.chunks.push(chunk);
  }

  end(): void {
    if (this.size > CONTROL_BODY_LIMIT) {
      this.answer(
        413,
        { 'content-type': 'application/json' },
        '{"message":"print-conformance: a control request body is 64 KiB at most"}',
      );
      return;
    }
    const answer = this.plane.handle({
      method: this.head.method,
      target: this.head.url.slice(this.head.url.indexOf('/', 1) + 1),
      headers: headerRecord(this.head.rawHeaders),
      body: Buffer.concat(this.chunks).toString('utf8'),
      local: this.local,
    });
    if ('stream' in answer) {
      this.detach();
      const client = this.client;
      client.setNoDelay(true);
      client.write(
        `${statusLine(200)}content-type: text/event-stream; charset=utf-8\r\ncache-control: no-store\r\nx-accel-buffering: no\r\nconnection: close\r\n\r\n`,
      );
      // What the client sends from now on is read and dropped, so that its end is seen.
      client.on('data', () => {});
      client.resume();
      answer.stream({
        write: (text) => {
          if (!client.destroyed) client.write(text);
        },
        end: () => {
          client.end();
          lingerThenClose(client);
        },
        buffered: () => client.writableLength,
        onClose: (listener) => client.once('close', listener),
      });
      return;
    }
    this.answer(
      answer.status,
      answer.headers,
      this.head.method === 'HEAD' ? '' : answer.body,
      Buffer.byteLength(answer.body),
    );
  }

  private answer(
    status: number,
    headers: Record<string, string>,
    body: string | Buffer,
    length = Buffer.byteLength(body),
  ): void {
    if (this.client.destroyed) return;
    this.client.write(
      `${statusLine(status)}${fieldLines({ ...headers, 'content-length': String(length) })}connection: close\r\n\r\n`,
    );
    this.client.end(body);
    lingerThenClose(this.client);
  }
}
