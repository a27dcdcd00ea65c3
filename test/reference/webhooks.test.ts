import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { type WebhookOptions, Webhooks } from '../../src/reference/webhooks.js';
import { runCli } from '../helpers/cli.js';
import { checkoutRequestJson, PDF_BYTES } from '../helpers/exchanges.js';

// serve's webhooks as a shop's handler receives them: one form post `orderId=<id>` after each status
// change (the payment page, the control API's payment and order status), retried with back-off on
// anything but 2xx, listed in api/webhooks, and never holding up the answer that caused it.

interface Received {
  method: string;
  contentType: string | undefined;
  body: string;
}

/** A shop's webhook handler: answers each call as `answer` says (or never, with 'hang'). */
async function receiver(answer: (index: number) => number | 'hang') {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const arrived: ((value: Received) => void)[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const call = {
        method: request.method ?? '',
        contentType: request.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const status = answer(received.length);
      received.push(call);
      for (const resolve of arrived.splice(0)) resolve(call);
      if (status === 'hang') hanging.push(response);
      else response.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    received,
    next: () => new Promise<Received>((resolve) => arrived.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function serviceCalling(urls: string[], webhooks: Partial<WebhookOptions> = {}) {
  const lines: string[] = [];
  const service = await startReferenceService({
    control: {},
    webhooks: { urls, retryDelaysMs: [10, 20, 40, 80], log: (line) => lines.push(line), ...webhooks },
  });
  cleanup.push(() => service.close());
  return { service, lines };
}

async function call(method: string, url: string, headers: Record<string, string> = {}, body?: string | Buffer) {
  const exchange = await send({ method, url, headers, body });
  return { status: exchange.response?.status, text: exchange.response?.body?.text ?? '' };
}

/** An order placed and its checkout set up: its id, checkout URL, PaymentUrl and upload URLs. */
async function setUp(service: ReferenceService) {
  const order = JSON.parse((await call('POST', `${service.baseUrl}orders`)).text);
  const checkoutUrl = order.checkout.setupUrl as string;
  const answer = await call(
    'POST',
    checkoutUrl,
    { 'content-type': 'application/json', accept: 'application/json' },
    checkoutRequestJson(),
  );
  const paymentUrl = JSON.parse(answer.text).paymentUrl as string;
  const files = order.items[0].files;
  return {
    id: order.id as string,
    code: checkoutUrl.split('/').pop() as string,
    paymentUrl,
    uploads: [files.content.uploadUrl as string, files.cover.uploadUrl as string],
  };
}

async function orderOf(service: ReferenceService, id: string) {
  return JSON.parse((await call('GET', `${service.baseUrl}orders/${id}`)).text);
}

const control = (service: ReferenceService, path: string) =>
  `${service.baseUrl.replace(/v2\/$/, '')}__print-conformance/${path}`;

describe('serve --webhook-url', () => {
  it('posts exactly orderId=<id>, form-encoded, when the payment page ends the payment', async () => {
    const shop = await receiver(() => 200);
    cleanup.push(shop.close);
    const { service, lines } = await serviceCalling([shop.url]);
    const order = await setUp(service);
    expect(shop.received).toEqual([]);
    const arrived = shop.next();
    expect((await call('POST', order.paymentUrl.replace(/start$/, 'pay'))).status).toBe(303);
    expect(await arrived).toEqual({
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      body: `orderId=${order.id}`,
    });
    await service.webhooks.settled();
    // The shop reads the status itself: paid, but its files are still to come.
    const seen = await orderOf(service, order.id);
    expect([seen.status, seen.checkout.status]).toEqual(['Created', 'Successful']);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^webhook POST ${shop.url} orderId=${order.id}: try 1 of 5: 200 in \\d+ ms$`)),
    ]);
  });

  it("calls after the control API's payment outcome, the last upload of a paid order and a status set by the API", async () => {
    const shop = await receiver(() => 204);
    cleanup.push(shop.close);
    const { service } = await serviceCalling([shop.url]);
    const cancelled = await setUp(service);
    const paid = await setUp(service);
    const answer = await call(
      'POST',
      control(service, `api/payments/${cancelled.code}`),
      {},
      '{"outcome":"Cancelled"}',
    );
    expect(answer.status).toBe(200);
    await service.webhooks.settled();
    expect(shop.received.map((r) => r.body)).toEqual([`orderId=${cancelled.id}`]);
    expect((await orderOf(service, cancelled.id)).status).toBe('Cancelled');
    expect((await orderOf(service, cancelled.id)).checkout.status).toBe('Cancelled');

    await call('POST', control(service, `api/payments/${paid.code}`), {}, '{"outcome":"Successful"}');
    // The first file changes no status; the last one moves the paid order to Processing.
    await call('POST', paid.uploads[0] as string, { 'content-type': 'application/pdf' }, PDF_BYTES);
    await service.webhooks.settled();
    expect(shop.received.length).toBe(2);
    await call('POST', paid.uploads[1] as string, { 'content-type': 'application/pdf' }, PDF_BYTES);
    await service.webhooks.settled();
    expect(shop.received.length).toBe(3);
    expect((await orderOf(service, paid.id)).status).toBe('Processing');

    const shipped = await call('POST', control(service, `api/orders/${paid.id}/status`), {}, '{"status":"Shipped"}');
    expect([shipped.status, JSON.parse(shipped.text)]).toEqual([200, { orderId: paid.id, status: 'Shipped' }]);
    await service.webhooks.settled();
    expect(shop.received.map((r) => r.body)).toEqual([
      `orderId=${cancelled.id}`,
      `orderId=${paid.id}`,
      `orderId=${paid.id}`,
      `orderId=${paid.id}`,
    ]);
    expect((await orderOf(service, paid.id)).status).toBe('Shipped');
    expect((await call('POST', control(service, 'api/orders/nope/status'), {}, '{"status":"Shipped"}')).status).toBe(
      404,
    );
    expect((await call('POST', control(service, `api/orders/${paid.id}/status`), {}, '{"status":""}')).status).toBe(
      400,
    );

    const listed = JSON.parse((await call('GET', control(service, 'api/webhooks'))).text);
    expect(listed.calls).toHaveLength(4);
    expect(listed.calls[3]).toEqual({
      orderId: paid.id,
      url: shop.url,
      tries: [{ status: 204, durationMs: expect.any(Number) }],
    });
  });

  it('retries an answer other than 2xx after growing waits, each try one log line, five tries at most', async () => {
    const shop = await receiver((index) => (index < 2 ? 500 : 200));
    const broken = await receiver(() => 503);
    cleanup.push(shop.close, broken.close);
    const { service, lines } = await serviceCalling([shop.url, broken.url]);
    const order = await setUp(service);
    await call('POST', control(service, `api/payments/${order.code}`), {}, '{"outcome":"Failed"}');
    await service.webhooks.settled();
    expect(shop.received.map((r) => r.body)).toEqual(Array(3).fill(`orderId=${order.id}`));
    expect(broken.received).toHaveLength(5);
    const calls = service.webhooks.calls();
    expect(calls.map((c) => c.tries.map((t) => t.status))).toEqual([
      [500, 500, 200],
      [503, 503, 503, 503, 503],
    ]);
    const tried = (url: string) => lines.filter((line) => line.startsWith(`webhook POST ${url} `));
    expect(tried(shop.url)).toEqual([
      expect.stringMatching(/try 1 of 5: 500 in \d+ ms; next try in 0.01 s$/),
      expect.stringMatching(/try 2 of 5: 500 in \d+ ms; next try in 0.02 s$/),
      expect.stringMatching(/try 3 of 5: 200 in \d+ ms$/),
    ]);
    expect(tried(broken.url)[4]).toMatch(/try 5 of 5: 503 in \d+ ms; giving up$/);
  });

  it('never holds up the answer that caused it: a receiver that never answers times out in the background', async () => {
    const shop = await receiver(() => 'hang');
    cleanup.push(shop.close);
    const { service } = await serviceCalling([shop.url], { timeoutMs: 300, retryDelaysMs: [10] });
    const order = await setUp(service);
    const arrived = shop.next();
    const paid = await call('POST', order.paymentUrl.replace(/start$/, 'pay'));
    expect(paid.status).toBe(303);
    // The payment's answer came while the shop's handler holds the call unanswered.
    await arrived;
    expect(service.webhooks.calls()[0]?.tries).toEqual([]);
    expect((await orderOf(service, order.id)).checkout.status).toBe('Successful');
    await service.webhooks.settled();
    expect(service.webhooks.calls()[0]?.tries).toEqual([
      { error: 'no answer within 0.3 s', durationMs: expect.any(Number) },
      { error: 'no answer within 0.3 s', durationMs: expect.any(Number) },
    ]);
  });

  it('refuses a --webhook-url that is not an absolute http(s) URL at start, in one line, exit 2', async () => {
    for (const [given, why] of [
      ['/webhook', 'is not an absolute URL'],
      ['ftp://shop.example.test/hook', 'is not an http or https URL'],
    ]) {
      const result = await runCli([
        'serve',
        '--webhook-url',
        'http://127.0.0.1:1/ok',
        '--webhook-url',
        given as string,
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`print-conformance: --webhook-url ${given} ${why}\n`);
      expect(result.stdout).toBe('');
    }
  });

  it("sends a URL's user and password as Basic credentials, and shows the URL without its password", async () => {
    const headers: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      headers.push(request.headers.authorization);
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanup.push(() => new Promise<void>((closed) => server.close(() => closed())));
    const port = (server.address() as AddressInfo).port;
    const lines: string[] = [];
    const webhooks = new Webhooks({
      urls: [`http://sh%40p:s3cr%3At@127.0.0.1:${port}/hook`],
      log: (line) => lines.push(line),
    });
    webhooks.notify('order-1');
    await webhooks.settled();
    expect(headers).toEqual([`Basic ${Buffer.from('sh@p:s3cr:t').toString('base64')}`]);
    const shown = `http://sh%40p:[Filtered]@127.0.0.1:${port}/hook`;
    expect(webhooks.calls()).toEqual([
      { orderId: 'order-1', url: shown, tries: [{ status: 204, durationMs: expect.any(Number) }] },
    ]);
    expect(lines.join('\n')).not.toContain('s3cr');
    expect(lines[0]).toContain(shown);
  });
});
