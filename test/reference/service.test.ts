import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { CheckoutState, validateExchange } from '../../src/validate/index.js';
import {
  checkoutRequestJson,
  checkoutRequestXml,
  JPEG_BYTES,
  multipartBody,
  PDF_BYTES,
  PNG_BYTES,
} from '../helpers/exchanges.js';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const XML_HEADERS = { 'content-type': 'application/xml', accept: 'application/xml' };

let service: ReferenceService;
const state = new CheckoutState();
const seen: Exchange[] = [];

/** Sends, keeps the exchange for the no-5xx check, and judges it with the core. */
async function call(method: string, url: string, headers: Record<string, string> = {}, body?: Buffer | string) {
  const exchange = await send({ method, url, headers, body });
  seen.push(exchange);
  const failures = validateExchange(exchange, state).filter((v) => v.severity !== 'observe' && v.side === 'response');
  return { exchange, status: exchange.response?.status, text: exchange.response?.body?.text ?? '', failures };
}

async function placeOrder(base = service.baseUrl) {
  const order = await call(
    'POST',
    `${base}orders`,
    JSON_HEADERS,
    JSON.stringify({ items: [{ productId: 'book', quantity: 2 }] }),
  );
  expect(order.status).toBe(201);
  const body = JSON.parse(order.text);
  return {
    id: body.id as string,
    checkoutUrl: body.checkout.setupUrl as string,
    contentUrl: body.items[0].files.content.uploadUrl as string,
    coverUrl: body.items[0].files.cover.uploadUrl as string,
  };
}

const withReturnUrl = (url: string) => JSON.stringify({ ...JSON.parse(checkoutRequestJson()), returnUrl: url });
const withReturnUrlXml = (url: string) => checkoutRequestXml().replace(/<ReturnUrl>[^<]*</, `<ReturnUrl>${url}<`);
const urlOfLength = (n: number) => `https://e.test/?${'a'.repeat(n - 16)}`;

beforeAll(async () => {
  service = await startReferenceService({ maxUploadBytes: 64 * 1024 });
});
afterAll(async () => {
  await service.close();
  expect(seen.filter((e) => (e.response?.status ?? 0) >= 500)).toEqual([]);
});

describe('orders', () => {
  it('places an order whose checkout and upload URLs are fully qualified under the base URL', async () => {
    const order = await placeOrder();
    for (const url of [order.checkoutUrl, order.contentUrl, order.coverUrl]) {
      expect(url.startsWith(service.baseUrl)).toBe(true);
      // Opaque codes of letters and digits, as the real service's: never one that reads as an option.
      expect(url.slice(service.baseUrl.length)).toMatch(/^(checkout|files)\/[A-Za-z0-9]{21}$/);
    }
    expect(order.id).toMatch(/^[A-Za-z0-9]+$/);
    const again = await call('GET', `${service.baseUrl}orders/${order.id}`);
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text).checkout.setupUrl).toBe(order.checkoutUrl);
  });

  it('builds URLs on its own address, whatever Host the client names', async () => {
    const answer = await call('POST', `${service.baseUrl}orders`, { host: 'attacker.example.test' });
    const order = JSON.parse(answer.text);
    expect(order.checkout.setupUrl.startsWith(`${service.baseUrl}checkout/`)).toBe(true);
    expect(answer.exchange.response?.headers.location).toBe(`${service.baseUrl}orders/${order.id}`);
    const read = await call('GET', `${service.baseUrl}orders/${order.id}`, { host: 'attacker.example.test' });
    expect(read.text).not.toContain('attacker');
  });

  it('builds URLs on the public URL it is given, when it has one', async () => {
    const behind = await startReferenceService({ publicUrl: 'https://sandbox.example.test/print' });
    try {
      const answer = await call('POST', `${behind.baseUrl}orders`, { host: 'attacker.example.test' });
      const order = JSON.parse(answer.text);
      expect(order.checkout.setupUrl).toMatch(/^https:\/\/sandbox\.example\.test\/print\/checkout\/\w+$/);
      expect(order.items[0].files.content.uploadUrl).toMatch(/^https:\/\/sandbox\.example\.test\/print\/files\/\w+$/);
      expect(answer.exchange.response?.headers.location).toBe(`https://sandbox.example.test/print/orders/${order.id}`);
      expect(behind.publicUrl).toBe('https://sandbox.example.test/print/');
    } finally {
      await behind.close();
    }
  });

  it('refuses a malformed order and answers 404 for an unknown order', async () => {
    expect((await call('POST', `${service.baseUrl}orders`, JSON_HEADERS, '{"items": [')).status).toBe(400);
    expect((await call('GET', `${service.baseUrl}orders/nope`)).status).toBe(404);
  });
});

describe('checkout', () => {
  it('sets up in JSON: 201, Location, the checkout echoed with Status Open, breaking no rule', async () => {
    const { checkoutUrl } = await placeOrder();
    const answer = await call('POST', checkoutUrl, JSON_HEADERS, checkoutRequestJson());
    expect(answer.status).toBe(201);
    expect(answer.exchange.response?.headers.location).toBe(checkoutUrl);
    expect(answer.failures).toEqual([]);
    expect(JSON.parse(answer.text)).toMatchObject({
      status: 'Open',
      returnUrl: JSON.parse(checkoutRequestJson()).returnUrl,
    });
    const read = await call('GET', checkoutUrl, { accept: 'application/json' });
    expect(read.status).toBe(200);
    expect(read.failures).toEqual([]);
  });

  it('sets up in XML and answers XmlSerializer-style XML with a nil Tax', async () => {
    const { checkoutUrl } = await placeOrder();
    const answer = await call('POST', checkoutUrl, XML_HEADERS, checkoutRequestXml());
    expect(answer.status).toBe(201);
    expect(answer.failures).toEqual([]);
    expect(answer.text).toMatch(/^<\?xml version="1.0"\?>\n<Checkout xmlns:xsd=/);
    expect(answer.text).toContain('<Tax xsi:nil="true" />');
    const read = await call('GET', checkoutUrl, { accept: 'text/xml' });
    expect(read.text).toContain('<Checkout ');
    expect(read.failures).toEqual([]);
  });

  it('answers JSON when no Accept is sent', async () => {
    const { checkoutUrl } = await placeOrder();
    const read = await call('GET', checkoutUrl);
    expect(read.exchange.response?.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('accepts ReturnUrl lengths 5 and 512 and rejects 4 and 513, in JSON and XML (UTF-16 units)', async () => {
    const { checkoutUrl } = await placeOrder();
    for (const [body, headers] of [
      [withReturnUrl, JSON_HEADERS],
      [withReturnUrlXml, XML_HEADERS],
    ] as const) {
      expect((await call('POST', checkoutUrl, headers, body('a://b'))).status).toBe(201);
      expect((await call('POST', checkoutUrl, headers, body(urlOfLength(512)))).status).toBe(201);
      expect((await call('POST', checkoutUrl, headers, body('a://'))).status).toBe(400);
      expect((await call('POST', checkoutUrl, headers, body(urlOfLength(513)))).status).toBe(400);
    }
    expect((await call('POST', checkoutUrl, JSON_HEADERS, withReturnUrl(`${urlOfLength(511)}😀`))).status).toBe(400);
  });

  it('rejects malformed bodies, wrong types and declarations with 400 and an error body in the format asked', async () => {
    const { checkoutUrl } = await placeOrder();
    const bad = [
      [JSON_HEADERS, '{"returnUrl": '],
      [JSON_HEADERS, '{"returnUrl": 12345}'],
      [JSON_HEADERS, '{"billing": {"address": {"name": 7}}}'],
      [JSON_HEADERS, '[1,2]'],
      [XML_HEADERS, '<Checkout><ReturnUrl>x</Checkout>'],
      [XML_HEADERS, '<Order><ReturnUrl>https://x.test</ReturnUrl></Order>'],
      [XML_HEADERS, '<!DOCTYPE x [<!ENTITY a "b">]><Checkout><ReturnUrl>&a;</ReturnUrl></Checkout>'],
      [JSON_HEADERS, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
    ] as const;
    for (const [headers, body] of bad) {
      const answer = await call('POST', checkoutUrl, headers, body);
      expect(answer.status, String(body)).toBe(400);
      expect(answer.failures, String(body)).toEqual([]);
      if (headers === XML_HEADERS) expect(answer.text).toMatch(/<Error>\n {2}<Message>/);
      else expect(JSON.parse(answer.text)).toHaveProperty('message');
    }
  });

  it('answers 415 to another request type, 404 to an unknown code, 405 to another method, 413 to a huge body', async () => {
    const { checkoutUrl } = await placeOrder();
    expect((await call('POST', checkoutUrl, { 'content-type': 'text/plain' }, 'returnUrl=x')).status).toBe(415);
    expect((await call('GET', `${service.baseUrl}checkout/unknown-code`)).status).toBe(404);
    expect(
      (await call('POST', `${service.baseUrl}checkout/unknown-code`, JSON_HEADERS, checkoutRequestJson())).status,
    ).toBe(404);
    const put = await call('PUT', checkoutUrl, JSON_HEADERS, checkoutRequestJson());
    expect(put.status).toBe(405);
    expect(put.exchange.response?.headers.allow).toBe('GET, POST');
    const huge = JSON.stringify({ returnUrl: 'https://x.test', pad: 'x'.repeat(2 * 1024 * 1024) });
    expect((await call('POST', checkoutUrl, JSON_HEADERS, huge)).status).toBe(413);
  });
});

describe('upload', () => {
  it('accepts raw PDF, PNG and JPEG and names their types', async () => {
    const { contentUrl, coverUrl } = await placeOrder();
    const pdf = await call('POST', contentUrl, { 'content-type': 'application/pdf' }, PDF_BYTES);
    expect(pdf.status).toBe(200);
    expect(JSON.parse(pdf.text)).toEqual({ fileName: 'content', fileType: 'PDF' });
    expect(pdf.failures).toEqual([]);
    const png = await call('POST', coverUrl, { 'content-type': 'image/png', accept: 'application/xml' }, PNG_BYTES);
    expect(png.text).toContain('<FileType>PNG</FileType>');
    expect(png.failures).toEqual([]);
    const jpeg = await call('POST', coverUrl, { 'content-type': 'image/jpeg' }, JPEG_BYTES);
    expect(JSON.parse(jpeg.text).fileType).toBe('JPEG');
  });

  it('accepts the file as a multipart/form-data part', async () => {
    const { contentUrl } = await placeOrder();
    const form = multipartBody([
      { name: 'role', bytes: Buffer.from('content') },
      { name: 'file', filename: 'book.pdf', type: 'application/pdf', bytes: PDF_BYTES },
    ]);
    const answer = await call('POST', contentUrl, { 'content-type': form.contentType }, form.bytes);
    expect(answer.status).toBe(200);
    expect(answer.failures).toEqual([]);
  });

  it('answers 415 to text/plain, application/octet-stream and a text/plain part; 400 to bytes of no known type', async () => {
    const { contentUrl } = await placeOrder();
    expect((await call('POST', contentUrl, { 'content-type': 'text/plain' }, PDF_BYTES)).status).toBe(415);
    expect((await call('POST', contentUrl, { 'content-type': 'application/octet-stream' }, PDF_BYTES)).status).toBe(
      415,
    );
    expect((await call('POST', contentUrl, {}, PDF_BYTES)).status).toBe(415);
    const form = multipartBody([{ name: 'file', filename: 'a.txt', type: 'text/plain', bytes: PDF_BYTES }]);
    expect((await call('POST', contentUrl, { 'content-type': form.contentType }, form.bytes)).status).toBe(415);
    const noFile = multipartBody([{ name: 'role', bytes: Buffer.from('content') }]);
    expect((await call('POST', contentUrl, { 'content-type': noFile.contentType }, noFile.bytes)).status).toBe(400);
    expect((await call('POST', contentUrl, { 'content-type': 'multipart/form-data' }, 'junk')).status).toBe(400);
    expect(
      (await call('POST', contentUrl, { 'content-type': 'application/pdf' }, Buffer.from('hello world'))).status,
    ).toBe(400);
  });

  it('answers 413 past the upload limit, raw and multipart, and 404 to an unknown code', async () => {
    const { contentUrl } = await placeOrder();
    const big = Buffer.concat([PDF_BYTES, Buffer.alloc(100 * 1024)]);
    expect((await call('POST', contentUrl, { 'content-type': 'application/pdf' }, big)).status).toBe(413);
    const form = multipartBody([{ name: 'file', filename: 'b.pdf', type: 'application/pdf', bytes: big }]);
    expect((await call('POST', contentUrl, { 'content-type': form.contentType }, form.bytes)).status).toBe(413);
    expect(
      (await call('POST', `${service.baseUrl}files/unknown`, { 'content-type': 'application/pdf' }, PDF_BYTES)).status,
    ).toBe(404);
    expect((await call('GET', contentUrl)).status).toBe(405);
  });
});

describe('authentication', () => {
  it('with --token, refuses a request without it (401) and serves one with it', async () => {
    const guarded = await startReferenceService({ token: 's3cret-token' });
    try {
      expect((await send({ method: 'POST', url: `${guarded.baseUrl}orders` })).response?.status).toBe(401);
      const ok = await send({
        method: 'POST',
        url: `${guarded.baseUrl}orders`,
        headers: { authorization: 'Bearer s3cret-token' },
      });
      expect(ok.response?.status).toBe(201);
    } finally {
      await guarded.close();
    }
  });

  it('issues tokens by OAuth client credentials and refuses a wrong secret', async () => {
    const guarded = await startReferenceService({ clientId: 'client', clientSecret: 'secret' });
    try {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const refused = await send({
        method: 'POST',
        url: `${guarded.baseUrl}oauth`,
        headers: form,
        body: 'grant_type=client_credentials&client_id=client&client_secret=nope',
      });
      expect(refused.response?.status).toBe(401);
      const granted = await send({
        method: 'POST',
        url: `${guarded.baseUrl}oauth`,
        headers: form,
        body: 'grant_type=client_credentials&client_id=client&client_secret=secret',
      });
      const token = JSON.parse(granted.response?.body?.text ?? '{}');
      expect(token).toMatchObject({ token_type: 'bearer', expires_in: 14399 });
      const ok = await send({
        method: 'POST',
        url: `${guarded.baseUrl}orders`,
        headers: { authorization: `Bearer ${token.access_token}` },
      });
      expect(ok.response?.status).toBe(201);
      expect(
        (await send({ method: 'POST', url: `${guarded.baseUrl}orders`, headers: { authorization: 'Bearer forged' } }))
          .response?.status,
      ).toBe(401);
    } finally {
      await guarded.close();
    }
  });
});
