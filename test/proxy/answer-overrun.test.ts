import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openConnection, rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// A target that sends more than its answer (a body on an answer to HEAD, on a 204 or 304, more
// bytes than its Content-Length, anything while no request is out) must not have the rest taken
// for the answer to the next request: the proxy closes that connection and never uses it again.

const SMUGGLED = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{"smuggled":1}';
const REAL = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"real":1}';

const GET_B = 'GET /checkout/b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

describe('a target that sends more than its answer', () => {
  const cases: [string, string, string][] = [
    ['a body on an answer to HEAD', 'HEAD', `HTTP/1.1 200 OK\r\ncontent-length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
    ['a body on a 204', 'GET', `HTTP/1.1 204 No Content\r\n\r\n${SMUGGLED}`],
    ['a body on a 304', 'GET', `HTTP/1.1 304 Not Modified\r\n\r\n${SMUGGLED}`],
    [
      'more bytes than its Content-Length',
      'GET',
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}${SMUGGLED}`,
    ],
  ];
  for (const [name, method, first] of cases) {
    it(`gets its connection closed: ${name} never becomes the next answer`, async () => {
      const { server, heads } = scriptedTarget([first, REAL]);
      await throughProxyTo(server, async (proxy) => {
        const answers = await rawExchange(
          proxy.url,
          `${method} /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n${GET_B}`,
        );
        expect(answers).not.toContain('smuggled');
        expect(answers).toContain('{"real":1}');
      });
      expect(heads).toHaveLength(2);
    });
  }

  it('gets its connection closed when it sends anything while no request is out', async () => {
    let first: Socket | undefined;
    const cut = 20;
    const { server, heads } = scriptedTarget([
      (socket) => {
        first = socket;
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      },
      // The next request: on the same connection the rest of an answer begun unasked, on a new one the real answer.
      (socket) => socket.write(socket === first ? SMUGGLED.slice(cut) : REAL),
    ]);
    await throughProxyTo(server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      socket.write('GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      for (let round = 0; round < 100 && !received().includes('{}'); round += 1) await sleep(10);
      // Unasked, a moment later: the start of an answer, waiting for whatever request comes next.
      first?.write(SMUGGLED.slice(0, cut));
      await sleep(100);
      socket.write(GET_B);
      for (let round = 0; round < 100 && !/real|smuggled/.test(received()); round += 1) await sleep(10);
      expect(received()).not.toContain('smuggled');
      expect(received()).toContain('{"real":1}');
      socket.destroy();
    });
    expect(heads).toHaveLength(2);
  });
});
