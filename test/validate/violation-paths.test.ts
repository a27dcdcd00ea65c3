import { describe, expect, it } from 'vitest';
import { CheckoutState, validateExchange } from '../../src/validate/index.js';
import { checkoutGet, checkoutPost, checkoutResponseJson, checkoutResponseXml } from '../helpers/exchanges.js';

// Violations about one member carry its path, so a report can show the body around it.

const pathsOf = (violations: { rule: string; path?: string }[]) =>
  Object.fromEntries(violations.filter((v) => v.rule !== 'checkout.response.extra').map((v) => [v.rule, v.path]));

describe('paths of checkout violations about one member', () => {
  it('names the status, payment URL, country and echoed member of a JSON answer', () => {
    const answer = checkoutResponseJson()
      .replace('"Open"', '"Pending"')
      .replace('"https://api.example.test/v2/payments/abc/start"', '"/payments/abc"')
      .replace('"NL"', '"nl"');
    expect(pathsOf(validateExchange(checkoutPost('json', undefined, answer)))).toEqual({
      'checkout.status.open': '/status',
      'checkout.status.known': '/status',
      'checkout.payment-url': '/paymentUrl',
      'checkout.country-code': '/billing/address/country',
      'checkout.echo': '/billing/address/country',
    });
  });

  it('names them by element path in XML, and in a GET that differs from its POST', () => {
    const state = new CheckoutState();
    validateExchange(checkoutPost('xml'), state);
    const answer = checkoutResponseXml().replace('<City>Groningen</City>', '<City>Delft</City>');
    expect(pathsOf(validateExchange(checkoutGet('xml', answer), state))).toEqual({
      'checkout.get.consistent': '/Billing/Address/City',
    });
  });
});
