import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { peakMemoryReadable, proxyProcess } from '../helpers/peak-memory.js';
import { openConnection } from '../helpers/raw-http.js';

// What an attacker can make the proxy hold, measured as the proxy process's peak resident memory:
// a body in one-byte chunks from either side, answers piling up for a client that reads none of
// them, an endless stream of interim answers. Each stays within a few tens of MiB, whatever the
// attack's length; before, they cost 300 to 550 MiB and grew with it.

const MIB = 1024 * 1024;
/** Growth of the proxy's peak memory allowed under one attack (it runs with a 256 MiB budget). */
const BOUND_MIB = 48;

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function listening(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v2/`;
}

/** A JSON document of exactly `size` bytes. */
function jsonOf(size: number): Buffer {
  const open = '{"returnUrl":"https://shop.example.test/';
  return Buffer.from(`${open}${'x'.repeat(size - open.length - 2)}"}`);
}

/** A body as chunked transfer coding in chunks of one byte each. */
function oneByteChunks(body: Buffer): Buffer {
  const out = Buffer.alloc(body.length * 6 + 5);
  let at = 0;
  for (const byte of body) {
    out.write('1\r\n', at, 'latin1');
    out[at + 3] = byte;
    out.write('\r\n', at + 4, 'latin1');
    at += 6;
  }
  out.write('0\r\n\r\n', at, 'latin1');
  return out;
}

async function until(done: () => boolean, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await sleep(20);
}

describe.skipIf(!peakMemoryReadable)('memory an attacker can make the proxy hold', () => {
  it('a JSON request body sent in one-byte chunks costs about its size, not a Buffer per byte', async () => {
    const received: number[] = [];
    const target = createHttpServer(async (request, response) => {
      let size = 0;
      for await (const chunk of request) size += (chunk as Buffer).length;
      received.push(size);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const proxy = await proxyProcess(await listening(target as unknown as Server));
    try {
      const body = jsonOf(MIB);
      const { socket, received: answer } = await openConnection(proxy.url);
      socket.write(
        'POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      socket.write(oneByteChunks(body));
      await until(() => /HTTP\/1\.1 200/.test(answer()), 30_000);
      expect(answer()).toMatch(/^HTTP\/1\.1 200/);
      expect(received).toEqual([MIB]);
      const growth = proxy.peakGrowthMiB();
      console.log(`peak growth, 1 MiB request in one-byte chunks: ${growth.toFixed(1)} MiB`);
      expect(growth).toBeLessThan(BOUND_MIB);
      socket.destroy();
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it('bodies held by many connections at once stay within --memory-budget, however they are cut', async () => {
    const target = createServer((socket) => {
      socket.on('error', () => {});
      socket.resume();
    });
    const budget = 8;
    const proxy = await proxyProcess(await listening(target), ['--memory-budget', `${budget}MiB`]);
    try {
      // 12 clients each send 1 MiB of a JSON body in one-byte chunks, and never end it: held for
      // validation while the budget lasts, then passed on unheld.
      const body = oneByteChunks(jsonOf(MIB)).subarray(0, 6 * MIB);
      const clients = await Promise.all(Array.from({ length: 12 }, () => openConnection(proxy.url)));
      for (const { socket } of clients) {
        socket.write(
          'POST /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        socket.write(body);
      }
      await until(() => clients.every(({ socket }) => socket.writableLength === 0), 30_000);
      await sleep(500);
      const growth = proxy.peakGrowthMiB();
      console.log(
        `peak growth, 12 MiB of one-byte chunks held against an ${budget} MiB budget: ${growth.toFixed(1)} MiB`,
      );
      expect(growth).toBeLessThan(budget + 40);
      for (const { socket } of clients) socket.destroy();
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it('a JSON answer sent in one-byte chunks costs about its size too', async () => {
    const body = jsonOf(MIB);
    const target = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
        socket.write(oneByteChunks(body));
      });
    });
    const proxy = await proxyProcess(await listening(target));
    try {
      const { socket, received } = await openConnection(proxy.url);
      socket.write('GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await until(() => received().endsWith('"}') || received().endsWith('0\r\n\r\n'), 30_000);
      expect(received()).toMatch(/^HTTP\/1\.1 200/);
      expect(received()).toContain('xxxx"}');
      const growth = proxy.peakGrowthMiB();
      console.log(`peak growth, 1 MiB answer in one-byte chunks: ${growth.toFixed(1)} MiB`);
      expect(growth).toBeLessThan(BOUND_MIB);
      socket.destroy();
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it('answers to pipelined requests do not pile up for a client that reads none of them', async () => {
    const answer = Buffer.concat([
      Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${MIB}\r\n\r\n`),
      jsonOf(MIB),
    ]);
    let asked = 0;
    const target = createServer((socket) => {
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => {
        for (const _ of chunk.toString('latin1').matchAll(/\r\n\r\n/g)) {
          asked += 1;
          socket.write(answer);
        }
      });
    });
    const proxy = await proxyProcess(await listening(target));
    try {
      const { socket } = await openConnection(proxy.url);
      // 200 requests, 9 KB in all, for 200 MiB of answers; the client reads nothing.
      socket.pause();
      socket.write('GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(200));
      await sleep(4000);
      const growth = proxy.peakGrowthMiB();
      console.log(`peak growth, 200 pipelined 1 MiB answers never read: ${growth.toFixed(1)} MiB (${asked} asked)`);
      expect(growth).toBeLessThan(BOUND_MIB);
      // The proxy asked the target for no more than the client's socket could take.
      expect(asked).toBeLessThan(20);
      socket.destroy();
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it('an endless stream of interim answers is held back and cut off', async () => {
    const hint = 'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload; as=style\r\n\r\n'.repeat(64);
    const sockets: Socket[] = [];
    const target = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      socket.once('data', () => {
        const flood = () => {
          while (!socket.destroyed && socket.write(hint));
          if (!socket.destroyed) socket.once('drain', flood);
        };
        flood();
      });
    });
    const proxy = await proxyProcess(await listening(target), ['--connect-timeout', '3']);
    try {
      // One client that reads nothing, one that reads everything.
      const deaf = await openConnection(proxy.url);
      deaf.socket.pause();
      deaf.socket.write('GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const reader = await openConnection(proxy.url);
      reader.socket.write('GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const started = Date.now();
      // Cut off: past 32 interim answers (502), or past the answer timeout (504).
      await until(() => /HTTP\/1\.1 50[24]/.test(reader.received()), 15_000);
      expect(reader.received()).toMatch(/HTTP\/1\.1 50[24]/);
      expect(Date.now() - started).toBeLessThan(6000);
      await sleep(Math.max(0, 5000 - (Date.now() - started)));
      const growth = proxy.peakGrowthMiB();
      console.log(`peak growth, 5 s of 103 answers: ${growth.toFixed(1)} MiB`);
      expect(growth).toBeLessThan(BOUND_MIB);
      deaf.socket.destroy();
      reader.socket.destroy();
    } finally {
      for (const socket of sockets) socket.destroy();
      await proxy.stop();
    }
  }, 60_000);
});
