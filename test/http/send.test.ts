import { once } from 'node:events';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';

// The suite's client against services that answer badly: no end to the answer, a cut answer.

async function serving(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v2/checkout/c`, server };
}

describe('send', () => {
  it('stops reading an answer that does not end, and says so', async () => {
    let closed = false;
    const { url, server } = await serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const pump = () => {
        while (!closed && response.write(chunk));
        if (!closed) response.once('drain', pump);
      };
      response.on('close', () => {
        closed = true;
      });
      pump();
    });
    try {
      const exchange = await send({ method: 'GET', url });
      expect(exchange.response?.status).toBe(200);
      expect(exchange.response?.body?.skipped).toBe('larger than 64 MiB: not read to its end');
      expect(exchange.response?.body?.text).toBeUndefined();
      expect(exchange.response?.body?.size).toBeLessThan(65 * 1024 * 1024);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('records an answer cut off before its Content-Length as a transport error', async () => {
    const { url, server } = await serving((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"amount":');
      setTimeout(() => response.socket?.destroy(), 20);
    });
    try {
      const exchange = await send({ method: 'GET', url });
      expect(exchange.response).toBeUndefined();
      expect(exchange.error).toBeTruthy();
    } finally {
      server.close();
    }
  });
});
