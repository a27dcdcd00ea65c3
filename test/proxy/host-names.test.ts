import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProxyAgent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionFor, parseAuthority } from '../../proxy/forward-door.js';
import { type ProxyHandle, startProxy } from '../../proxy/proxy-server.js';
import { parseConnectTo, parseIntercept } from '../../src/cli/interception-options.js';
import { canonicalHostName, hostAllowed } from '../../src/http/host-names.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { loadOrCreateCa } from '../../src/tls/local-ca.js';
import { rawExchange } from '../helpers/raw-http.js';

// Host names are compared as DNS compares them, wherever a host is matched: case, the trailing
// dot of a fully qualified name, international names in punycode. "svc.test." is the service
// "svc.test": a client naming it so is intercepted, judged and recorded, never tunnelled blind.

describe('one canonical form of a host name', () => {
  it('folds case, the trailing dot, brackets and Unicode', () => {
    expect(canonicalHostName('SVC.Test.')).toBe('svc.test');
    expect(canonicalHostName('Bücher.Example')).toBe('xn--bcher-kva.example');
    expect(canonicalHostName('[::1]')).toBe('::1');
    expect(canonicalHostName('bad name')).toBe('');
  });

  it('is what the Host checks compare', () => {
    expect(hostAllowed('LOCALHOST.:8080', '127.0.0.1', [])).toBe(true);
    expect(hostAllowed('devbox.example.test.', '127.0.0.1', ['DevBox.Example.Test'])).toBe(true);
    expect(hostAllowed('api.devbox.example.test.', '127.0.0.1', ['.devbox.example.test'])).toBe(true);
    expect(hostAllowed('xn--bcher-kva.example', '127.0.0.1', ['bücher.example'])).toBe(true);
    expect(hostAllowed('proxy.example.', 'Proxy.Example', [])).toBe(true);
    // Still refused: other names, and names that only look alike.
    expect(hostAllowed('evil.example.test', '127.0.0.1', ['devbox.example.test'])).toBe(false);
    expect(hostAllowed('devbox.example.test..', '127.0.0.1', ['devbox.example.test'])).toBe(false);
    expect(hostAllowed('xdevbox.example.test', '127.0.0.1', ['.devbox.example.test'])).toBe(false);
  });

  it('is what CONNECT targets, --intercept and --connect-to compare', () => {
    expect(parseAuthority('SVC.test.:8443', 443)).toEqual({ host: 'svc.test', port: 8443 });
    expect(parseAuthority('svc.test..:8443', 443)).toBeUndefined();
    expect(parseIntercept('Bücher.Example.:443')).toEqual({ host: 'xn--bcher-kva.example', port: 443 });
    const rule = parseConnectTo('SVC.test.:443:127.0.0.1:8443');
    expect(rule.host).toBe('svc.test');
    expect(connectionFor({ host: 'svc.test.', port: 443 }, [rule])).toEqual({ host: '127.0.0.1', port: 8443 });
    expect(connectionFor({ host: 'SVC.TEST', port: 443 }, [{ ...rule, host: 'svc.test.' }])).toEqual({
      host: '127.0.0.1',
      port: 8443,
    });
  });
});

describe('a trailing dot in the target host', () => {
  let folder: string;
  let service: ReferenceService;
  let proxy: ProxyHandle;
  let caPem: string;
  let port: number;
  const recordFile = () => join(folder, 'traffic.ndjson');

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'print-conformance-hosts-'));
    const caDir = join(folder, 'ca');
    const ca = await loadOrCreateCa(caDir);
    caPem = ca.certPem;
    service = await startReferenceService({ tls: await ca.maker.issue(['svc.test', '127.0.0.1']) });
    port = Number(new URL(service.baseUrl).port);
    proxy = await startProxy({
      target: `https://svc.test:${port}/v2/`,
      caDir,
      mode: 'enforce',
      recordFile: recordFile(),
      connectTo: [{ host: 'svc.test', port, toHost: '127.0.0.1', toPort: port }],
    });
  });

  afterAll(async () => {
    await proxy.close();
    await service.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('in a CONNECT, any case, is intercepted: judged, recorded, and enforce mode applies', async () => {
    const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: caPem } });
    try {
      const placed = await request(`https://SVC.Test.:${port}/v2/orders`, { method: 'POST', dispatcher });
      expect(placed.statusCode).toBe(201);
      const order = (await placed.body.json()) as { checkout: { setupUrl: string } };
      // The service hands out URLs on its own address: the client names the host with a trailing dot.
      const setupUrl = `https://svc.test.:${port}${new URL(order.checkout.setupUrl).pathname}`;
      const before = [...service.store.checkouts.values()].filter((record) => record.returnUrl).length;
      const blocked = await request(setupUrl, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ returnUrl: 'a://' }),
      });
      expect(await blocked.body.text()).toMatch(/checkout\.return-url\.length/);
      expect(blocked.statusCode).toBeGreaterThanOrEqual(400);
      expect([...service.store.checkouts.values()].filter((record) => record.returnUrl).length).toBe(before);
    } finally {
      await dispatcher.close();
    }
  });

  it('in an absolute-form request is intercepted and recorded, not passed on blind', async () => {
    const answer = await rawExchange(
      proxy.url,
      `GET https://svc.test.:${port}/v2/orders/none HTTP/1.1\r\nhost: svc.test.:${port}\r\nconnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
    expect(proxy.traffic.passedOnLines()).toEqual([]);
  });

  it('leaves every exchange above in the recording', async () => {
    await proxy.close();
    const urls = readFileSync(recordFile(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { request: { url: string } }).request.url);
    expect(urls).toContain(`https://svc.test:${port}/v2/orders`);
    expect(urls).toContain(`https://svc.test:${port}/v2/orders/none`);
    expect(urls.some((url) => url.includes('/v2/checkout/'))).toBe(true);
  });
});
