import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';

// A target may begin a streamed (binary) answer before the upload it answers has ended. The proxy
// takes its early look at the request then, to name request-side findings in the answer's header;
// the bytes of the upload that come after it must still pass through.

describe('an answer that streams back while the upload still comes', () => {
  it('leaves the rest of the upload to pass and the answer to end', async () => {
    const target = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '8' });
      response.write('head');
      request.resume();
      request.on('end', () => response.end('tail'));
    }).listen(0, '127.0.0.1');
    await once(target, 'listening');
    const logged: string[] = [];
    const proxy = await startProxy({
      target: `http://127.0.0.1:${(target.address() as { port: number }).port}/v2/`,
      log: (line) => logged.push(line),
    });
    const client = connect(Number(new URL(proxy.url).port), '127.0.0.1');
    try {
      let received = '';
      client.setEncoding('latin1');
      client.on('data', (text: string) => {
        received += text;
      });
      const size = 3 * 1024 * 1024;
      client.write(
        `POST /files/x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/pdf\r\nContent-Length: ${size}\r\n\r\n%PDF-1.7\n`,
      );
      // The rest of the upload goes only once the answer has begun.
      while (!received.includes('\r\n\r\nhead')) await once(client, 'data');
      client.write(Buffer.alloc(size - 9, 0x20));
      while (!received.endsWith('headtail') && !client.destroyed) await once(client, 'data');
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(received.endsWith('headtail')).toBe(true);
      expect(logged).toEqual([]);
    } finally {
      client.destroy();
      await proxy.close();
      target.close();
    }
  });
});
