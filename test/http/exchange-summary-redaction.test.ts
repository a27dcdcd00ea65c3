import { describe, expect, it } from 'vitest';
import { summariseExchange } from '../../src/http/exchange-summary.js';
import { exchangeOfHarEntry } from '../../src/recording/har.js';

// Reports show exchanges recorded by anything (a browser's HAR holds every credential as it was
// sent): they are redacted as fully as the proxy redacts its own recordings.

const S = 'Rp5-h4r-s3cret-Lm8';

describe('summariseExchange', () => {
  it('redacts headers, URL and bodies of an exchange from a browser HAR', () => {
    const exchange = exchangeOfHarEntry({
      request: {
        method: 'POST',
        url: `https://api.test/v2/oauth?apikey=${S}`,
        headers: [
          { name: 'X-Auth-Token', value: S },
          { name: 'Referer', value: `https://shop.test/cb#access_token=${S}` },
        ],
        postData: { mimeType: 'application/x-www-form-urlencoded', text: `grant_type=x&client_secret=${S}` },
      },
      response: {
        status: 200,
        headers: [{ name: 'Content-Type', value: 'application/json' }],
        content: { mimeType: 'application/json', text: `{"access_token":"${S}","expires_in":3600}` },
      },
    });
    const summary = summariseExchange(exchange);
    expect(JSON.stringify(summary)).not.toContain(S);
    expect(summary.responseBody).toBe('{"access_token":"[Filtered]","expires_in":3600}');
    expect(summary.requestHeaders['x-auth-token']).toBe('[Filtered]');
  });

  it('still replaces the literal secrets and header names it is given', () => {
    const summary = summariseExchange(
      {
        request: { method: 'GET', url: 'https://api.test/v2/orders/1', headers: { 'x-tenant': 't1' } },
        response: { status: 401, headers: {}, body: { text: `token ${S} refused`, size: 1 } },
      },
      [S],
      ['x-tenant'],
    );
    expect(summary.requestHeaders['x-tenant']).toBe('[Filtered]');
    expect(summary.responseBody).toBe('token [Filtered] refused');
  });
});
