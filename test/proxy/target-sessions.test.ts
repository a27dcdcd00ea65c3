import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { checkoutResponseJson } from '../helpers/exchanges.js';

// A new connection to an https target resumes the TLS session of an earlier one: the proxy does
// not pay a full handshake (and the certificate's checks) for each connection the target closes.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tls');
const CERT = readFileSync(join(FIXTURES, 'cert.pem'), 'utf8');

describe('connections to an https target', () => {
  it('resume the session of the connection before them', async () => {
    const resumed: boolean[] = [];
    const server = createServer({ key: readFileSync(join(FIXTURES, 'key.pem')), cert: CERT }, (_request, response) =>
      // Each answer closes its connection: the next request needs a new one.
      response.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end(checkoutResponseJson()),
    ).listen(0, '127.0.0.1');
    server.on('secureConnection', (socket: TLSSocket) => resumed.push(socket.isSessionReused()));
    await once(server, 'listening');
    const target = `https://127.0.0.1:${(server.address() as { port: number }).port}/v2/`;
    const proxy = await startProxy({ target, targetCa: [CERT] });
    try {
      for (let index = 0; index < 3; index += 1) {
        const answer = await request(`${proxy.url}checkout/abc`, { headers: { accept: 'application/json' } });
        expect(answer.statusCode).toBe(200);
        expect(await answer.body.text()).toBe(checkoutResponseJson());
      }
      expect(resumed).toEqual([false, true, true]);
    } finally {
      await proxy.close();
      server.close();
    }
  });
});
