import { describe, expect, it } from 'vitest';
import { statusProblem } from '../../proxy/answer-checks.js';
import { rawExchange, scriptedTarget, throughProxyTo } from '../helpers/raw-http.js';

// A status line the proxy cannot pass on: outside 100–599, or a 101 nobody asked for. The client
// gets 502 instead; interim answers (100, 103) still go through before the final one.

const GET = 'GET /checkout/abc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n';

describe('status lines from the target', () => {
  it('are judged by status alone', () => {
    expect(statusProblem(99, false)).toMatch(/status 099 is not an HTTP status/);
    expect(statusProblem(600, false)).toMatch(/status 600/);
    expect(statusProblem(101, false)).toMatch(/101 .* asked for no upgrade/);
    expect(statusProblem(101, true)).toBeUndefined();
    for (const status of [100, 103, 200, 404, 599])
      expect(statusProblem(status, false), String(status)).toBeUndefined();
  });

  for (const [name, answer] of [
    ['099', 'HTTP/1.1 099 Odd\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'],
    ['600', 'HTTP/1.1 600 Odd\r\ncontent-length: 0\r\n\r\n'],
    ['an unrequested 101', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'],
  ] as const) {
    it(`answer 502 for ${name}, recorded with the reason`, async () => {
      const { server } = scriptedTarget([answer]);
      const log: string[] = [];
      await throughProxyTo(
        server,
        async (proxy) => {
          const got = await rawExchange(proxy.url, GET);
          expect(got).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
          expect(got).not.toMatch(/HTTP\/1\.1 (099|99|101|600) /);
          expect(got).toContain('sent an invalid answer: status');
        },
        { log: (line) => log.push(line) },
      );
      expect(log.join('\n')).toMatch(/GET \/v2\/checkout\/abc → the target .* sent an invalid answer/);
    });
  }

  it('pass 103 Early Hints on before the final answer', async () => {
    const { server } = scriptedTarget([
      'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
    ]);
    await throughProxyTo(server, async (proxy) => {
      const got = await rawExchange(proxy.url, GET);
      expect(got.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 103', 'HTTP/1.1 200']);
    });
  });

  it('pass no interim answer to an HTTP/1.0 client, which knows none (RFC 9110 §15.2)', async () => {
    const { server } = scriptedTarget([
      'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
    ]);
    await throughProxyTo(server, async (proxy) => {
      const got = await rawExchange(proxy.url, 'GET /checkout/abc HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
      expect(got.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200']);
    });
  });

  it('cut off a target that sends interim answers without end, with 502', async () => {
    const hints = 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n'.repeat(40);
    const { server } = scriptedTarget([hints]);
    await throughProxyTo(server, async (proxy) => {
      const got = await rawExchange(proxy.url, GET);
      expect(got.match(/HTTP\/1\.1 103/g)?.length).toBeLessThanOrEqual(32);
      expect(got).toMatch(/HTTP\/1\.1 502 /);
      expect(got).toContain('more than 32 interim answers');
    });
  });

  it('cut off a target whose interim answers keep the final one back past the answer timeout, with 504', async () => {
    const sockets: import('node:net').Socket[] = [];
    const { server } = scriptedTarget([
      (socket) => {
        sockets.push(socket);
        const hint = setInterval(() => {
          if (socket.destroyed) clearInterval(hint);
          else socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n');
        }, 100);
      },
    ]);
    await throughProxyTo(
      server,
      async (proxy) => {
        const started = Date.now();
        const got = await rawExchange(proxy.url, GET);
        expect(got).toMatch(/HTTP\/1\.1 504 /);
        expect(Date.now() - started).toBeLessThan(2000);
      },
      { connectTimeoutMs: 500 },
    );
    for (const socket of sockets) socket.destroy();
  });
});
