import { describe, expect, it } from 'vitest';
import { type MessageHead, MessageParser } from '../../proxy/http-parser.js';
import { rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// Trailer fields come after a chunked body. They belong to that message alone: they are dropped,
// never merged into the head of the message after it on the connection.

const CHUNKED_POST =
  'POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '2\r\n{}\r\n0\r\nX-Trailer: leak\r\nHost: 127.0.0.1\r\n\r\n';
const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('trailer fields', () => {
  it('are not read as part of the next message head by the parser', () => {
    const heads: MessageHead[] = [];
    const parser = new MessageParser('request', {
      head: (head) => {
        heads.push(head);
        return false;
      },
      body: () => {},
      end: () => {},
    });
    expect(
      parser.execute(Buffer.from(`${CHUNKED_POST}GET /checkout/second HTTP/1.1\r\nHost: a\r\n\r\n`)),
    ).toBeUndefined();
    parser.close();
    expect(heads.map((h) => h.url)).toEqual(['/checkout/abc', '/checkout/second']);
    expect(heads[1]?.rawHeaders).toEqual(['Host', 'a']);
  });

  it("of a request reach neither the next request's URL nor its head at the target", async () => {
    const { server, heads } = scriptedTarget([OK, OK]);
    await throughProxyTo(server, async (proxy) => {
      const answers = await rawExchange(
        proxy.url,
        `${CHUNKED_POST}GET /checkout/second HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      expect(answers.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    });
    expect(heads[1]).toMatch(/^GET \/v2\/checkout\/second HTTP\/1\.1\r\n/);
    expect(heads.join('')).not.toMatch(/x-trailer/i);
  });

  it('of a request do not give the next one the Host it lacks', async () => {
    const { server } = scriptedTarget([OK, OK]);
    await throughProxyTo(server, async (proxy) => {
      const answers = await rawExchange(proxy.url, `${CHUNKED_POST}GET /checkout/second HTTP/1.1\r\n\r\n`);
      expect(answers.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    });
  });

  it("of an answer do not become fields of the next answer's head", async () => {
    const chunkedWithCookie =
      'HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ntransfer-encoding: chunked\r\n\r\n' +
      '2\r\nab\r\n0\r\nSet-Cookie: session=stolen\r\n\r\n';
    const { server } = scriptedTarget([chunkedWithCookie, OK]);
    await throughProxyTo(server, async (proxy) => {
      const get = 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
      const answers = await rawExchange(proxy.url, get + get.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
      expect(answers.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
      expect(answers).not.toMatch(/set-cookie/i);
    });
  });
});
