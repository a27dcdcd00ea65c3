import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { startListeningCli } from '../helpers/cli.js';
import { checkoutResponseJson } from '../helpers/exchanges.js';

// A real service is reached over TLS. The proxy checks the target's certificate as any client
// of it would: Node's and the system's CAs, plus those NODE_EXTRA_CA_CERTS names (and the local CA,
// and --target-ca). The fixture is a self-signed
// certificate for 127.0.0.1 and localhost.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'tls');
const CERT = join(FIXTURES, 'cert.pem');

async function httpsTarget() {
  const server = createServer(
    { key: readFileSync(join(FIXTURES, 'key.pem')), cert: readFileSync(CERT) },
    (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(checkoutResponseJson()),
  ).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `https://127.0.0.1:${(server.address() as { port: number }).port}/v2/` };
}

describe('the proxy in front of an https target', () => {
  it('refuses a certificate it cannot trust with a 502 that says why', async () => {
    const target = await httpsTarget();
    const proxy = await startProxy({ target: target.url });
    try {
      const answer = await request(`${proxy.url}checkout/abc`, { headers: { accept: 'application/json' } });
      expect(answer.statusCode).toBe(502);
      expect(((await answer.body.json()) as { message: string }).message).toMatch(
        /the certificate of 127\.0\.0\.1 does not verify \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
      );
    } finally {
      await proxy.close();
      target.server.close();
    }
  });

  it('forwards, judges and records over TLS when the certificate is trusted', async () => {
    const target = await httpsTarget();
    const folder = mkdtempSync(join(tmpdir(), 'print-conformance-tls-'));
    const record = join(folder, 't.ndjson');
    // The client only reads a checkout back in JSON: those are the rules its traffic can show.
    const only = ['--only', 'checkout.get.,format.json,http.'];
    const proxy = await startListeningCli(['proxy', '--target', target.url, '--record', record, ...only], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: CERT },
    });
    try {
      for (let index = 0; index < 2; index += 1) {
        const answer = await request(`${proxy.url}checkout/abc`, { headers: { accept: 'application/json' } });
        expect(answer.statusCode).toBe(200);
        expect(await answer.body.text()).toBe(checkoutResponseJson());
      }
      const stopped = await proxy.stop();
      expect(stopped.code).toBe(0);
      const lines = readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => [line.request.url, line.response.status])).toEqual([
        [`${target.url}checkout/abc`, 200],
        [`${target.url}checkout/abc`, 200],
      ]);
    } finally {
      await proxy.stop();
      target.server.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
