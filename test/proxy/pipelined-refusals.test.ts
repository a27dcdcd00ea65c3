import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openConnection, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// A request the proxy refuses, pipelined behind one still being answered, is refused in its turn:
// the exchange before it gets its own answer first, never the refusal in its place.

const SLOW_OK = (socket: import('node:net').Socket) =>
  setTimeout(
    () => socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{"a":"b"}'),
    200,
  );

describe('a refused request pipelined behind another', () => {
  for (const [name, refused, status] of [
    ['HTTP/2.0', 'GET /checkout/b HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n', 505],
    [
      'a coding before chunked',
      'POST /checkout/b HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
      501,
    ],
    ['no HTTP at all', 'NOT HTTP\r\n\r\n', 400],
  ] as const) {
    it(`(${name}) is refused with ${status} after the answer before it, also when the client half-closes`, async () => {
      const { server, heads } = scriptedTarget([SLOW_OK]);
      await throughProxyTo(server, async (proxy) => {
        const { socket, received } = await openConnection(proxy.url);
        socket.write(`GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${refused}`);
        // The client sends nothing more, and says so.
        socket.end();
        await once(socket, 'close');
        const answers = received().match(/HTTP\/1\.1 \d{3}/g);
        expect(answers).toEqual(['HTTP/1.1 200', `HTTP/1.1 ${status}`]);
        expect(received()).toContain('{"a":"b"}');
      });
      expect(heads).toHaveLength(1);
    });
  }
});
