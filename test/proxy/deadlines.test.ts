import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { rawExchange, throughProxyTo } from '../helpers/raw-http.js';

// --connect-timeout is a deadline, not an idle timer: a target that trickles its TLS handshake or
// the head of its answer a byte at a time, or a host that never takes the connection, gets its
// 504 within the setting, not whenever its trickle stops. Bounds are loose (the machine may be
// busy): the answer is due after the setting and well before three times it.

const LIMIT_MS = 500;
const GET = 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

/** A server whose every connection gets `each` written to it every 100 ms, for ever. */
function trickling(first: Buffer | string, each: Buffer | string): Server {
  return createServer((socket) => {
    socket.on('error', () => {});
    socket.write(first);
    const timer = setInterval(() => socket.write(each), 100);
    socket.on('close', () => clearInterval(timer));
  });
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

function expectDeadline(ms: number): void {
  expect(ms).toBeGreaterThanOrEqual(LIMIT_MS * 0.9);
  expect(ms).toBeLessThan(LIMIT_MS * 3);
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/**
 * A port whose connections are never taken: a process listens with a backlog of one and blocks,
 * and the queue is filled, so that a new connection waits for a SYN-ACK that does not come.
 */
async function unacceptingPort(): Promise<{ port: number; held: Socket[] }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
        process.stdout.write(s.address().port + '\\n');
        setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000), 50);
      });`,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.push(child);
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const port = Number(String(line).trim());
  await new Promise((resolve) => setTimeout(resolve, 200));
  const held: Socket[] = [];
  for (let index = 0; index < 2; index += 1) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    held.push(socket);
  }
  return { port, held };
}

describe('the connect timeout is a deadline', () => {
  it('a target that trickles the head of its answer gets 504 within the setting', async () => {
    const server = trickling('HTTP/1.1 200 OK\r\n', 'x-more: yes\r\n');
    await throughProxyTo(
      server,
      async (proxy) => {
        const { result, ms } = await timed(() => rawExchange(proxy.url, GET));
        expect(result).toMatch(/^HTTP\/1\.1 504 /);
        expect(result).toContain('did not answer within 0.5 s');
        expectDeadline(ms);
      },
      { connectTimeoutMs: LIMIT_MS },
    );
  });

  it('a silent target gets 504 within the setting', async () => {
    const server = createServer((socket) => socket.on('error', () => {}));
    await throughProxyTo(
      server,
      async (proxy) => {
        const { result, ms } = await timed(() => rawExchange(proxy.url, GET));
        expect(result).toMatch(/^HTTP\/1\.1 504 /);
        expectDeadline(ms);
      },
      { connectTimeoutMs: LIMIT_MS },
    );
  });

  it('an https target that trickles its TLS handshake gets 504 within the setting', async () => {
    // A handshake record announced long, then a byte of it every 100 ms.
    const server = trickling(Buffer.from([0x16, 0x03, 0x03, 0x40, 0x00]), Buffer.from([0x02]));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const proxy = await startProxy({ target: `https://127.0.0.1:${port}/v2/`, connectTimeoutMs: LIMIT_MS });
    try {
      const { result, ms } = await timed(() => rawExchange(proxy.url, GET));
      expect(result).toMatch(/^HTTP\/1\.1 504 /);
      expect(result).toContain('did not complete its TLS handshake within 0.5 s');
      expectDeadline(ms);
    } finally {
      await proxy.close();
      server.close();
    }
  });

  it('a target that never takes the connection gets 504 within the setting', async () => {
    const { port, held } = await unacceptingPort();
    const proxy = await startProxy({ target: `http://127.0.0.1:${port}/v2/`, connectTimeoutMs: LIMIT_MS });
    try {
      const { result, ms } = await timed(() => rawExchange(proxy.url, GET));
      expect(result).toMatch(/^HTTP\/1\.1 504 /);
      expect(result).toContain('did not accept a connection within 0.5 s');
      expectDeadline(ms);
    } finally {
      await proxy.close();
      for (const socket of held) socket.destroy();
    }
  });

  it('a CONNECT to a host that never takes the connection gets 504 within the setting', async () => {
    const { port, held } = await unacceptingPort();
    const server = createServer((socket) => socket.on('error', () => {}));
    await throughProxyTo(
      server,
      async (proxy) => {
        const { result, ms } = await timed(() =>
          rawExchange(proxy.url, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
        );
        expect(result).toMatch(/^HTTP\/1\.1 504 /);
        expect(result).toContain('did not accept a connection within 0.5 s');
        expectDeadline(ms);
      },
      { connectTimeoutMs: LIMIT_MS },
    );
    for (const socket of held) socket.destroy();
  });

  it('a request in absolute form for a host that never takes the connection gets 504 within the setting', async () => {
    const { port, held } = await unacceptingPort();
    const server = createServer((socket) => socket.on('error', () => {}));
    await throughProxyTo(
      server,
      async (proxy) => {
        const { result, ms } = await timed(() =>
          rawExchange(proxy.url, `GET http://127.0.0.1:${port}/x HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
        );
        expect(result).toMatch(/^HTTP\/1\.1 504 /);
        expect(result).toContain('did not answer within 0.5 s');
        expectDeadline(ms);
      },
      { connectTimeoutMs: LIMIT_MS },
    );
    for (const socket of held) socket.destroy();
  });

  it('an upload slower than the setting is not cut off: the deadline starts once the body has gone whole', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      let seen = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        seen += chunk;
        if (seen.includes('\r\n0\r\n\r\n'))
          socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      });
    });
    await throughProxyTo(
      server,
      async (proxy) => {
        const { hostname, port } = new URL(proxy.url);
        const client = connect(Number(port), hostname);
        await once(client, 'connect');
        let answer = '';
        client.setEncoding('latin1');
        client.on('data', (chunk: string) => {
          answer += chunk;
        });
        client.write(
          'POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
        );
        // Two and a half times the setting in pieces, none of them far apart.
        for (let piece = 0; piece < 10; piece += 1) {
          client.write('1\r\na\r\n');
          await new Promise((resolve) => setTimeout(resolve, LIMIT_MS / 4));
        }
        client.write('0\r\n\r\n');
        await once(client, 'close');
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      },
      { connectTimeoutMs: LIMIT_MS },
    );
  });
});

describe('the TLS handshake of an intercepted CONNECT is a deadline', () => {
  it('a client that trickles its handshake is cut off within --headers-timeout', async () => {
    const server = createServer((socket) => socket.on('error', () => {}));
    await throughProxyTo(
      server,
      async (proxy) => {
        const target = new URL(proxy.url);
        const port = (server.address() as { port: number }).port;
        const client = connect(Number(target.port), target.hostname);
        client.on('error', () => {});
        await once(client, 'connect');
        client.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        const [established] = (await once(client, 'data')) as [Buffer];
        expect(String(established)).toMatch(/^HTTP\/1\.1 200 /);
        // A handshake record announced long, then a byte of it every 100 ms.
        client.write(Buffer.from([0x16, 0x03, 0x01, 0x40, 0x00]));
        const timer = setInterval(() => client.write(Buffer.from([0x01])), 100);
        const { ms } = await timed(() => once(client, 'close'));
        clearInterval(timer);
        expectDeadline(ms);
      },
      { headersTimeoutMs: LIMIT_MS },
    );
  });
});
