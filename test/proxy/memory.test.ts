import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../../proxy/recorder.js';
import { openConnection, throughProxyTo } from '../helpers/raw-http.js';

// What the proxy holds per connection: requests pipelined behind a slow one stay in the client's
// socket until their turn; bodies held for validation share one memory budget, past which they
// are forwarded and recorded as not validated.

/** A target that keeps every request body it received, and answers /slow only when told. */
function collectingTarget() {
  const bodies: string[] = [];
  const slow: (() => void)[] = [];
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    bodies.push(Buffer.concat(chunks).toString('utf8'));
    const answer = () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    if (request.url?.endsWith('/slow')) slow.push(answer);
    else answer();
  });
  return { server, bodies, slow };
}

describe('memory held by the proxy', () => {
  it('reads requests pipelined behind a slow one only when their turn comes', async () => {
    const { server, slow } = collectingTarget();
    await throughProxyTo(server, async (proxy) => {
      const { socket, received } = await openConnection(proxy.url);
      socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      // 48 MiB of uploads pipelined behind it: more than the kernel buffers on the way hold.
      const each = 256 * 1024;
      const upload = Buffer.concat([
        Buffer.from(
          `POST /files/p HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\nContent-Length: ${each}\r\n\r\n`,
        ),
        Buffer.alloc(each, 0x25),
      ]);
      const count = 192;
      // The proxy runs in this process: what it holds shows in this process's buffers. (The
      // client's own queue is one buffer, written again and again.)
      const before = process.memoryUsage().arrayBuffers;
      for (let index = 0; index < count; index += 1) socket.write(upload);
      // Wait until the proxy takes no more of them (bounded: 40 × 50 ms).
      let left = socket.writableLength;
      for (let round = 0; round < 40; round += 1) {
        await sleep(50);
        if (socket.writableLength === left && round > 4) break;
        left = socket.writableLength;
      }
      const held = process.memoryUsage().arrayBuffers - before;
      // The kernel's socket buffers hold what the proxy has not read; the proxy itself read at most
      // one more read's worth. Reading ahead, it held 8 MiB and more.
      expect(held).toBeLessThan(2 * 1024 * 1024);
      for (const answer of slow) answer();
      // Then every pipelined request is read and answered in its turn.
      for (let round = 0; round < 400 && (received().match(/HTTP\/1\.1 200/g) ?? []).length < count + 1; round += 1)
        await sleep(25);
      expect((received().match(/HTTP\/1\.1 200/g) ?? []).length).toBe(count + 1);
      socket.destroy();
    });
  });

  it('forwards a JSON body past the memory budget whole, recorded as not validated (report mode)', async () => {
    const { server, bodies } = collectingTarget();
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-budget-'));
    const recordFile = join(folder, 't.ndjson');
    const json = JSON.stringify({ returnUrl: `https://shop.example.test/${'x'.repeat(8000)}` });
    try {
      await throughProxyTo(
        server,
        async (proxy) => {
          const answer = await fetch(`${proxy.url}checkout/abc`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: json,
          });
          expect(answer.status).toBe(200);
          await answer.text();
        },
        { memoryBudget: 4096, recordFile },
      );
      expect(bodies).toEqual([json]);
      const [recorded] = readFileSync(recordFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)) as RecordedExchange[];
      expect(recorded?.request.body?.text).toBeUndefined();
      expect(recorded?.request.body?.skipped).toMatch(/memory budget .* \(4096 bytes, --memory-budget\) was spent/);
      expect(recorded?.blocked).toBeUndefined();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
