import { conformanceMatchers, Judge } from 'print-conformance/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';

// A client's own vitest file, as its README recipe has it: the package's matchers judge the
// exchanges the test makes with fetch, by the same core as the proxy.

expect.extend(conformanceMatchers);

let service: ReferenceService;
beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

const address = { name: 'Jan Jansen', line1: 'Straat 1', postCode: '1234 AB', city: 'Utrecht', country: 'NL' };

/** A fetch as a client makes it, with the Request kept for the matcher. */
async function send(url: string, init: RequestInit): Promise<{ request: Request; response: Response }> {
  const request = new Request(url, init);
  const response = await fetch(request.clone());
  return { request, response };
}

async function setupUrl(): Promise<string> {
  const order = (await (await fetch(`${service.baseUrl}orders`, { method: 'POST' })).json()) as {
    checkout: { setupUrl: string };
  };
  return order.checkout.setupUrl;
}

describe('toSpeakTheInterface', () => {
  it('passes a checkout set-up that keeps the rules', async () => {
    const exchange = await send(await setupUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ returnUrl: 'https://shop.example.com/done', billing: { address } }),
    });
    await expect(exchange).toSpeakTheInterface();
    // The test can still read the answer: the matcher read a clone.
    expect(exchange.response.status).toBe(201);
    expect(((await exchange.response.json()) as { status: string }).status).toBe('Open');
  });

  it('fails a bad one, naming the rule and the place', async () => {
    const exchange = await send(await setupUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ returnUrl: 'a://', billing: { address } }),
    });
    await expect(expect(exchange).toSpeakTheInterface()).rejects.toThrow(
      /checkout\.return-url\.length \(must, request at \/returnUrl\): ReturnUrl has 4 UTF-16 code units/,
    );
    await expect(exchange).not.toSpeakTheInterface();
  });

  it('judges within a session: a checkout URL built by hand breaks client.given-urls', async () => {
    const judge = new Judge();
    const placed = await send(`${service.baseUrl}orders`, { method: 'POST' });
    // The order is read for the URLs it gives, and judged by no rule.
    await expect(expect(placed).toSpeakTheInterface({ judge })).rejects.toThrow(/judged by no rule: an order answer/);
    const { id } = (await placed.response.json()) as { id: string };
    const built = await send(`${service.baseUrl}checkout/${id}`, { headers: { accept: 'application/json' } });
    await expect(expect(built).toSpeakTheInterface({ judge })).rejects.toThrow(/client\.given-urls/);
  });

  it('takes the recorded shape as well', async () => {
    const recorded = {
      request: {
        method: 'GET',
        url: `${service.baseUrl}checkout/abc`,
        headers: { accept: 'application/xml' },
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: { text: '{"status":"Open"}', size: 17 },
      },
    };
    await expect(expect(recorded).toSpeakTheInterface({ only: ['format.'] })).rejects.toThrow(/format\.xml/);
  });
});
