import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { startReferenceService } from '../../src/reference/service.js';
import { loadOrCreateCa } from '../../src/tls/local-ca.js';
import { runCli, startListeningCli } from '../helpers/cli.js';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { openConnection, rawExchange } from '../helpers/raw-http.js';

// The forward proxy on the proxy's port, request by request: what is intercepted, what is passed
// on blind, what is refused to a client on another machine, and what the client is told when TLS
// fails on either side.

let folder: string;
/** A host that is not the interface: counts the connections it gets. */
let other: Server;
let otherConnections = 0;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'print-conformance-forward-'));
  other = createServer((socket) => {
    otherConnections += 1;
    socket.on('error', () => {});
    socket.on('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\npong'));
  });
  other.listen(0, '127.0.0.1');
  await once(other, 'listening');
});

afterAll(() => {
  other.close();
  rmSync(folder, { recursive: true, force: true });
});

const otherPort = () => (other.address() as AddressInfo).port;

describe('requests in absolute form (HTTP_PROXY)', () => {
  it("to the target's host are judged and recorded, their answers not rewritten", async () => {
    const setup = await proxiedService();
    try {
      const base = new URL(setup.service.baseUrl);
      const answer = await rawExchange(
        setup.proxy.url,
        `POST ${base.origin}/v2/orders HTTP/1.1\r\nhost: ${base.host}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 201/);
      // The service's own URLs, as a client that reached the service itself would see them.
      expect(answer).toContain(`${base.origin}/v2/checkout/`);
      const recorded = await setup.recorded();
      expect(recorded.map((exchange) => exchange.request.url)).toEqual([`${base.origin}/v2/orders`]);
    } finally {
      await setup.dispose();
    }
  });

  it("for an https:// URL of the target's host (as axios asks) are intercepted the same way", async () => {
    const setup = await proxiedService();
    try {
      const base = new URL(setup.service.baseUrl);
      const answer = await rawExchange(
        setup.proxy.url,
        `GET https://${base.host}/v2/orders/none HTTP/1.1\r\nhost: ${base.host}\r\nconnection: close\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 404/);
      expect((await setup.recorded()).map((exchange) => exchange.request.url)).toEqual([
        `${base.origin}/v2/orders/none`,
      ]);
    } finally {
      await setup.dispose();
    }
  });

  it('to another host are passed on blind for a client on this machine, and recorded nowhere', async () => {
    const setup = await proxiedService({ proxy: { connectTo: [] } });
    try {
      const before = otherConnections;
      const answer = await rawExchange(
        setup.proxy.url,
        `GET http://127.0.0.1:${otherPort()}/ping HTTP/1.1\r\nhost: 127.0.0.1:${otherPort()}\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 200[\s\S]*pong$/);
      expect(otherConnections).toBe(before + 1);
      expect(setup.proxy.traffic.passedOnLines()).toEqual([`1× 127.0.0.1:${otherPort()}`]);
      // A host that cannot be reached is answered 502 and counted once, among the proxy's own answers.
      const refused = await rawExchange(
        setup.proxy.url,
        'GET http://127.0.0.1:1/x HTTP/1.1\r\nhost: 127.0.0.1:1\r\n\r\n',
      );
      expect(refused).toMatch(/^HTTP\/1\.1 502/);
      expect(setup.proxy.traffic.passedOnLines()).toEqual([`1× 127.0.0.1:${otherPort()}`]);
      expect(await setup.recorded()).toEqual([]);
    } finally {
      await setup.dispose();
    }
  });
});

describe('a client on another machine', () => {
  it('cannot reach any other host, by CONNECT or in absolute form', async () => {
    const setup = await proxiedService({ proxy: { localClient: () => false } });
    try {
      const before = otherConnections;
      const tunnel = await rawExchange(
        setup.proxy.url,
        `CONNECT 127.0.0.1:${otherPort()} HTTP/1.1\r\nhost: 127.0.0.1:${otherPort()}\r\n\r\n`,
      );
      expect(tunnel).toMatch(/^HTTP\/1\.1 403/);
      const plain = await rawExchange(
        setup.proxy.url,
        `GET http://127.0.0.1:${otherPort()}/ping HTTP/1.1\r\nhost: 127.0.0.1:${otherPort()}\r\n\r\n`,
      );
      expect(plain).toMatch(/^HTTP\/1\.1 403/);
      expect(plain).toMatch(/only the interface's hosts/);
      expect(otherConnections).toBe(before);
    } finally {
      await setup.dispose();
    }
  });

  it("still reaches the interface's host through CONNECT", async () => {
    const setup = await proxiedService({ proxy: { localClient: () => false } });
    try {
      const base = new URL(setup.service.baseUrl);
      const { socket, received } = await openConnection(setup.proxy.url);
      socket.write(`CONNECT ${base.host} HTTP/1.1\r\nhost: ${base.host}\r\n\r\n`);
      await once(socket, 'data');
      socket.destroy();
      expect(received()).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    } finally {
      await setup.dispose();
    }
  });
});

describe('TLS', () => {
  it('sent to the plain port is answered with a hint, in one log line', async () => {
    const setup = await proxiedService();
    try {
      const { port } = new URL(setup.proxy.url);
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false });
      await new Promise((resolve) => socket.on('error', resolve).on('close', resolve));
      expect(setup.log.join('\n')).toMatch(/a client sent TLS to this plain HTTP port: use http:\/\//);
    } finally {
      await setup.dispose();
    }
  });

  it('of a target whose certificate does not verify fails in one line naming the host, and --target-ca trusts it', async () => {
    // A CA of its own, which neither the system nor the proxy's local CA knows.
    const foreign = await loadOrCreateCa(join(folder, 'foreign-ca'));
    const service = await startReferenceService({ tls: await foreign.maker.issue(['127.0.0.1']) });
    try {
      const untrusted = await startProxy({ target: service.baseUrl, caDir: join(folder, 'proxy-ca') });
      try {
        const answer = await fetch(`${untrusted.url}orders/x`);
        expect(answer.status).toBe(502);
        expect(((await answer.json()) as { message: string }).message).toMatch(
          /the certificate of 127\.0\.0\.1 does not verify \([A-Z_]+\); if it is right, trust its CA with --target-ca FILE/,
        );
      } finally {
        await untrusted.close();
      }
      const trusted = await startProxy({
        target: service.baseUrl,
        caDir: join(folder, 'proxy-ca'),
        targetCa: [foreign.certPem],
      });
      try {
        expect((await fetch(`${trusted.url}orders/x`)).status).toBe(404);
      } finally {
        await trusted.close();
      }
    } finally {
      await service.close();
    }
  });
});

describe('a target reached through --connect-to', () => {
  it('that presents a certificate for other names is told so, with what to change', async () => {
    const caDir = join(folder, 'names-ca');
    const ca = await loadOrCreateCa(caDir);
    const service = await startReferenceService({ tls: await ca.maker.issue(['127.0.0.1']) });
    const port = Number(new URL(service.baseUrl).port);
    const proxy = await startProxy({
      target: 'https://test.printapi.nl/v2/',
      caDir,
      connectTo: [{ host: 'test.printapi.nl', port: 443, toHost: '127.0.0.1', toPort: port }],
    });
    try {
      const answer = await fetch(`${proxy.url}orders/x`);
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { message: string }).message).toMatch(
        /the certificate the target presents is not for test\.printapi\.nl \(ERR_TLS_CERT_ALTNAME_INVALID\).*--public-url/,
      );
    } finally {
      await proxy.close();
      await service.close();
    }
  });

  it('that speaks no TLS is named by the address the connection went to', async () => {
    const service = await startReferenceService();
    const port = Number(new URL(service.baseUrl).port);
    const proxy = await startProxy({
      target: 'https://test.printapi.nl/v2/',
      caDir: join(folder, 'plain-ca'),
      connectTo: [{ host: 'test.printapi.nl', port: 443, toHost: '127.0.0.1', toPort: port }],
    });
    try {
      const answer = await fetch(`${proxy.url}orders/x`);
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { message: string }).message).toMatch(
        new RegExp(
          `cannot be reached at 127\\.0\\.0\\.1:${port} \\(--connect-to\\) \\(EPROTO: it did not answer in TLS`,
        ),
      );
    } finally {
      await proxy.close();
      await service.close();
    }
  });
});

describe('an intercepted tunnel', () => {
  it('goes through enforce mode as a reverse-proxied request does: a breach never reaches the target', async () => {
    const caDir = join(folder, 'enforce-ca');
    const ca = await loadOrCreateCa(caDir);
    const service = await startReferenceService({ tls: await ca.maker.issue(['127.0.0.1']) });
    const recordFile = join(folder, 'enforce.ndjson');
    const proxy = await startProxy({ target: service.baseUrl, caDir, mode: 'enforce', recordFile });
    const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: ca.certPem } });
    try {
      const placed = await request(`${service.baseUrl}orders`, { method: 'POST', dispatcher });
      const order = (await placed.body.json()) as { checkout: { setupUrl: string } };
      // The service's own URL, not rewritten: the client reached it by name.
      expect(order.checkout.setupUrl.startsWith(service.baseUrl)).toBe(true);
      const before = [...service.store.checkouts.values()].filter((record) => record.returnUrl).length;
      const blocked = await request(order.checkout.setupUrl, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ returnUrl: 'a://' }),
      });
      expect(blocked.statusCode).toBeGreaterThanOrEqual(400);
      expect(blocked.statusCode).toBeLessThan(500);
      expect(await blocked.body.text()).toMatch(/checkout\.return-url\.length/);
      expect([...service.store.checkouts.values()].filter((record) => record.returnUrl).length).toBe(before);
    } finally {
      await dispatcher.close();
      await proxy.close();
      await service.close();
    }
  });
});

describe('reverse mode behind a TLS terminator', () => {
  it('rewrites URLs with the scheme the client used (X-Forwarded-Proto)', async () => {
    const setup = await proxiedService();
    try {
      const answer = await fetch(`${setup.proxy.url}orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', host: 'shop.localhost' },
        body: '{}',
      });
      const text = await answer.text();
      expect(text).toMatch(/"setupUrl": "https:\/\/127\.0\.0\.1:\d+\/checkout\//);
    } finally {
      await setup.dispose();
    }
  });
});

describe('options of interception', () => {
  it.each([
    [['--connect-to', 'test.printapi.nl:443'], /--connect-to test\.printapi\.nl:443: expected HOST:PORT:HOST2:PORT2/],
    [['--connect-to', 'a:443:b:70000'], /"70000" is not a port/],
    [['--intercept', 'a:b:c'], /--intercept a:b:c: expected HOST or HOST:PORT/],
    [['--target-ca', '/nonexistent/ca.pem'], /--target-ca \/nonexistent\/ca\.pem: no such file/],
  ])('refuses %j in one line', async (args, message) => {
    const { code, stderr } = await runCli(['proxy', '--target', 'https://test.printapi.nl/v2/', ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a --target-ca whose PEM block is no certificate', async () => {
    const file = join(folder, 'fake.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const { code, stderr } = await runCli(['proxy', '--target', 'https://x.test/v2/', '--target-ca', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/certificate 1 is no valid X\.509 certificate/);
  });

  it('refuses ca --bundle without a file', async () => {
    const { code, stderr } = await runCli(['ca', '--ca-dir', join(folder, 'bundle-ca'), '--bundle']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--bundle needs a FILE/);
  });

  it('refuses a --target-ca that holds no certificate', async () => {
    const file = join(folder, 'not-a-ca.pem');
    writeFileSync(file, 'hello');
    const { code, stderr } = await runCli(['proxy', '--target', 'https://x.test/v2/', '--target-ca', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/holds no PEM certificate/);
  });
});

describe('serve --tls', () => {
  it('prints an https URL that a client trusting the local CA reaches', async () => {
    const caDir = join(folder, 'serve-ca');
    const served = await startListeningCli(['serve', '--tls', '--ca-dir', caDir]);
    try {
      expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v2\/$/);
      const ca = await loadOrCreateCa(caDir);
      const status = await new Promise<number>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: Number(new URL(served.url).port), ca: ca.certPem });
        socket.on('secureConnect', () => {
          socket.write('GET /v2/orders/x HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
        });
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk;
        });
        socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1])));
        socket.on('error', reject);
      });
      expect(status).toBe(404);
    } finally {
      await served.stop();
    }
  });
});
