import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { redirectLocation } from '../../src/reference/payment-flow.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { checkoutRequestJson, checkoutRequestXml } from '../helpers/exchanges.js';

// The payment step without a browser: the page's forms are plain POSTs, so a test's HTTP client
// (or curl) completes a payment, and GET checkout tells the outcome in JSON and XML.

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const RETURN_URL = 'https://shop.example.test/thanks?order=1&note=a%20b&name=é#done';

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

async function call(method: string, url: string, headers: Record<string, string> = {}, body?: string) {
  const exchange = await send({ method, url, headers, body });
  return {
    status: exchange.response?.status,
    headers: exchange.response?.headers ?? {},
    text: exchange.response?.body?.text ?? '',
  };
}

/** Places an order and sets its checkout up; returns the checkout URL and the PaymentUrl it answered. */
/** `null`: set up without a ReturnUrl. */
async function setUp(returnUrl: string | null = RETURN_URL) {
  const order = JSON.parse((await call('POST', `${service.baseUrl}orders`)).text);
  const checkoutUrl = order.checkout.setupUrl as string;
  const request = { ...JSON.parse(checkoutRequestJson()), returnUrl: returnUrl ?? undefined };
  const answer = await call('POST', checkoutUrl, JSON_HEADERS, JSON.stringify(request));
  expect(answer.status).toBe(201);
  const paymentUrl = JSON.parse(answer.text).paymentUrl as string;
  return { order, checkoutUrl, paymentUrl, outcome: (action: string) => paymentUrl.replace(/start$/, action) };
}

async function statusOf(checkoutUrl: string) {
  const json = JSON.parse((await call('GET', checkoutUrl, { accept: 'application/json' })).text).status;
  const xml = /<Status>([^<]*)<\/Status>/.exec(
    (await call('GET', checkoutUrl, { accept: 'application/xml' })).text,
  )?.[1];
  return { json, xml };
}

describe('the payment screen', () => {
  it('opens at PaymentUrl as an HTML page with the amount, the order and a form per outcome', async () => {
    const { order, paymentUrl } = await setUp();
    expect(paymentUrl).toMatch(new RegExp(`^${service.baseUrl}payments/\\w+/start$`));
    const page = await call('GET', paymentUrl);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain(`<dd id="order">${order.id}</dd>`);
    expect(page.text).toContain('<dd id="amount">22.49</dd>');
    // The ReturnUrl is shown as text, never as markup.
    expect(page.text).toContain('https://shop.example.test/thanks?order=1&amp;note=a%20b&amp;name=é#done');
    for (const action of ['pay', 'cancel', 'fail'])
      expect(page.text).toContain(`<form method="post" action="${action}">`);
    expect(page.text).not.toMatch(/<script/i);
  });

  for (const [action, status] of [
    ['pay', 'Successful'],
    ['cancel', 'Cancelled'],
    ['fail', 'Failed'],
  ] as const) {
    it(`${action}: moves Status from Open to ${status} in JSON and XML and redirects 303 to the ReturnUrl`, async () => {
      const { checkoutUrl, outcome } = await setUp();
      expect(await statusOf(checkoutUrl)).toEqual({ json: 'Open', xml: 'Open' });
      const answer = await call('POST', outcome(action), { 'content-type': 'application/x-www-form-urlencoded' }, '');
      expect(answer.status).toBe(303);
      expect(answer.headers.location).toBe('https://shop.example.test/thanks?order=1&note=a%20b&name=%C3%A9#done');
      expect(await statusOf(checkoutUrl)).toEqual({ json: status, xml: status });
    });
  }

  it('shows what the shop sent as text: markup in a ReturnUrl never becomes part of the page', async () => {
    const { paymentUrl } = await setUp('https://shop.example.test/?q="><script>alert(1)</script>');
    const page = await call('GET', paymentUrl);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toContain('?q=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
  });

  it('redirects to the ReturnUrl an XML set-up sent, its escapes read as the characters they stand for', async () => {
    const order = JSON.parse((await call('POST', `${service.baseUrl}orders`)).text);
    const xml = checkoutRequestXml().replace(
      /<ReturnUrl>[^<]*</,
      '<ReturnUrl>https://shop.example.test/back?a=1&amp;b=%20&#233;#top<',
    );
    const headers = { 'content-type': 'application/xml', accept: 'application/xml' };
    const setUp = await call('POST', order.checkout.setupUrl, headers, xml);
    const paymentUrl = /<PaymentUrl>([^<]*)</.exec(setUp.text)?.[1] as string;
    const answer = await call('POST', paymentUrl.replace(/start$/, 'pay'));
    expect(answer.headers.location).toBe('https://shop.example.test/back?a=1&b=%20%C3%A9#top');
  });

  it('ends on a page saying so when the checkout was set up without a ReturnUrl', async () => {
    const { checkoutUrl, outcome } = await setUp(null);
    const answer = await call('POST', outcome('pay'));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('<strong id="status">Successful</strong>');
    expect(answer.text).toContain('set up without a ReturnUrl');
    expect((await statusOf(checkoutUrl)).json).toBe('Successful');
  });

  it('answers a payment URL used a second time with a clear page that changes nothing', async () => {
    const { checkoutUrl, paymentUrl, outcome } = await setUp();
    expect((await call('POST', outcome('cancel'))).status).toBe(303);
    for (const again of [await call('GET', paymentUrl), await call('POST', outcome('pay'))]) {
      expect(again.status).toBe(409);
      expect(again.text).toContain('This payment is over');
      expect(again.text).toContain('<strong id="status">Cancelled</strong>');
    }
    expect((await statusOf(checkoutUrl)).json).toBe('Cancelled');
  });

  it('answers the payment URL of an earlier set-up with a clear page; the new one works', async () => {
    const { checkoutUrl, paymentUrl, outcome } = await setUp();
    const again = await call('POST', checkoutUrl, JSON_HEADERS, checkoutRequestJson());
    const fresh = JSON.parse(again.text).paymentUrl as string;
    expect(fresh).not.toBe(paymentUrl);
    for (const old of [await call('GET', paymentUrl), await call('POST', outcome('pay'))]) {
      expect(old.status).toBe(410);
      expect(old.text).toContain('This payment URL is no longer valid');
    }
    expect((await statusOf(checkoutUrl)).json).toBe('Open');
    expect((await call('GET', fresh)).status).toBe(200);
  });

  it('refuses with 403 a set-up of a checkout whose payment succeeded, and lets a failed one be set up again', async () => {
    const paid = await setUp();
    await call('POST', paid.outcome('pay'));
    const refused = await call('POST', paid.checkoutUrl, JSON_HEADERS, checkoutRequestJson());
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).message).toMatch(/succeeded/);
    const failed = await setUp();
    await call('POST', failed.outcome('fail'));
    const retried = await call('POST', failed.checkoutUrl, JSON_HEADERS, checkoutRequestJson());
    expect(retried.status).toBe(201);
    expect(JSON.parse(retried.text).status).toBe('Open');
  });

  it('answers unknown payments, unknown actions and wrong methods with pages, never a 5xx', async () => {
    const { paymentUrl, outcome } = await setUp();
    expect((await call('GET', `${service.baseUrl}payments/nope/start`)).status).toBe(404);
    for (const action of ['refund', 'toString', 'constructor', '__proto__'])
      expect((await call('POST', outcome(action))).status).toBe(404);
    const wrong = await call('GET', outcome('pay'));
    expect([wrong.status, wrong.headers.allow]).toEqual([405, 'POST']);
    expect((await call('POST', paymentUrl)).status).toBe(405);
    const order = JSON.parse((await call('POST', `${service.baseUrl}orders`)).text);
    const notSetUp = JSON.parse((await call('GET', order.checkout.setupUrl)).text).paymentUrl;
    const early = await call('GET', notSetUp);
    expect(early.status).toBe(409);
    expect(early.text).toContain('not set up');
  });
});

describe('the redirect to the ReturnUrl', () => {
  it('keeps every ASCII character as sent and percent-encodes only what a header cannot carry', () => {
    expect(redirectLocation('https://s.test/a?x=1&y=%20z#f')).toBe('https://s.test/a?x=1&y=%20z#f');
    expect(redirectLocation('https://s.test/é ü?q=€')).toBe('https://s.test/%C3%A9%20%C3%BC?q=%E2%82%AC');
    expect(redirectLocation('https://s.test/😀')).toBe('https://s.test/%F0%9F%98%80');
  });

  it('sends the browser nowhere when the ReturnUrl is not an absolute http(s) URL', () => {
    for (const url of ['abcde', '/relative/path', 'javascript:alert(1)', 'https://', 'ftp://s.test/x'])
      expect(redirectLocation(url)).toBeUndefined();
  });
});
