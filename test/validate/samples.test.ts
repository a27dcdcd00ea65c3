import { describe, expect, it } from 'vitest';
import { validateExchange } from '../../src/validate/index.js';
import {
  CHECKOUT_URL,
  checkoutPost,
  PNG_BYTES,
  realSample,
  rulesOf,
  textBody,
  uploadPost,
  XML_TYPE,
} from '../helpers/exchanges.js';

describe('the real service published samples', () => {
  it('the JSON checkout request sample, answered as the real service does, breaks no rule', () => {
    const violations = validateExchange(checkoutPost('json'));
    // The email the real service adds is listed, never failed.
    expect(rulesOf(violations)).toEqual(['checkout.response.extra']);
    expect(violations[0]?.severity).toBe('observe');
    expect(violations[0]?.message).toContain('/billing/address/email');
  });

  it('the XML checkout request sample, answered in XmlSerializer style, breaks no rule', () => {
    expect(validateExchange(checkoutPost('xml'))).toEqual([]);
  });

  it('the JSON and XML upload result samples are clean for a PNG upload', () => {
    expect(validateExchange(uploadPost('image/png', PNG_BYTES, realSample('upload-result.json')))).toEqual([]);
    expect(
      validateExchange(uploadPost('image/png', PNG_BYTES, realSample('upload-result.xml'), 200, XML_TYPE)),
    ).toEqual([]);
  });

  it('a request with no response (connection refused) is judged on its request side only', () => {
    const exchange = checkoutPost('json');
    delete exchange.response;
    expect(validateExchange({ ...exchange, error: 'ECONNREFUSED' })).toEqual([]);
    expect(
      validateExchange({
        request: {
          method: 'POST',
          url: CHECKOUT_URL,
          headers: { 'content-type': XML_TYPE },
          body: textBody('<Checkout>'),
        },
      }).map((v) => [v.rule, v.side]),
    ).toEqual([['format.well-formed', 'request']]);
  });
});
