import { once } from 'node:events';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { openConnection, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// Stopping (SIGINT/SIGTERM, or the end of a wrapped command): the proxy stops accepting, closes
// idle kept-alive client connections at once, lets exchanges in flight finish, flushes the
// recording. A client timeout of ten minutes stands for "never": were the stop to wait for an idle
// connection to time out, these tests would run out of time.

const ANSWER = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

async function answered(connection: { received: () => string }, count: number): Promise<void> {
  while ((connection.received().match(/HTTP\/1\.1 /g) ?? []).length < count)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the proxy stopping', () => {
  it('does not wait for a kept-alive client that sits idle', async () => {
    const setup = await proxiedService({ proxy: { clientTimeoutMs: 600_000 } });
    try {
      const idle = await openConnection(setup.proxy.url);
      idle.socket.write('POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-length: 0\r\n\r\n');
      await answered(idle, 1);
      expect(idle.received()).toMatch(/connection: keep-alive/i);
      const closedByProxy = once(idle.socket, 'end');
      const recorded = await setup.recorded();
      await closedByProxy;
      expect(recorded).toHaveLength(1);
      expect(setup.proxy.traffic.reached).toBe(1);
      idle.socket.destroy();
    } finally {
      await setup.dispose();
    }
  });

  it('closes an idle connection at once while it lets an exchange in flight finish', async () => {
    let release: (() => void) | undefined;
    const target = scriptedTarget([
      ANSWER,
      (socket: Socket) => {
        release = () => socket.write(ANSWER);
      },
    ]);
    await throughProxyTo(
      target.server,
      async (proxy) => {
        const idle = await openConnection(proxy.url);
        idle.socket.write('GET /v2/checkout/a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        await answered(idle, 1);
        const busy = await openConnection(proxy.url);
        busy.socket.write('GET /v2/checkout/b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        while (!release) await new Promise((resolve) => setTimeout(resolve, 10));
        const idleEnded = once(idle.socket, 'end');
        const stopped = proxy.close();
        // The idle connection is closed while the other exchange still waits for its answer.
        await idleEnded;
        expect(busy.received()).toBe('');
        const busyClosed = once(busy.socket, 'close');
        release();
        await stopped;
        await busyClosed;
        expect(busy.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*connection: close\r\n\r\n\{\}$/);
        expect(proxy.traffic.reached).toBe(2);
        idle.socket.destroy();
        busy.socket.destroy();
      },
      { clientTimeoutMs: 600_000 },
    );
  });
});
