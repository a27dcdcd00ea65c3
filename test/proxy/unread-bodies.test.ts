import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openConnection, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// A target that may have left a request's body unread (a body on a GET or OPTIONS, an Expect it
// answered at once) reads that body as the next request on its connection: its answer to it would
// become the next client's answer (0.CL, TE.0). After such a request the target connection is
// closed, never given another request.

/**
 * A target that reads no bodies: every head (a request line, fields, an empty line) is answered
 * with its path, `delayMs` after the answer before it, and whatever else comes is skipped.
 */
function bodyBlindTarget(delayMs: number): { server: Server; connections: () => number; paths: string[] } {
  let connections = 0;
  const paths: string[] = [];
  const server = createServer((socket) => {
    connections += 1;
    socket.setEncoding('latin1');
    socket.on('error', () => {});
    let pending = '';
    let path: string | undefined;
    let queue = Promise.resolve();
    socket.on('data', (chunk: string) => {
      pending += chunk;
      for (let end = pending.indexOf('\r\n'); end >= 0; end = pending.indexOf('\r\n')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const start = /^[A-Z]+ (\S+) HTTP\/1\.[01]$/.exec(line);
        if (start) path = start[1];
        else if (line === '' && path !== undefined) {
          const answered = path;
          path = undefined;
          paths.push(answered);
          queue = queue.then(async () => {
            await sleep(delayMs);
            const body = JSON.stringify({ path: answered });
            if (!socket.destroyed)
              socket.write(
                `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
              );
          });
        }
      }
    });
  });
  return { server, connections: () => connections, paths };
}

/** The paths the answers on one client connection name, once `count` of them have come. */
async function answeredPaths(received: () => string, count: number): Promise<string[]> {
  for (let waited = 0; waited < 5000; waited += 20) {
    const paths = [...received().matchAll(/\{"path":"([^"]*)"\}/g)].map((match) => match[1] as string);
    if (paths.length >= count) return paths;
    await sleep(20);
  }
  throw new Error(`fewer than ${count} answers came: ${received()}`);
}

/** An unfinished request head hidden in a body: the next request's bytes would finish it. */
const HIDDEN = 'GET /smuggled HTTP/1.1\r\nX-Hidden: y';
const NEXT = 'GET /checkout/next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

describe('a target connection after a body the target may not have read', () => {
  it('a chunked OPTIONS: the next request goes on a new connection and gets its own answer', async () => {
    const target = bodyBlindTarget(100);
    await throughProxyTo(target.server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      const chunk = `${HIDDEN}\r\n\r\n`;
      socket.write(
        `OPTIONS /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      );
      await answeredPaths(received, 1);
      socket.write(NEXT);
      expect(await answeredPaths(received, 2)).toEqual(['/v2/checkout/a', '/v2/checkout/next']);
      socket.destroy();
    });
    expect(target.connections()).toBe(2);
  });

  it('a GET with a Content-Length (CL.0): the hidden request never becomes the next answer', async () => {
    const target = bodyBlindTarget(0);
    await throughProxyTo(target.server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      socket.write(`GET /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`);
      await answeredPaths(received, 1);
      socket.write(NEXT);
      expect(await answeredPaths(received, 2)).toEqual(['/v2/checkout/a', '/v2/checkout/next']);
      socket.destroy();
    });
    expect(target.paths).not.toContain('/smuggled');
    expect(target.connections()).toBe(2);
  });

  it('an Expect the target answered without 100 Continue: the connection is not given another request', async () => {
    const target = bodyBlindTarget(100);
    await throughProxyTo(target.server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      const body = `${HIDDEN}\r\n\r\n`;
      // The client does not wait for 100 Continue: the body follows its head at once.
      socket.write(
        `POST /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      await answeredPaths(received, 1);
      socket.write(NEXT);
      expect(await answeredPaths(received, 2)).toEqual(['/v2/checkout/a', '/v2/checkout/next']);
      socket.destroy();
    });
    expect(target.connections()).toBe(2);
  });

  it('an Expect the target answered with 100 Continue keeps its connection for the next request', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.setEncoding('latin1');
      socket.on('error', () => {});
      let pending = '';
      let continued = false;
      socket.on('data', (chunk: string) => {
        pending += chunk;
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.slice(0, end);
        if (/expect: 100-continue/i.test(head) && !continued) {
          continued = true;
          socket.write('HTTP/1.1 100 Continue\r\n\r\n');
        }
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length - end - 4 < length) return;
        pending = pending.slice(end + 4 + length);
        continued = false;
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      });
    });
    await throughProxyTo(server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      socket.write(
        'POST /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n',
      );
      for (let waited = 0; !received().includes('100 Continue') && waited < 5000; waited += 20) await sleep(20);
      socket.write('{}');
      for (let waited = 0; !received().includes('{}') && waited < 5000; waited += 20) await sleep(20);
      socket.write('GET /checkout/b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await once(socket, 'close');
      expect(received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    });
    expect(connections).toBe(1);
  });

  it('a POST whose body the target reads keeps its connection for the next request', async () => {
    const ok = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';
    const { server, heads } = scriptedTarget([ok]);
    let connections = 0;
    server.on('connection', () => {
      connections += 1;
    });
    await throughProxyTo(server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      socket.write(
        'POST /checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      );
      for (let waited = 0; !received().includes('{}') && waited < 5000; waited += 20) await sleep(20);
      socket.write('GET /checkout/b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      await once(socket, 'close');
      expect(received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    });
    expect(heads).toHaveLength(2);
    expect(connections).toBe(1);
  });
});
