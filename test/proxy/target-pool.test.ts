import { createServer, type Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openConnection, throughProxyTo } from '../helpers/raw-http.js';

// A target connection left idle by a client connection that closed is taken by the next client
// connection, unless it may hold a request body the target did not read.

/** A target that reads no bodies: each head is answered with its path; counts connections and closes. */
function countingTarget(): { server: Server; connections: () => number; closed: () => number; paths: string[] } {
  let connections = 0;
  let closed = 0;
  const paths: string[] = [];
  const server = createServer((socket) => {
    connections += 1;
    socket.once('close', () => {
      closed += 1;
    });
    socket.setEncoding('latin1');
    socket.on('error', () => {});
    let pending = '';
    let path: string | undefined;
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const start = /^[A-Z]+ (\S+) HTTP\/1\.[01]$/.exec(line);
        if (start) path = start[1];
        else if (line === '' && path !== undefined) {
          const body = JSON.stringify({ path });
          paths.push(path);
          path = undefined;
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
          );
        }
      }
    });
  });
  return { server, connections: () => connections, closed: () => closed, paths };
}

/** One request on a client connection of its own, closed once its answer came; the path the answer names. */
async function oneRequest(proxyUrl: string, request: string): Promise<string | undefined> {
  const { socket, received } = await openConnection(proxyUrl);
  socket.write(request);
  for (let waited = 0; waited < 5000 && !received().includes('{"path"'); waited += 10) await sleep(10);
  socket.destroy();
  // The proxy hears of the close before the next client connects.
  await sleep(50);
  return /\{"path":"([^"]*)"\}/.exec(received())?.[1];
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
const HIDDEN = 'GET /smuggled HTTP/1.1\r\nX-Hidden: y';

describe('target connections across client connections', () => {
  it('one left idle by a closed client connection carries the next client connection’s request', async () => {
    const target = countingTarget();
    await throughProxyTo(target.server, async (proxy) => {
      expect(await oneRequest(proxy.url, GET('/checkout/a'))).toBe('/v2/checkout/a');
      expect(await oneRequest(proxy.url, GET('/checkout/b'))).toBe('/v2/checkout/b');
      expect(await oneRequest(proxy.url, GET('/checkout/c'))).toBe('/v2/checkout/c');
    });
    expect(target.connections()).toBe(1);
  });

  it('one that may hold an unread body (CL.0) is closed, never given to the next client connection', async () => {
    const target = countingTarget();
    await throughProxyTo(target.server, async (proxy) => {
      const smuggling = `GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`;
      expect(await oneRequest(proxy.url, smuggling)).toBe('/v2/checkout/a');
      expect(await oneRequest(proxy.url, GET('/checkout/next'))).toBe('/v2/checkout/next');
    });
    expect(target.paths).not.toContain('/smuggled');
    expect(target.connections()).toBe(2);
  });

  it('those kept close when the proxy stops', async () => {
    const target = countingTarget();
    await throughProxyTo(target.server, async (proxy) => {
      expect(await oneRequest(proxy.url, GET('/checkout/a'))).toBe('/v2/checkout/a');
      expect(target.closed()).toBe(0);
      await proxy.close();
      for (let waited = 0; waited < 2000 && target.closed() === 0; waited += 10) await sleep(10);
      expect(target.closed()).toBe(1);
    });
  });
});
