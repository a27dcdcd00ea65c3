import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceService } from '../../src/reference/service.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { openConnection, rawExchange } from '../helpers/raw-http.js';

// Whatever a connection becomes once accepted (a blind tunnel, an intercepted one, an event
// stream), it holds a descriptor until it closes, and so a place under --max-connections; event
// streams, which a reader may hold as long as it likes, have a limit of their own besides.

let folder: string;
/** A host that is not the interface: a blind tunnel's far end, which holds its connections open. */
let other: Server;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-limit-'));
  other = createServer((socket) => socket.on('error', () => {}));
  other.listen(0, '127.0.0.1');
  await once(other, 'listening');
});

afterAll(() => {
  other.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Opens `count` connections that each send `request`, and waits for each one's first answer (or its close). */
async function openMany(url: string, count: number, request: string): Promise<{ socket: Socket; first: string }[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const { socket, received } = await openConnection(url);
      socket.write(request);
      while (received() === '' && !socket.destroyed) {
        await Promise.race([once(socket, 'data'), once(socket, 'close')]);
      }
      return { socket, first: received() };
    }),
  );
}

function statusesOf(opened: { first: string }[]): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const { first } of opened) {
    const status = /^HTTP\/1\.1 (\d{3})/.exec(first)?.[1] ?? 'none';
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return statuses;
}

describe('--max-connections', () => {
  it('counts blind tunnels for as long as they are open, and serves again once they close', async () => {
    const setup = await proxiedService({ proxy: { maxConnections: 6, caDir: join(folder, 'ca') } });
    try {
      const port = (other.address() as AddressInfo).port;
      const tunnels = await openMany(
        setup.proxy.url,
        20,
        `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`,
      );
      expect(statusesOf(tunnels)).toEqual({ '200': 6, '503': 14 });
      const whileFull = await rawExchange(setup.proxy.url, 'GET /v2/orders/x HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      expect(whileFull).toMatch(/^HTTP\/1\.1 503 [\s\S]*too many connections/);
      await Promise.all(
        tunnels.map(({ socket }) => {
          const closed = socket.destroyed ? Promise.resolve() : once(socket, 'close');
          socket.destroy();
          return closed;
        }),
      );
      // The proxy sees the tunnels close a moment after their clients do.
      let served = '';
      for (let tries = 0; tries < 50 && !/^HTTP\/1\.1 404/.test(served); tries += 1) {
        served = await rawExchange(
          setup.proxy.url,
          'GET /v2/orders/x HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n',
        );
        if (!/^HTTP\/1\.1 404/.test(served)) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(served).toMatch(/^HTTP\/1\.1 404/);
    } finally {
      await setup.dispose();
    }
  });

  it("counts intercepted tunnels (CONNECT to the interface's host) too", async () => {
    const setup = await proxiedService({ proxy: { maxConnections: 5, caDir: join(folder, 'ca') } });
    try {
      const { host } = new URL(setup.service.baseUrl);
      const tunnels = await openMany(setup.proxy.url, 12, `CONNECT ${host} HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
      expect(statusesOf(tunnels)).toEqual({ '200': 5, '503': 7 });
      for (const { socket } of tunnels) socket.destroy();
    } finally {
      await setup.dispose();
    }
  });

  it('counts requests passed on blind while they wait for their host', async () => {
    const setup = await proxiedService({ proxy: { maxConnections: 4 } });
    try {
      const port = (other.address() as AddressInfo).port;
      // The other host never answers: the four let through hold their places.
      const opened = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const connection = await openConnection(setup.proxy.url);
          connection.socket.write(`GET http://127.0.0.1:${port}/slow HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
          return connection;
        }),
      );
      const refused = () => opened.filter(({ received }) => received().startsWith('HTTP/1.1 503')).length;
      for (let tries = 0; tries < 100 && refused() < 4; tries += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(refused()).toBe(4);
      expect(opened.filter(({ received }) => received() === '')).toHaveLength(4);
      for (const { socket } of opened) socket.destroy();
    } finally {
      await setup.dispose();
    }
  });

  it('counts event streams, which have a limit of their own (half the connections at most)', async () => {
    const setup = await proxiedService({ proxy: { maxConnections: 10 } });
    try {
      const streams = await openMany(
        setup.proxy.url,
        8,
        'GET /__print-conformance/api/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
      );
      expect(statusesOf(streams)).toEqual({ '200': 5, '503': 3 });
      const refused = streams.find(({ first }) => first.startsWith('HTTP/1.1 503'));
      expect(refused?.first).toMatch(/5 event streams are open already/);
      // The five streams open hold five places of ten: five more connections, and no more, are taken.
      const more = await openMany(
        setup.proxy.url,
        8,
        `CONNECT 127.0.0.1:${(other.address() as AddressInfo).port} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`,
      );
      expect(statusesOf(more)).toEqual({ '200': 5, '503': 3 });
      for (const { socket } of [...streams, ...more]) socket.destroy();
    } finally {
      await setup.dispose();
    }
  });
});

describe("serve's event streams", () => {
  it('are refused past their limit, and the service still answers', async () => {
    const service = await startReferenceService({ control: {} });
    try {
      const streams = await openMany(
        service.baseUrl,
        40,
        'GET /__print-conformance/api/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
      );
      expect(statusesOf(streams)).toEqual({ '200': 32, '503': 8 });
      expect((await fetch(`${service.baseUrl}orders/x`)).status).toBe(404);
      for (const { socket } of streams) socket.destroy();
    } finally {
      await service.close();
    }
  });
});
