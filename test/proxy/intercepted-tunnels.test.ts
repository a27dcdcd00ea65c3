import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProxyHandle, startProxy } from '../../proxy/proxy-server.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { type LocalCa, loadOrCreateCa } from '../../src/tls/local-ca.js';

// What a client sees inside a tunnel the proxy intercepts, over the connection itself: the
// proxy's own address where it names it, and a TLS session it can resume on its next tunnel.

let folder: string;
let ca: LocalCa;
let service: ReferenceService;
let proxy: ProxyHandle;
const log: string[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-tunnels-'));
  const caDir = join(folder, 'ca');
  ca = await loadOrCreateCa(caDir);
  service = await startReferenceService({ tls: await ca.maker.issue(['127.0.0.1']) });
  proxy = await startProxy({ target: service.baseUrl, caDir, log: (line) => log.push(line) });
});

afterAll(async () => {
  await proxy?.close();
  await service?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A tunnel to the service's host through the proxy, TLS made with the proxy's certificate. */
async function tunnel(session?: Buffer): Promise<{ secure: TLSSocket; session: Promise<Buffer> }> {
  const { hostname, port } = new URL(proxy.url);
  const { host } = new URL(service.baseUrl);
  const raw = netConnect(Number(port), hostname);
  raw.write(`CONNECT ${host} HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
  const [established] = await once(raw, 'data');
  expect(String(established)).toMatch(/^HTTP\/1\.1 200/);
  const secure = tlsConnect({ socket: raw, host: '127.0.0.1', ca: ca.certPem, session });
  const ticket = new Promise<Buffer>((resolve) => secure.once('session', resolve));
  await once(secure, 'secureConnect');
  return { secure, session: ticket };
}

/** One request on the tunnel, its answer read whole (the connection closes after it). */
async function exchange(secure: TLSSocket, bytes: string | Buffer): Promise<string> {
  let answer = '';
  secure.setEncoding('latin1');
  secure.on('data', (chunk) => {
    answer += chunk;
  });
  secure.on('error', () => {});
  secure.write(bytes);
  await once(secure, 'close');
  return answer;
}

describe('an intercepted tunnel', () => {
  it("names the proxy's own address in the hint for TLS sent inside it", async () => {
    const { secure } = await tunnel();
    // A TLS ClientHello's first bytes where an HTTP request was due.
    const answer = await exchange(secure, Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03]));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    const { host } = new URL(proxy.url);
    expect(log.join('\n')).toContain(`use http://${host}/ as the base URL`);
  });

  it("takes a request in absolute form for the service's host inside it, as the forward door does", async () => {
    const { secure } = await tunnel();
    const { host } = new URL(service.baseUrl);
    const answer = await exchange(
      secure,
      `GET https://${host}/v2/orders/none HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`,
    );
    // Refused with 400 by a context that knows no forward door.
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
  });

  it("lets a client's next tunnel resume its TLS session (no full handshake again)", async () => {
    const first = await tunnel();
    expect(first.secure.isSessionReused()).toBe(false);
    const answer = await exchange(
      first.secure,
      `GET /v2/orders/none HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
    // TLS 1.3 hands its ticket over after the handshake, with the first bytes read.
    const session = await first.session;
    const second = await tunnel(session);
    expect(second.secure.isSessionReused()).toBe(true);
    const again = await exchange(
      second.secure,
      `GET /v2/orders/none HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`,
    );
    expect(again).toMatch(/^HTTP\/1\.1 404/);
  });
});
