import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openConnection, rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// A target that sends the head of its answer and then nothing more is given up after the target
// timeout: 504 while the client has had nothing, else the connection closes. A client that reads
// slowly is no stalled target.

const GET = 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

describe('a target that stalls in the middle of its answer', () => {
  it('gets a 504 to the client while nothing of the answer went out, recorded with the reason', async () => {
    const { server } = scriptedTarget([
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"status":',
    ]);
    const log: string[] = [];
    await throughProxyTo(
      server,
      async (proxy) => {
        const answer = await rawExchange(proxy.url, GET);
        expect(answer).toMatch(/^HTTP\/1\.1 504 Gateway Timeout\r\n/);
        expect(answer).toContain('sent nothing more of its answer for 0.2 s');
      },
      { targetTimeoutMs: 200, log: (line) => log.push(line) },
    );
    expect(log.join('\n')).toMatch(/GET \/v2\/checkout\/abc → the target .* sent nothing more of its answer/);
  });

  it('closes the client connection once part of a streamed answer went out', async () => {
    const { server } = scriptedTarget([
      'HTTP/1.1 200 OK\r\ncontent-type: application/pdf\r\ncontent-length: 1000\r\n\r\n%PDF-1.7 begun',
    ]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const answer = await rawExchange(proxy.url, GET);
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n%PDF-1\.7 begun$/);
      },
      { targetTimeoutMs: 200 },
    );
  });

  it('is not what a client that reads slowly looks like: a held-back answer arrives whole', async () => {
    const size = 16 * 1024 * 1024;
    const body = Buffer.alloc(size, 7);
    const { server } = scriptedTarget([
      (socket) => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/pdf\r\ncontent-length: ${size}\r\n\r\n`);
        socket.write(body);
      },
    ]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const { socket } = await openConnection(proxy.url);
        socket.removeAllListeners('data');
        socket.pause();
        socket.write(GET);
        // Longer than the target timeout with the answer held back in buffers on the way.
        await sleep(1500);
        let received = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {
          received += chunk;
        });
        socket.resume();
        await once(socket, 'close');
        const [head, rest] = [
          received.slice(0, received.indexOf('\r\n\r\n') + 4),
          received.slice(received.indexOf('\r\n\r\n') + 4),
        ];
        expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect(rest.length).toBe(size);
      },
      // The target, the proxy and the client share one process: a timeout of a second, not 200 ms,
      // so that a pause of the whole process on a loaded machine (its timers run before the data
      // that waited meanwhile) is not taken for a target that stalled.
      { targetTimeoutMs: 1000 },
    );
  });
});
