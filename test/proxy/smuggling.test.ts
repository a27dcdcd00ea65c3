import { describe, expect, it } from 'vitest';
import { MessageParser } from '../../proxy/http-parser.js';
import { openConnection, rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// Request smuggling: a request whose framing two readers could take differently is refused (400,
// and the connection closes), as RFC 9112 §6.3 asks and nginx, Envoy and HAProxy do. What is
// forwarded is framed as the proxy's parser read it, with a Content-Length the proxy wrote.

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
/** A request hidden in a body: it must never reach the target. */
const HIDDEN = 'GET /internal/admin HTTP/1.1\r\nHost: internal\r\n\r\n';

function post(fields: string, body: string): string {
  return `POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${fields}\r\n${body}`;
}

const chunkedHidden = `${HIDDEN.length.toString(16)}\r\n${HIDDEN}\r\n0\r\n\r\n`;

const AMBIGUOUS: [string, string][] = [
  [
    'chunked followed by an empty Transfer-Encoding',
    post('Transfer-Encoding: chunked\r\nTransfer-Encoding:\r\n', chunkedHidden),
  ],
  [
    'Transfer-Encoding given twice',
    post('Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', chunkedHidden),
  ],
  // A coding before chunked (gzip, chunked) is refused with 501: see transfer-codings.test.ts.
  ['chunked twice in one field', post('Transfer-Encoding: chunked, chunked\r\n', chunkedHidden)],
  ['chunked not last', post('Transfer-Encoding: chunked, identity\r\n', chunkedHidden)],
  ['a coding that is not chunked', post('Transfer-Encoding: identity\r\n', HIDDEN)],
  [
    'Transfer-Encoding with Content-Length',
    post(`Transfer-Encoding: chunked\r\nContent-Length: ${chunkedHidden.length}\r\n`, chunkedHidden),
  ],
  [
    'Content-Length with Transfer-Encoding after it',
    post(`Content-Length: 3\r\nTransfer-Encoding: chunked\r\n`, chunkedHidden),
  ],
  ['two Content-Lengths', post('Content-Length: 2\r\nContent-Length: 2\r\n', `{}${HIDDEN}`)],
];

describe('request smuggling', () => {
  for (const [name, bytes] of AMBIGUOUS) {
    it(`refuses ${name} with 400 and closes, and the target sees nothing`, async () => {
      const { server, heads } = scriptedTarget([OK]);
      await throughProxyTo(server, async (proxy) => {
        // Followed by a request of its own on the same connection: the proxy must not read on.
        const answer = await rawExchange(proxy.url, `${bytes}${HIDDEN}`);
        expect(answer).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer).toMatch(/connection: close/i);
        expect(answer.match(/HTTP\/1\.1/g)).toHaveLength(1);
      });
      expect(heads).toEqual([]);
    });
  }

  it('the parser refuses the framing itself, before any head is handed on', () => {
    let heads = 0;
    const parser = new MessageParser('request', {
      head: () => {
        heads += 1;
        return false;
      },
      body: () => {},
      end: () => {},
    });
    const error = parser.execute(Buffer.from(`${AMBIGUOUS[0]?.[1]}${HIDDEN}`));
    expect(error).toBe('HPE_INVALID_TRANSFER_ENCODING');
    expect(heads).toBe(0);
    // And it stays refused: nothing after is read.
    expect(parser.execute(Buffer.from(HIDDEN))).toBe('HPE_INVALID_TRANSFER_ENCODING');
    parser.close();
  });

  it('forwards a Content-Length it wrote itself: 010 goes on as 10, the body whole', async () => {
    const { server, heads } = scriptedTarget([OK]);
    const received: string[] = [];
    server.on('connection', (socket) => socket.on('data', (chunk) => received.push(chunk.toString('latin1'))));
    await throughProxyTo(server, async (proxy) => {
      const answer = await rawExchange(proxy.url, post('Content-Length: 010\r\nConnection: close\r\n', '{"a":"bc"}'));
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    });
    expect(heads[0]).toMatch(/\r\ncontent-length: 10\r\n/);
    expect(heads[0]).not.toMatch(/010/);
    expect(received.join('')).toMatch(/\r\n\r\n\{"a":"bc"\}$/);
  });

  it('forwards a chunked request as chunked, with only the coding it framed it by', async () => {
    const { server, heads } = scriptedTarget([OK]);
    await throughProxyTo(server, async (proxy) => {
      const answer = await rawExchange(
        proxy.url,
        post('Transfer-Encoding: chunked\r\nConnection: close\r\n', '2\r\n{}\r\n0\r\n\r\n'),
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    });
    expect(heads[0]?.match(/transfer-encoding/gi)).toHaveLength(1);
    expect(heads[0]).toMatch(/\r\ntransfer-encoding: chunked\r\n/);
    expect(heads[0]).not.toMatch(/content-length/i);
  });

  it('closes an HTTP/1.0 connection after a request with Transfer-Encoding, keep-alive or not', async () => {
    const { server, heads } = scriptedTarget([OK, OK]);
    await throughProxyTo(server, async (proxy) => {
      const request =
        'POST /checkout/abc HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n';
      const answer = await rawExchange(proxy.url, `${request}GET /checkout/abc HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toMatch(/connection: close/i);
      expect(answer.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    });
    expect(heads).toHaveLength(1);
  });

  it('drops the fields a Connection field names, both ways', async () => {
    const answer =
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: x-target-hop\r\nx-target-hop: 1\r\ncontent-length: 2\r\n\r\n{}';
    const { server, heads } = scriptedTarget([answer]);
    await throughProxyTo(server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      socket.write(
        'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive, X-Client-Hop\r\nX-Client-Hop: secret\r\nX-Kept: 1\r\n\r\n',
      );
      for (let round = 0; round < 100 && !received().includes('{}'); round += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(received()).toMatch(/^HTTP\/1\.1 200 /);
      expect(received()).not.toMatch(/x-target-hop: 1/i);
      socket.destroy();
    });
    expect(heads[0]).toMatch(/\r\nX-Kept: 1\r\n/);
    expect(heads[0]).not.toMatch(/x-client-hop/i);
  });
});
