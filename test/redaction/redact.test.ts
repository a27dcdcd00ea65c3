import { describe, expect, it } from 'vitest';
import { REDACTED, redactHeaders, redactText } from '../../src/redaction/index.js';

describe('redactText', () => {
  it('replaces the values of secret query parameters, in any case, wherever the text holds them', () => {
    expect(redactText('https://api.test/v2/orders?access_token=abc.def&page=2')).toBe(
      `https://api.test/v2/orders?access_token=${REDACTED}&page=2`,
    );
    expect(redactText('/cb?x=1&TOKEN=s3cr3t#top')).toBe(`/cb?x=1&TOKEN=${REDACTED}#top`);
    expect(redactText('{"returnUrl":"https://shop.test/r?client_secret=xyz&Api_Key=k1"}')).toBe(
      `{"returnUrl":"https://shop.test/r?client_secret=${REDACTED}&Api_Key=${REDACTED}"}`,
    );
    expect(redactText('<ReturnUrl>https://shop.test/r?token=t0k</ReturnUrl>')).toBe(
      `<ReturnUrl>https://shop.test/r?token=${REDACTED}</ReturnUrl>`,
    );
    expect(redactText('<ReturnUrl>https://shop.test/r?a=1&amp;access_token=abc</ReturnUrl>')).toBe(
      `<ReturnUrl>https://shop.test/r?a=1&amp;access_token=${REDACTED}</ReturnUrl>`,
    );
    expect(redactText('grant_type=client_credentials&client_secret=a%20b')).toBe(
      `grant_type=client_credentials&client_secret=${REDACTED}`,
    );
  });

  it('leaves texts without them as they are, the same string', () => {
    for (const text of [
      '<Checkout xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><Tax xsi:nil="true" /></Checkout>',
      'https://shop.test/return?order=1&topic=1',
      'https://shop.test/return?token',
      '=token=',
      '',
    ])
      expect(redactText(text)).toBe(text);
  });

  it('errs on the side of hiding: a name that holds a secret word is secret', () => {
    expect(redactText('https://shop.test/return?order=1&mytoken=1')).toBe(
      `https://shop.test/return?order=1&mytoken=${REDACTED}`,
    );
  });

  it('replaces literal secrets it is given, of four characters or more', () => {
    expect(redactText('Bearer abcd1234 and abc', ['abcd1234', 'abc'])).toBe(`Bearer ${REDACTED} and abc`);
  });
});

describe('redactHeaders', () => {
  it('replaces credentials and named headers, and returns a clean record unchanged', () => {
    const clean = { accept: 'application/json' };
    expect(redactHeaders(clean)).toBe(clean);
    expect(redactHeaders({ Authorization: 'Bearer x', 'x-tenant': 't1', accept: 'a' }, ['X-Tenant'])).toEqual({
      Authorization: REDACTED,
      'x-tenant': REDACTED,
      accept: 'a',
    });
  });
});
