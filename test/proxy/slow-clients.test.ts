import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openConnection, rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// Clients that hold the proxy's connections: a head trickled a byte at a time must not keep one
// open for ever, and past --max-connections new ones are turned away in HTTP, not left hanging.

const OK = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('slow and many clients', () => {
  it('answers 408 to a head trickled a byte at a time, past the headers timeout, and closes', async () => {
    const { server, heads } = scriptedTarget([OK]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const { socket, received } = await openConnection(proxy.url);
        const closed = once(socket, 'close');
        socket.write('GET /checkout/abc HTTP/1.1\r\n');
        // Each byte well within the client timeout, which it would restart: only the deadline stops it.
        for (let sent = 0; sent < 100 && !socket.destroyed && received() === ''; sent += 1) {
          socket.write('X');
          await sleep(20);
        }
        await closed;
        expect(received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*connection: close/);
        expect(received()).toContain('the request head was not complete within 0.2 s');
      },
      { headersTimeoutMs: 200, clientTimeoutMs: 30_000 },
    );
    expect(heads).toHaveLength(0);
  });

  it('gives a head its deadline even without a client timeout, and a whole head none', async () => {
    const { server } = scriptedTarget([OK]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const { socket, received } = await openConnection(proxy.url);
        socket.write('GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        await once(socket, 'close');
        expect(received()).toMatch(/^HTTP\/1\.1 408 /);
        // Requests sent whole, one after the other on one connection, are not affected.
        const get = 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
        const kept = await openConnection(proxy.url);
        for (let count = 1; count <= 3; count += 1) {
          kept.socket.write(get);
          while ((kept.received().match(/HTTP\/1\.1 200/g) ?? []).length < count) await once(kept.socket, 'data');
          await sleep(100);
        }
        expect(kept.received()).not.toMatch(/408/);
        kept.socket.destroy();
      },
      { headersTimeoutMs: 200, clientTimeoutMs: 0 },
    );
  });

  it('answers 503 and closes a connection past --max-connections, and takes new ones once below', async () => {
    const { server } = scriptedTarget([OK]);
    const log: string[] = [];
    await throughProxyTo(
      server,
      async (proxy) => {
        const first = await openConnection(proxy.url);
        const second = await openConnection(proxy.url);
        const turnedAway = await rawExchange(proxy.url, 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        expect(turnedAway).toMatch(
          /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*connection: close[\s\S]*too many connections/,
        );
        first.socket.destroy();
        second.socket.destroy();
        await Promise.all([once(first.socket, 'close'), once(second.socket, 'close')]);
        await sleep(50);
        const served = await rawExchange(
          proxy.url,
          'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        );
        expect(served).toMatch(/^HTTP\/1\.1 200 /);
      },
      { maxConnections: 2, log: (line) => log.push(line) },
    );
    expect(log).toContain('2 client connections are open (--max-connections): more are answered 503');
  });
});

describe('slow clients and the limits that bound them', () => {
  it('cuts off a head trickled a byte at a time within twice the client timeout, whatever the headers timeout', async () => {
    const { server, heads } = scriptedTarget([OK]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const { socket, received } = await openConnection(proxy.url);
        const closed = once(socket, 'close');
        const started = Date.now();
        socket.write('GET /checkout/abc HTTP/1.1\r\n');
        const trickle = setInterval(() => socket.writable && socket.write('X'), 250);
        await closed;
        clearInterval(trickle);
        expect(received()).toMatch(/^HTTP\/1\.1 408 /);
        // Twice the client timeout, and the sweep that finds late heads (an eighth of it, at most half a second).
        expect(Date.now() - started).toBeLessThan(3000);
      },
      { headersTimeoutMs: 20_000, clientTimeoutMs: 1000 },
    );
    expect(heads).toHaveLength(0);
  });

  it('lets a trickling head give way to a new client when every connection is taken', async () => {
    const { server } = scriptedTarget([OK]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const tricklers = await Promise.all(Array.from({ length: 8 }, () => openConnection(proxy.url)));
        for (const { socket } of tricklers) socket.write('GET /checkout/abc HTTP/1.1\r\nX-Slow: ');
        const trickle = setInterval(() => {
          for (const { socket } of tricklers) if (socket.writable) socket.write('a');
        }, 100);
        await sleep(1200);
        const started = Date.now();
        const answer = await rawExchange(
          proxy.url,
          'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        );
        clearInterval(trickle);
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        expect(Date.now() - started).toBeLessThan(1000);
        // The one that trickled longest was told why, and closed.
        expect(tricklers.some(({ received }) => /^HTTP\/1\.1 408 [\s\S]*to make room/.test(received()))).toBe(true);
        for (const { socket } of tricklers) socket.destroy();
      },
      { maxConnections: 8, headersTimeoutMs: 60_000, clientTimeoutMs: 60_000 },
    );
  });

  it('closes a connection idle between requests to make room for a new one', async () => {
    const { server } = scriptedTarget([OK]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const idle = await Promise.all(Array.from({ length: 4 }, () => openConnection(proxy.url)));
        for (const { socket, received } of idle) {
          socket.write('GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
          while (!received().includes('{}')) await once(socket, 'data');
        }
        const answer = await rawExchange(
          proxy.url,
          'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
        );
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        for (const { socket } of idle) socket.destroy();
      },
      { maxConnections: 4 },
    );
  });
});
