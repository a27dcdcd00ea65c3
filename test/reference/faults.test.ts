import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/findings/usage-error.js';
import { send } from '../../src/http/send.js';
import { parseFault } from '../../src/reference/faults.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { checkoutRequestJson } from '../helpers/exchanges.js';

// Each fault a client team can start the reference service with, seen happening: every test here
// fails when its fault does not happen (and the calls beside it are answered as usual).

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

let service: ReferenceService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function serveWith(...faults: string[]): Promise<ReferenceService> {
  service = await startReferenceService({ faults: faults.map(parseFault) });
  return service;
}

async function call(method: string, url: string, headers: Record<string, string> = {}, body?: string) {
  const exchange = await send({ method, url, headers, body });
  return {
    status: exchange.response?.status,
    headers: exchange.response?.headers ?? {},
    text: exchange.response?.body?.text ?? '',
    durationMs: exchange.durationMs ?? 0,
  };
}

async function token(base: string): Promise<string> {
  const form = 'grant_type=client_credentials&client_id=shop&client_secret=s3cret';
  const answer = await call('POST', `${base}oauth`, { 'content-type': 'application/x-www-form-urlencoded' }, form);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text).access_token;
}

async function placeOrder(base: string, headers: Record<string, string> = {}) {
  const answer = await call('POST', `${base}orders`, headers);
  expect(answer.status).toBe(201);
  return JSON.parse(answer.text).checkout.setupUrl as string;
}

describe('serve --fault', () => {
  it('expire-tokens:N: a token works for N requests, then 401 invalid_token; a new token works again', async () => {
    const { baseUrl } = await serveWith('expire-tokens:2');
    expect((await call('POST', `${baseUrl}orders`)).status).toBe(401);
    const first = { authorization: `Bearer ${await token(baseUrl)}` };
    const checkoutUrl = await placeOrder(baseUrl, first);
    expect((await call('GET', checkoutUrl, first)).status).toBe(200);
    const expired = await call('GET', checkoutUrl, first);
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(JSON.parse(expired.text).message).toBe('the access token expired');
    const second = { authorization: `Bearer ${await token(baseUrl)}` };
    expect((await call('GET', checkoutUrl, second)).status).toBe(200);
  });

  it('401:any:1: the next call is refused 401, the one after it answered', async () => {
    const { baseUrl } = await serveWith('401:any:1');
    const refused = await call('POST', `${baseUrl}orders`);
    expect([refused.status, refused.headers['www-authenticate']]).toEqual([401, 'Bearer']);
    expect(JSON.parse(refused.text).hints[0]).toMatch(/fault 401:any:1/);
    expect((await call('POST', `${baseUrl}orders`)).status).toBe(201);
  });

  it('500:OPERATION: every call of that operation is answered 500, the others as usual', async () => {
    const { baseUrl } = await serveWith('500:get-checkout');
    const checkoutUrl = await placeOrder(baseUrl);
    expect((await call('POST', checkoutUrl, JSON_HEADERS, checkoutRequestJson())).status).toBe(201);
    for (const accept of ['application/json', 'application/xml', 'application/json']) {
      const broken = await call('GET', checkoutUrl, { accept });
      expect(broken.status).toBe(500);
      expect(broken.headers['content-type']).toMatch(accept);
    }
  });

  it('503:OPERATION:COUNT: the first COUNT calls get 503 with Retry-After, then the operation answers', async () => {
    const { baseUrl } = await serveWith('503:post-checkout:2');
    const checkoutUrl = await placeOrder(baseUrl);
    const statuses: (number | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await call('POST', checkoutUrl, JSON_HEADERS, checkoutRequestJson());
      statuses.push(answer.status);
      if (answer.status === 503) expect(answer.headers['retry-after']).toBe('1');
    }
    expect(statuses).toEqual([503, 503, 201]);
  });

  it('slow:OPERATION:MS: that operation answers, as usual, no sooner than MS later', async () => {
    const { baseUrl } = await serveWith('slow:get-checkout:300');
    const checkoutUrl = await placeOrder(baseUrl);
    const slow = await call('GET', checkoutUrl, { accept: 'application/json' });
    expect(slow.status).toBe(200);
    // A lower bound only: a timer never fires before its time (1 ms of rounding aside).
    expect(slow.durationMs).toBeGreaterThanOrEqual(299);
  });

  it('payment-fails: the pay button ends in Failed, and the page says it will', async () => {
    const { baseUrl } = await serveWith('payment-fails');
    const checkoutUrl = await placeOrder(baseUrl);
    const setUp = await call('POST', checkoutUrl, JSON_HEADERS, checkoutRequestJson());
    const paymentUrl = JSON.parse(setUp.text).paymentUrl as string;
    expect((await call('GET', paymentUrl)).text).toContain('paying ends in <strong>Failed</strong>');
    expect((await call('POST', paymentUrl.replace(/start$/, 'pay'))).status).toBe(303);
    expect(JSON.parse((await call('GET', checkoutUrl, { accept: 'application/json' })).text).status).toBe('Failed');
  });

  it('refuses a fault it does not know, or one given wrong, with a usage error that says what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['teapot', /^--fault teapot is not a known fault; known: expire-tokens:N, 401:OPERATION\[:COUNT\]/],
      ['500', /^--fault 500: expected 500:OPERATION\[:COUNT\]$/],
      ['500:put-checkout', /^--fault 500:put-checkout: name the operation, one of post-orders, .* or any$/],
      ['503:any:0', /^--fault 503:any:0: COUNT must be a whole number from 1 to/],
      ['slow:any:fast', /^--fault slow:any:fast: MS must be a whole number/],
      ['expire-tokens:-1', /^--fault expire-tokens:-1: N must be a whole number/],
      ['payment-fails:1', /^--fault payment-fails:1: payment-fails takes no value$/],
    ];
    for (const [given, message] of cases) {
      expect(() => parseFault(given)).toThrow(UsageError);
      expect(() => parseFault(given)).toThrow(message);
    }
  });
});
