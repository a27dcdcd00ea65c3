import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../../proxy/proxy-server.js';
import { checkoutRequestJson, checkoutRequestXml } from '../helpers/exchanges.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
// curl runs asynchronously: the proxy and the service live in this process and must keep serving.
const curl = async (args: string[]): Promise<string> => {
  try {
    return (await promisify(execFile)('curl', args, { encoding: 'utf8' })).stdout;
  } catch (error) {
    // curl exits non-zero when a proxy refuses a tunnel; what it printed still tells why.
    return (error as { stdout: string }).stdout;
  }
};
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

async function placeOrder(base: string) {
  const answer = await request(`${base}orders`, { method: 'POST' });
  return (await answer.body.json()) as {
    checkout: { setupUrl: string };
    items: { files: { content: { uploadUrl: string } } }[];
  };
}

describe('the proxy forwards', () => {
  it('keeps clients that follow the order URLs behind it, with undici, fetch and curl', async () => {
    const setup = await proxiedService();
    try {
      const order = await placeOrder(setup.proxy.url);
      expect(order.checkout.setupUrl.startsWith(setup.proxy.url)).toBe(true);
      expect(order.items[0]?.files.content.uploadUrl.startsWith(setup.proxy.url)).toBe(true);

      const viaUndici = await request(order.checkout.setupUrl, {
        method: 'POST',
        headers: JSON_HEADERS,
        body: checkoutRequestJson(),
      });
      expect(viaUndici.statusCode).toBe(201);
      expect(viaUndici.headers.location).toBe(order.checkout.setupUrl);
      expect(viaUndici.headers['print-conformance-violations']).toBeUndefined();
      await viaUndici.body.dump();

      const viaFetch = await fetch(order.checkout.setupUrl, { headers: { accept: 'application/xml' } });
      expect(viaFetch.status).toBe(200);
      expect(await viaFetch.text()).toContain('<Tax xsi:nil="true" />');

      const viaCurl = await curl([
        '-s',
        '-X',
        'POST',
        '-H',
        'content-type: application/xml',
        '-H',
        'accept: application/xml',
        '--data-binary',
        checkoutRequestXml(),
        order.checkout.setupUrl,
      ]);
      expect(viaCurl).toContain(`<PaymentUrl>${setup.proxy.url}payments/`);

      const recorded = await setup.recorded();
      expect(recorded.map((e) => `${e.request.method} ${e.response?.status}`)).toEqual([
        'POST 201',
        'POST 201',
        'GET 200',
        'POST 201',
      ]);
      expect(recorded.flatMap((e) => e.violations).filter((v) => v.severity !== 'observe')).toEqual([]);
      expect(recorded[1]?.request.url).toBe(
        `${setup.service.baseUrl}checkout/${order.checkout.setupUrl.split('/').at(-1)}`,
      );
      const har = JSON.parse(readFileSync(setup.harFile, 'utf8'));
      expect(har.log.entries).toHaveLength(4);
    } finally {
      await setup.dispose();
    }
  });

  it('rewrites the URLs of answers too large to hold as they stream, whatever --validate-limit says', async () => {
    // 100 bytes: every order answer is larger, so none is held; its URLs must still lead back here.
    const setup = await proxiedService({ proxy: { validateLimit: 100 } });
    try {
      const answer = await request(`${setup.proxy.url}orders`, { method: 'POST' });
      // Its length changed on the way: it goes out in chunks, never with the target's Content-Length.
      expect(answer.headers['content-length']).toBeUndefined();
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      const order = (await answer.body.json()) as Awaited<ReturnType<typeof placeOrder>>;
      expect(order.checkout.setupUrl.startsWith(setup.proxy.url)).toBe(true);
      expect(order.items[0]?.files.content.uploadUrl.startsWith(setup.proxy.url)).toBe(true);
      const followed = await request(order.checkout.setupUrl, { headers: { accept: 'application/json' } });
      expect(followed.statusCode).toBe(200);
      await followed.body.dump();

      // An HTTP/1.0 client knows no chunks: the answer ends when the connection closes.
      const proxyUrl = new URL(setup.proxy.url);
      const socket = connect(Number(proxyUrl.port), '127.0.0.1');
      socket.end(`POST ${proxyUrl.pathname}orders HTTP/1.0\r\nHost: ${proxyUrl.host}\r\nContent-Length: 0\r\n\r\n`);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(socket, 'close');
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n') as [string, string];
      expect(head).toMatch(/^HTTP\/1\.[01] 201/);
      expect(head.toLowerCase()).not.toMatch(/content-length|transfer-encoding/);
      expect((JSON.parse(body) as typeof order).checkout.setupUrl.startsWith(setup.proxy.url)).toBe(true);
    } finally {
      await setup.close();
    }
  });

  it('passes answers through byte for byte when URL rewriting is off', async () => {
    const setup = await proxiedService({ proxy: { rewriteUrls: false } });
    try {
      const order = await placeOrder(setup.service.baseUrl);
      const checkoutPath = new URL(order.checkout.setupUrl).pathname.replace('/v2/', '');
      await request(order.checkout.setupUrl, { method: 'POST', headers: JSON_HEADERS, body: checkoutRequestJson() });
      for (const accept of ['application/json', 'application/xml']) {
        const direct = Buffer.from(
          await (await request(order.checkout.setupUrl, { headers: { accept } })).body.arrayBuffer(),
        );
        const proxied = Buffer.from(
          await (await request(`${setup.proxy.url}${checkoutPath}`, { headers: { accept } })).body.arrayBuffer(),
        );
        expect(sha256(proxied)).toBe(sha256(direct));
      }
    } finally {
      await setup.dispose();
    }
  });

  it('streams a 200 MiB upload unchanged: the same sha256 at both ends and in the recording', async () => {
    const setup = await proxiedService();
    try {
      const order = await placeOrder(setup.proxy.url);
      const uploadUrl = order.items[0]?.files.content.uploadUrl as string;
      const size = 200 * 1024 * 1024;
      const hash = createHash('sha256');
      let sent = 0;
      const body = new Readable({
        read() {
          if (sent >= size) return this.push(null);
          const chunk = Buffer.alloc(Math.min(1024 * 1024, size - sent), sent % 251);
          if (sent === 0) Buffer.from('%PDF-1.7\n').copy(chunk);
          hash.update(chunk);
          sent += chunk.length;
          this.push(chunk);
        },
      });
      const answer = await request(uploadUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/pdf', 'content-length': String(size) },
        body,
      });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.json()).toEqual({ fileName: 'content', fileType: 'PDF' });
      const expected = hash.digest('hex');
      const slot = [...setup.service.store.uploads.values()].find((s) => s.status === 'Uploaded');
      expect(slot?.sha256).toBe(expected);
      const recorded = await setup.recorded();
      const upload = recorded.find((e) => e.request.url.includes('/files/'));
      expect(upload?.request.body).toMatchObject({ size, sha256: expected });
      expect(upload?.request.body?.base64).toBeUndefined();
      expect(upload?.violations).toEqual([]);
    } finally {
      await setup.dispose();
    }
  });

  it('decodes a gzip answer for validation only, passing the compressed bytes on unchanged', async () => {
    const plain = JSON.stringify({
      amount: 1.5,
      status: 'Open',
      paymentUrl: 'https://p.test/x',
      billing: { address: {} },
      tax: null,
    });
    const zipped = gzipSync(plain);
    const upstream = createServer((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': zipped.length,
      });
      response.end(zipped);
    }).listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const proxy = await startProxy({ target: `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v2/` });
    try {
      const answer = await request(`${proxy.url}checkout/abc`, { headers: { 'accept-encoding': 'gzip' } });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      expect(sha256(bytes)).toBe(sha256(zipped));
      expect(answer.headers['print-conformance-violations']).toBe('checkout.json.no-tax (response)');
    } finally {
      await proxy.close();
      upstream.close();
    }
  });

  it('passes a reset from the target on to the client and records the exchange as failed', async () => {
    const upstream = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '1000000' });
      response.write(Buffer.alloc(1000));
      setTimeout(() => response.socket?.destroy(), 20);
    }).listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const folder = join(tmpdir(), `print-conformance-reset-${process.pid}`);
    mkdirSync(folder, { recursive: true });
    const recordFile = join(folder, 'reset.ndjson');
    const proxy = await startProxy({
      target: `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v2/`,
      recordFile,
    });
    try {
      const answer = await request(`${proxy.url}files/abc`);
      await expect(answer.body.arrayBuffer()).rejects.toThrow();
    } finally {
      await proxy.close();
      upstream.close();
    }
    const lines = readFileSync(recordFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].error).toBe('the target broke off the answer');
    rmSync(folder, { recursive: true, force: true });
  });

  it('records an upload the client broke off, and keeps serving', async () => {
    const setup = await proxiedService();
    try {
      const order = await placeOrder(setup.proxy.url);
      const uploadUrl = new URL(order.items[0]?.files.content.uploadUrl as string);
      const socket = connect(Number(uploadUrl.port), uploadUrl.hostname);
      await once(socket, 'connect');
      socket.write(
        `POST ${uploadUrl.pathname} HTTP/1.1\r\nHost: ${uploadUrl.host}\r\nContent-Type: application/pdf\r\nContent-Length: 10000000\r\n\r\n%PDF-1.7\n`,
      );
      socket.write(Buffer.alloc(100_000, 0x20));
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const after = await request(`${setup.proxy.url}orders`, { method: 'POST' });
      expect(after.statusCode).toBe(201);
      await after.body.dump();
      const recorded = await setup.recorded();
      const broken = recorded.find((e) => e.request.url.includes('/files/'));
      expect(broken?.error).toBe('the client broke off the request');
    } finally {
      await setup.dispose();
    }
  });

  it('answers 502 with a message when the target is down, and records the failure', async () => {
    const proxyLog: string[] = [];
    const proxy = await startProxy({ target: 'http://127.0.0.1:9/v2/', log: (l) => proxyLog.push(l) });
    try {
      const answer = await request(`${proxy.url}checkout/abc`);
      expect(answer.statusCode).toBe(502);
      expect(((await answer.body.json()) as { message: string }).message).toMatch(/cannot be reached \(ECONNREFUSED\)/);
      expect(proxyLog.join('\n')).toContain('GET /v2/checkout/abc');
    } finally {
      await proxy.close();
    }
  });

  it('answers 504 when the target does not answer in time, and serves again once it does', async () => {
    let answer = false;
    const upstream = createServer((_request, response) => {
      if (answer) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }).listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const proxy = await startProxy({
      target: `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v2/`,
      connectTimeoutMs: 300,
    });
    try {
      const slow = await request(`${proxy.url}orders`);
      expect(slow.statusCode).toBe(504);
      expect(((await slow.body.json()) as { message: string }).message).toMatch(/did not answer within 0\.3 s/);
      answer = true;
      const recovered = await request(`${proxy.url}orders`);
      expect(recovered.statusCode).toBe(200);
      await recovered.body.dump();
    } finally {
      await proxy.close();
      upstream.closeAllConnections();
      upstream.close();
    }
  });

  it('passes absolute-form requests and CONNECTs for other hosts on, never to its target', async () => {
    const setup = await proxiedService();
    try {
      const port = new URL(setup.proxy.url).port;
      // curl as a client that takes the proxy for a forward proxy: absolute-form, then CONNECT.
      const asForwardProxy = (written: string, tunnel: string[] = []) =>
        curl([
          '-s',
          '-o',
          '/dev/null',
          '-w',
          written,
          ...tunnel,
          '--proxy',
          `http://127.0.0.1:${port}`,
          'http://example.invalid/x',
        ]);
      // A forward proxy's answer for a host that cannot be reached: the target saw nothing of it.
      expect(await asForwardProxy('%{http_code}')).toBe('502');
      // A path that spells another URL stays a path under the target.
      const disguised = await request(`${setup.proxy.url}http://127.0.0.1:9/steal`);
      expect(disguised.statusCode).toBe(404);
      await disguised.body.dump();
      // A climb out of the target's base path, also spelled with escaped dots (URL parsers read
      // "%2e%2e" as a dot segment too), escaped slashes, twice-escaped dots and "..;" (which Java
      // servers read as "..").
      for (const climb of ['../admin', '%2e%2e/admin', '..;/admin', '..%2fadmin', '..%5Cadmin', '%252e%252e/admin']) {
        const status = await curl([
          '-s',
          '--path-as-is',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          `${setup.proxy.url}${climb}`,
        ]);
        expect(status, climb).toBe('400');
      }
      expect(await asForwardProxy('%{http_connect}', ['-p'])).toBe('502');
      expect((await setup.recorded()).map((exchange) => exchange.request.url)).not.toContainEqual(
        expect.stringContaining('example.invalid'),
      );
    } finally {
      await setup.dispose();
    }
  });

  it('writes recordings that validate reads, with the same verdicts', async () => {
    const setup = await proxiedService({
      dialect: { rewrite: (a) => (a.format === 'xml' ? { ...a, body: a.body.replace(/\s*<Tax [^>]*\/>/, '') } : a) },
    });
    try {
      const order = await placeOrder(setup.proxy.url);
      await request(order.checkout.setupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/xml', accept: 'application/xml' },
        body: checkoutRequestXml(),
      });
      const recorded = await setup.recorded();
      const judged = recorded.flatMap((e) => e.violations.filter((v) => v.severity !== 'observe'));
      expect(judged.map((v) => `${v.rule}@${v.side}`)).toEqual(['checkout.xml.tax-nil@response']);
      const { runCli } = await import('../helpers/cli.js');
      const reports = join(setup.folder, 'reports');
      const offline = await runCli(['validate', setup.recordFile, '--report-dir', reports]);
      expect(offline.code).toBe(1);
      const failed = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'))
        .rules.filter((r: { status: string }) => r.status === 'failed')
        .map((r: { id: string }) => r.id);
      expect(failed).toEqual(['checkout.xml.tax-nil']);
      const harCheck = await runCli(['validate', setup.harFile, '--report-dir', join(setup.folder, 'har-reports')]);
      expect(harCheck.code).toBe(1);
    } finally {
      await setup.dispose();
    }
  });
});
