import { describe, expect, it } from 'vitest';
import { summariseExchange } from '../../src/http/exchange-summary.js';
import { checkoutPost, checkoutResponseJson, checkoutResponseXml } from '../helpers/exchanges.js';

describe('exchange summary of a finding', () => {
  it('carries a curl command with credentials and secrets left to variables', () => {
    const exchange = checkoutPost('json');
    exchange.request.headers.authorization = 'Bearer tok-secret-1';
    exchange.request.url += '?note=tok-secret-1';
    const summary = summariseExchange(exchange, ['tok-secret-1'], []);
    expect(summary.curl).toMatch(/^printf .* \| curl .*-H 'authorization: Bearer '"\$TOKEN"/);
    expect(summary.curl).toContain(`?note='"$SECRET"`);
    expect(summary.curl).not.toContain('tok-secret-1');
    expect(summary.excerpt).toBeUndefined();
  });

  it('shows the answer around the member a violation names, in either format', () => {
    const json = checkoutPost('json', undefined, checkoutResponseJson().replace('"Open"', '"Pending"'));
    const jsonSummary = summariseExchange(json, [], [], { side: 'response', path: '/status' });
    expect(jsonSummary.excerpt?.split('\n')).toContain('  "status": "Pending",');
    const xml = checkoutPost('xml', undefined, checkoutResponseXml().replace('<Status>Open', '<Status>Pending'));
    const xmlSummary = summariseExchange(xml, [], [], { side: 'response', path: '/Status' });
    expect(xmlSummary.excerpt?.split('\n').map((line) => line.trim())).toContain('<Status>Pending</Status>');
  });

  it('shows the request around the member when the violation is the request’s, secrets scrubbed', () => {
    const exchange = checkoutPost('json');
    const sent = JSON.parse(exchange.request.body?.text ?? '{}');
    const secret = String(sent.billing.address.name);
    const summary = summariseExchange(exchange, [secret], [], { side: 'request', path: '/returnUrl' });
    expect(summary.excerpt).toContain('"returnUrl"');
    expect(summary.excerpt).not.toContain(secret);
  });

  it('has no excerpt without a path, or without a body to show', () => {
    const exchange = checkoutPost('json');
    expect(summariseExchange(exchange, [], [], { side: 'response' }).excerpt).toBeUndefined();
    delete exchange.response;
    expect(summariseExchange(exchange, [], [], { side: 'response', path: '/status' }).excerpt).toBeUndefined();
  });
});

describe('the curl command of a summary', () => {
  it('keeps the Authorization scheme and leaves the credential to $TOKEN', () => {
    const summary = summariseExchange(
      {
        request: {
          method: 'GET',
          url: 'http://s.test/v2/checkout/c',
          headers: { authorization: 'Bearer tok-planted-77', accept: 'application/json' },
        },
      },
      ['tok-planted-77'],
      ['authorization'],
    );
    expect(summary.curl).toContain(`-H 'authorization: Bearer '"$TOKEN"`);
    expect(JSON.stringify(summary)).not.toContain('tok-planted-77');
  });
});
