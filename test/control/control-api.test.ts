import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ExchangeFeed } from '../../src/control/exchange-feed.js';
import { SHOWN_BODY_CHARS } from '../../src/control/kept-exchange.js';
import { startReferenceService } from '../../src/reference/service.js';
import { PDF_BYTES } from '../helpers/exchanges.js';
import { proxiedService } from '../helpers/proxy-fixture.js';

// The control API on the proxy's port: what it answers, to whom, and that it is never part of the
// traffic (not forwarded, not recorded, not in the verdict).

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function proxy(options: Parameters<typeof proxiedService>[0] = {}) {
  const setup = await proxiedService(options);
  cleanups.push(() => setup.dispose());
  const control = `${setup.proxy.url}__print-conformance/`;
  return { ...setup, control };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
const unescapeHtml = (text: string) =>
  text.replace(/&(?:amp|lt|gt|quot|apos);/g, (entity) => ENTITIES[entity] ?? entity);

const address = { name: 'Jan', line1: 'Straat 1', postCode: '1234 AB', city: 'Utrecht', country: 'NL' };

async function setUp(proxyUrl: string, returnUrl: string, test?: string) {
  const testHeader: Record<string, string> = test ? { 'print-conformance-test': test } : {};
  const order = (await (await fetch(`${proxyUrl}orders`, { method: 'POST', headers: testHeader })).json()) as {
    checkout: { setupUrl: string };
  };
  return fetch(order.checkout.setupUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...testHeader },
    body: JSON.stringify({ returnUrl, billing: { address } }),
  });
}

describe('the control API', () => {
  it('is never forwarded, recorded or judged', async () => {
    const seen: string[] = [];
    const target: Server = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => target.close(() => resolve())));
    const {
      proxy: handle,
      control,
      recorded,
    } = await proxy({
      proxy: { target: `http://127.0.0.1:${(target.address() as AddressInfo).port}/v2/` },
    });
    for (const path of ['', 'api/exchanges', 'api/verdicts', 'api/tests', 'nothing-here'])
      await (await fetch(`${control}${path}`)).arrayBuffer();
    await (await fetch(`${control}api/tests`, { method: 'POST', body: '{"name":"a test"}' })).arrayBuffer();
    expect(seen).toEqual([]);
    expect(handle.traffic.seen).toBe(0);
    expect(await recorded()).toEqual([]);
  });

  it('answers the exchanges since a sequence number, and each one opened', async () => {
    const { control, proxy: handle } = await proxy();
    await setUp(handle.url, 'a://');
    const list = (await (await fetch(`${control}api/exchanges?after=0`)).json()) as {
      last: number;
      exchanges: { seq: number; url: string; violations: { rule: string }[] }[];
    };
    expect(list.exchanges.map((e) => e.seq)).toEqual([1, 2]);
    expect(list.exchanges[1]?.violations.map((v) => v.rule)).toContain('checkout.return-url.length');
    const after = (await (await fetch(`${control}api/exchanges?after=1`)).json()) as { exchanges: unknown[] };
    expect(after.exchanges).toHaveLength(1);
    const opened = (await (await fetch(`${control}api/exchanges/2`)).json()) as {
      request: { text: string; places: { rule: string; start: number; end: number }[] };
      curl: string;
    };
    const place = opened.request.places.find((p) => p.rule === 'checkout.return-url.length');
    expect(opened.request.text.slice(place?.start, place?.end)).toBe('"returnUrl":"a://"');
    expect(opened.curl).toMatch(/^curl /);
    expect((await fetch(`${control}api/exchanges/99`)).status).toBe(404);
  });

  it('streams judged exchanges as Server-Sent Events', async () => {
    const { control, proxy: handle } = await proxy();
    const events = await fetch(`${control}api/events`);
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (events.body as ReadableStream<Uint8Array>).getReader();
    await setUp(handle.url, 'https://shop.example.com/done');
    let text = '';
    while (!/id: 2\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    expect(text).toMatch(/event: exchange\nid: 1\ndata: \{"seq":1,[^\n]*"url":"http:\/\/127\.0\.0\.1:\d+\/v2\/orders"/);
  });

  it("keeps each client test's verdict, by header or by name, and strips the header before the target", async () => {
    const headersSeen: IncomingHttpHeaders[] = [];
    const { control, proxy: handle, service } = await proxy();
    service.server.on('request', (request) => headersSeen.push(request.headers));
    await setUp(handle.url, 'a://', 'breaks-it');
    await (await fetch(`${control}api/tests`, { method: 'POST', body: '{"name":"keeps-it"}' })).arrayBuffer();
    await setUp(handle.url, 'https://shop.example.com/done');
    const broken = (await (await fetch(`${control}api/tests/breaks-it`)).json()) as {
      passed: boolean;
      failed: { rule: string; messages: string[] }[];
    };
    expect(broken.passed).toBe(false);
    expect(broken.failed.map((f) => f.rule)).toEqual(['checkout.return-url.length']);
    expect(broken.failed[0]?.messages[0]).toMatch(/^request: ReturnUrl has 4 UTF-16 code units/);
    const kept = (await (await fetch(`${control}api/tests/keeps-it`)).json()) as { passed: boolean; judged: number };
    expect(kept).toMatchObject({ passed: true, judged: 1 });
    expect((await fetch(`${control}api/tests/never-ran`)).status).toBe(404);
    expect(headersSeen.length).toBeGreaterThan(0);
    for (const headers of headersSeen) expect(headers['print-conformance-test']).toBeUndefined();
  });

  it('reads a test name in the header as UTF-8, knows a named test before its first exchange, and tells a wrong method', async () => {
    const { control, proxy: handle } = await proxy();
    await (await fetch(`${control}api/tests`, { method: 'POST', body: '{"name":"sends nothing"}' })).arrayBuffer();
    const quiet = (await (await fetch(`${control}api/tests/sends%20nothing`)).json()) as {
      passed: boolean;
      exchanges: number;
    };
    expect(quiet).toMatchObject({ passed: true, exchanges: 0 });
    // undici writes header values as UTF-8 bytes, as PHP's curl does.
    await (
      await fetch(`${handle.url}orders`, { method: 'POST', headers: { 'print-conformance-test': 'café à la carte' } })
    ).arrayBuffer();
    const named = await fetch(`${control}api/tests/${encodeURIComponent('café à la carte')}`);
    expect(named.status).toBe(200);
    const wrong = await fetch(`${control}api/tests`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect((await fetch(`${control}api/events?after=abc`)).status).toBe(400);
  });

  it('refuses a client on another machine unless it brings the token', async () => {
    const closed = await proxy({ proxy: { localClient: () => false } });
    expect((await fetch(`${closed.control}api/exchanges`)).status).toBe(403);
    const open = await proxy({ proxy: { localClient: () => false, controlToken: 's3cret-token' } });
    expect((await fetch(`${open.control}api/exchanges`)).status).toBe(401);
    const withToken = await fetch(`${open.control}api/exchanges`, {
      headers: { authorization: 'Bearer s3cret-token' },
    });
    expect(withToken.status).toBe(200);
    expect((await fetch(`${open.control}api/exchanges?token=wrong`)).status).toBe(401);
  });

  it("never writes the control token in a curl line: the body's download takes it from a variable", async () => {
    const token = 's3cret-token';
    const auth = { authorization: `Bearer ${token}` };
    const { proxy: handle, control } = await proxy({
      proxy: { localClient: () => false, controlToken: token, recordBodies: true },
    });
    const placed = (await (await fetch(`${handle.url}orders`, { method: 'POST' })).json()) as {
      items: { files: Record<string, { uploadUrl: string }> }[];
    };
    const uploadUrl = Object.values(placed.items[0]?.files ?? {})[0]?.uploadUrl as string;
    // Larger than a curl line holds, smaller than the live page keeps: downloaded from the proxy.
    const file = Buffer.concat([PDF_BYTES, Buffer.alloc(20_000, 0x41)]);
    await (
      await fetch(uploadUrl, { method: 'POST', headers: { 'content-type': 'application/pdf' }, body: file })
    ).text();
    const listed = (await (await fetch(`${control}api/exchanges?after=0`, { headers: auth })).json()) as {
      exchanges: { seq: number; url: string }[];
    };
    const upload = listed.exchanges.at(-1);
    const page = await (await fetch(`${control}exchanges/${upload?.seq}`, { headers: auth })).text();
    const curl = unescapeHtml(/<pre id="curl">([^<]*)<\/pre>/.exec(page)?.[1] ?? '');
    expect(curl).toMatch(
      /^curl -sf -H 'Authorization: Bearer '"\$CONTROL_TOKEN" -o print-conformance-request-body-\d+\.pdf \S+\/request-body && curl /,
    );
    expect(curl).not.toContain(token);
    expect(curl).toContain('# CONTROL_TOKEN: the control token');
    // With the variable set, the line sends the same bytes again.
    // The line fetches the kept body to a file first: in a folder of the test's own.
    const folder = mkdtempSync(join(tmpdir(), 'control-curl-'));
    cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
    await promisify(execFile)('sh', ['-c', `${curl} --silent --output /dev/null`], {
      cwd: folder,
      env: { ...process.env, CONTROL_TOKEN: token },
    });
    const again = (await (await fetch(`${control}api/exchanges?after=${upload?.seq}`, { headers: auth })).json()) as {
      exchanges: { url: string; requestBytes: number }[];
    };
    expect(again.exchanges.map((entry) => [entry.url, entry.requestBytes])).toEqual([[upload?.url, file.length]]);
  });

  it('refuses a request from another site in the browser', async () => {
    const { control } = await proxy();
    const crossSite = await fetch(`${control}api/tests`, {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
      body: '{"name":"planted"}',
    });
    expect(crossSite.status).toBe(403);
  });
});

describe('the window of exchanges', () => {
  it('holds at most its count, and says what it no longer holds', () => {
    const feed = new ExchangeFeed(100);
    for (let index = 0; index < 10_000; index += 1)
      feed.push(
        {
          request: { method: 'GET', url: `http://x.test/v2/checkout/${index}`, headers: {} },
          response: { status: 200, headers: {}, body: { text: 'x'.repeat(1000), size: 1000 } },
          violations: [],
        },
        true,
        undefined,
      );
    expect(feed.last).toBe(10_000);
    expect(feed.first).toBe(9_901);
    expect(feed.since(0)).toHaveLength(100);
    expect(feed.item(5)).toBeUndefined();
    expect(feed.item(9_950)?.entry.seq).toBe(9_950);
  });

  it('shows what was pushed however late it is read: every finding, long bodies cut, the stream given one text', () => {
    const feed = new ExchangeFeed(10);
    const observation = {
      rule: 'observe.large-upload',
      severity: 'observe',
      side: 'response',
      message: 'seen',
    } as const;
    const must = { rule: 'format.json', severity: 'must', side: 'response', message: 'not JSON' } as const;
    feed.push(
      {
        startedAt: '2026-01-01T00:00:00.000Z',
        request: {
          method: 'POST',
          url: 'http://x.test/v2/files/u1',
          headers: {},
          body: { size: 3, base64: 'AAAA' },
        },
        response: { status: 200, headers: {}, body: { text: 'y'.repeat(SHOWN_BODY_CHARS + 10), size: 0 } },
        // The recording holds observations apart: the window is given every finding.
        violations: [must, observation],
        durationMs: 4,
      },
      true,
      'a test',
    );
    const streamed: string[] = [];
    feed.subscribe((_entry, json) => streamed.push(json));
    feed.push(
      { request: { method: 'GET', url: 'http://x.test/v2/checkout/c', headers: {} }, violations: [] },
      false,
      undefined,
    );
    expect(feed.since(0)).toEqual([
      {
        seq: 1,
        at: '2026-01-01T00:00:00.000Z',
        method: 'POST',
        url: 'http://x.test/v2/files/u1',
        status: 200,
        test: 'a test',
        durationMs: 4,
        requestBytes: 3,
        responseBytes: 0,
        judged: true,
        violations: [must, observation],
      },
      expect.objectContaining({ seq: 2, method: 'GET', judged: false, violations: [] }),
    ]);
    expect(JSON.parse(streamed[0] as string)).toEqual(feed.since(1)[0]);
    const item = feed.item(1);
    expect(item?.exchange.request.body).toEqual({ size: 3, base64: 'AAAA' });
    expect(item?.exchange.response?.body?.text).toHaveLength(SHOWN_BODY_CHARS);
    expect(item?.exchange.response?.body?.skipped).toMatch(/cut at/);
    expect(feed.item(1)?.entry).toEqual(feed.since(0)[0]);
    expect(feed.item(3)).toBeUndefined();
  });
});

describe('serve', () => {
  it('judges a request body it answered without reading, as the client sent it', async () => {
    const service = await startReferenceService({ control: {} });
    cleanups.push(() => service.close());
    const root = service.baseUrl.replace(/v2\/$/, '');
    // An unknown code is answered 404 before the body is read.
    const answer = await fetch(`${service.baseUrl}checkout/unknown-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'print-conformance-test': 'unread' },
      body: JSON.stringify({ returnUrl: 'a://', billing: { address } }),
    });
    expect(answer.status).toBe(404);
    await answer.arrayBuffer();
    const opened = (await (await fetch(`${root}__print-conformance/api/exchanges/1`)).json()) as {
      request: { text?: string };
      violations: { rule: string }[];
    };
    expect(opened.request.text).toContain('"returnUrl":"a://"');
    const rules = opened.violations.map((v) => v.rule);
    expect(rules).toContain('checkout.return-url.length');
    expect(rules).not.toContain('format.well-formed');
  });

  it('ends a payment step without a browser, and judges its own clients', async () => {
    const service = await startReferenceService({ control: {} });
    cleanups.push(() => service.close());
    const root = service.baseUrl.replace(/v2\/$/, '');
    const setup = await setUp(service.baseUrl, 'https://shop.example.com/done', 'pays');
    expect(setup.status).toBe(201);
    const code = new URL(setup.url).pathname.split('/').at(-1) as string;
    const paid = await fetch(`${root}__print-conformance/api/payments/${code}`, {
      method: 'POST',
      body: '{"outcome":"Cancelled"}',
    });
    expect(await paid.json()).toMatchObject({ status: 'Cancelled', returnUrl: 'https://shop.example.com/done' });
    const read = (await (await fetch(setup.url, { headers: { accept: 'application/json' } })).json()) as {
      status: string;
    };
    expect(read.status).toBe('Cancelled');
    const again = await fetch(`${root}__print-conformance/api/payments/${code}`, {
      method: 'POST',
      body: '{"outcome":"Successful"}',
    });
    expect(again.status).toBe(409);
    expect(
      (await fetch(`${root}__print-conformance/api/payments/${code}`, { method: 'POST', body: '{}' })).status,
    ).toBe(400);
    const verdict = (await (await fetch(`${root}__print-conformance/api/tests/pays`)).json()) as {
      passed: boolean;
      judged: number;
    };
    expect(verdict).toMatchObject({ passed: true, judged: 1 });
  });
});
