import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { startListeningCli } from '../helpers/cli.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// What a browser on another site can do with the reference service: end a customer's payment by a
// cross-site form post (refused), frame the payment page (forbidden), reach the service under a
// name that resolves to this machine (DNS rebinding: refused, as the proxy refuses it).

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService({ allowedHosts: [] });
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

async function paymentOutcome() {
  const order = JSON.parse((await call('POST', `${service.baseUrl}orders`)).text);
  const checkoutUrl = order.checkout.setupUrl as string;
  const request = { ...JSON.parse(checkoutRequestJson()), returnUrl: 'https://shop.example.test/back' };
  const answer = await call('POST', checkoutUrl, JSON_HEADERS, JSON.stringify(request));
  const paymentUrl = JSON.parse(answer.text).paymentUrl as string;
  const status = async () => JSON.parse((await call('GET', checkoutUrl, { accept: 'application/json' })).text).status;
  return { paymentUrl, pay: paymentUrl.replace(/start$/, 'pay'), status };
}

describe('the payment page and another site', () => {
  it('may not be framed', async () => {
    const { paymentUrl } = await paymentOutcome();
    const page = await call('GET', paymentUrl);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('refuses an outcome posted from another site, and takes one from its own page or a plain client', async () => {
    const own = new URL(service.baseUrl).host;
    const fromElsewhere: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example.test' },
      { origin: 'null' },
    ];
    for (const headers of fromElsewhere) {
      const { pay, status } = await paymentOutcome();
      const answer = await call('POST', pay, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(await status()).toBe('Open');
    }
    const fromItself: Record<string, string>[] = [{ 'sec-fetch-site': 'same-origin' }, { origin: `http://${own}` }, {}];
    for (const headers of fromItself) {
      const { pay, status } = await paymentOutcome();
      const answer = await call('POST', pay, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(303);
      expect(await status()).toBe('Successful');
    }
  });
});

describe('a foreign Host', () => {
  it('is refused without being echoed; IP addresses, localhost and the public URL host are answered', async () => {
    const refused = await call('POST', `${service.baseUrl}orders`, { host: 'rebound.attacker.example.test' });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain('attacker');
    const port = new URL(service.baseUrl).port;
    expect((await call('POST', `${service.baseUrl}orders`, { host: `localhost:${port}` })).status).toBe(201);

    const behind = await startReferenceService({ allowedHosts: [], publicUrl: 'https://sandbox.example.test/v2/' });
    try {
      expect((await call('POST', `${behind.baseUrl}orders`, { host: 'sandbox.example.test' })).status).toBe(201);
      expect((await call('POST', `${behind.baseUrl}orders`, { host: 'other.example.test' })).status).toBe(403);
    } finally {
      await behind.close();
    }
  });

  it('is refused by serve unless --allowed-host names it', async () => {
    const serve = await startListeningCli(['serve', '--allowed-host', 'devbox.example.test']);
    try {
      const orders = `${serve.url}orders`;
      expect(
        (await send({ method: 'POST', url: orders, headers: { host: 'evil.example.test' } })).response?.status,
      ).toBe(403);
      expect(
        (await send({ method: 'POST', url: orders, headers: { host: 'devbox.example.test' } })).response?.status,
      ).toBe(201);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
  });
});
