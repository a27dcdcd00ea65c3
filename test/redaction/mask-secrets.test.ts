import { describe, expect, it } from 'vitest';
import { REDACTED, redactText } from '../../src/redaction/index.js';
import {
  checkoutRequestJson,
  checkoutRequestXml,
  checkoutResponseJson,
  checkoutResponseXml,
} from '../helpers/exchanges.js';

// Secrets in text as it stands, whatever it is: URLs, forms, JSON, XML, header lines, messages.

const S = 'Zq9-s3cr3t-Vk2';

describe('masking secrets in text', () => {
  it('masks query, form and fragment parameters in every spelling of their names', () => {
    for (const name of [
      'access_token',
      'ACCESS-TOKEN',
      'accessToken',
      'access%5Ftoken',
      'access%255Ftoken',
      'refresh_token',
      'client_secret',
      'password',
      'apikey',
      'api_key',
      'code',
      'sig',
      'X-Amz-Signature',
      'user[password]',
    ]) {
      for (const text of [
        `https://api.test/cb?a=1&${name}=${S}&b=2`,
        `https://app.test/cb#${name}=${S}&state=x`,
        `grant_type=authorization_code&${name}=${S}`,
        `<ReturnUrl>https://shop.test/r?a=1&amp;${name}=${S}</ReturnUrl>`,
        `https://idp.test/auth?redirect_uri=${encodeURIComponent(`https://app.test/cb?a=1&${name}=${S}`)}&x=1`,
        `r=${encodeURIComponent(encodeURIComponent(`https://app.test/cb?${name}=${S}`))}`,
      ]) {
        const masked = redactText(text);
        expect(masked, text).not.toContain(S);
        expect(masked, text).toContain(REDACTED);
      }
    }
  });

  it('masks parameters whose name or "=" is spelt as a JSON escape, an XML character reference or with a form\'s "+"', () => {
    for (const text of [
      `<ReturnUrl>https://shop.test/r?&#116;oken=${S}</ReturnUrl>`,
      `<ReturnUrl>https://shop.test/r?&#x74;oken=${S}</ReturnUrl>`,
      `<ReturnUrl>https://shop.test/r?a=1&amp;access&#95;token=${S}&amp;b=2</ReturnUrl>`,
      `<ReturnUrl>https://shop.test/r?token&#61;${S}</ReturnUrl>`,
      `<ReturnUrl>https://shop.test/r?token&#x3D;${S}&amp;b=2</ReturnUrl>`,
      `{"returnUrl":"https://shop.test/r?token\\u003d${S}"}`,
      `{"returnUrl":"https://shop.test/r?token\\u003D${S}&b=2"}`,
      `https://shop.test/r?token+=${S}`,
      `grant_type=x&client+secret=${S}`,
    ]) {
      const masked = redactText(text);
      expect(masked, text).not.toContain(S);
      expect(masked, text).toContain(REDACTED);
    }
    // A character reference within a value is part of it: none of the value is left.
    expect(redactText(`<R>https://shop.test/r?token=Zq9&#45;s3cr3t&amp;b=2</R>`)).toBe(
      `<R>https://shop.test/r?token=${REDACTED}&amp;b=2</R>`,
    );
    // Text that only looks alike keeps its characters.
    for (const text of ['https://shop.test/r?a=1&b=2&c=3', '<R>AT&amp;T &#169; 2024 = ok</R>', 'a+b=c'])
      expect(redactText(text)).toBe(text);
  });

  it('masks JSON members whatever their spelling, value or place', () => {
    for (const text of [
      `{"client_secret":"${S}"}`,
      `{"clientSecret": "${S}"}`,
      `{"client\\u005fsecret":"${S}"}`,
      `{"\\u0061ccess_token":"${S}"}`,
      `{"token":"${S}"}`,
      `{"apiKey":"${S}"}`,
      `{"a":{"b":[{"accessToken":"${S}"}]}}`,
      `{"refresh_token":["${S}"]}`,
      `{"credentials":{"user":"u","x":"${S}"}}`,
      `{"password":"a\\"${S}"}`,
      `{"pin":${S.length}${S.replace(/\D/g, '')}}`,
      `{'password': '${S}'}`,
    ]) {
      const masked = redactText(text);
      expect(masked, text).not.toContain(S);
      expect(masked, text).not.toContain(S.replace(/\D/g, ''));
    }
  });

  it('masks a body too deep to walk, and one with trailing data', () => {
    const depth = 200_000;
    const deep = `${'['.repeat(depth)}{"client_secret":"${S}"}${']'.repeat(depth)}`;
    expect(redactText(deep)).not.toContain(S);
    expect(redactText(`{"access_token":"${S}"} and then some`)).toBe(`{"access_token":"${REDACTED}"} and then some`);
    expect(redactText(`{"access_token":"${S}`)).toBe(`{"access_token":"${REDACTED}`);
  });

  it('keeps JSON valid: a masked value stays a string, a masked object becomes one', () => {
    const text = JSON.stringify({ a: 1, token: 12345, secret: { b: [1, 2] }, note: 'say "token": x' });
    const masked = redactText(text);
    expect(JSON.parse(masked)).toEqual({ a: 1, token: REDACTED, secret: REDACTED, note: `say "token": ${REDACTED}` });
  });

  it('masks XML elements with secret names, prefixed, nested, with CDATA', () => {
    for (const text of [
      `<Token><AccessToken>${S}</AccessToken></Token>`,
      `<a:ClientSecret xmlns:a="urn:x">${S}</a:ClientSecret>`,
      `<R><ClientSecret><![CDATA[x</ClientSecret>${S}]]></ClientSecret></R>`,
      `<R><Password><Password>a</Password>${S}</Password></R>`,
      `<R><ApiKey>${S}`,
      `<Auth token="${S}"/>`,
    ]) {
      expect(redactText(text), text).not.toContain(S);
    }
    expect(redactText(`<R><AccessToken>${S}</AccessToken><City>Oslo</City></R>`)).toBe(
      `<R><AccessToken>${REDACTED}</AccessToken><City>Oslo</City></R>`,
    );
  });

  it('masks header lines, bearer tokens, JWTs and the user and password of URLs', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    for (const text of [
      `X-Auth-Token: ${S}`,
      `Authorization: Basic ${S}`,
      `failed with Bearer ${S} at 12:00`,
      `{"assertion":"${jwt}"}`,
      `https://user:${S}@api.test/v2/`,
      `https://${S}@api.test/v2/`,
      `{"url":"https:\\/\\/u:${S}@api.test\\/v2\\/"}`,
    ]) {
      const masked = redactText(text);
      expect(masked, text).not.toContain(S);
      expect(masked, text).not.toContain(jwt);
    }
  });

  it('reads every character a bounded number of times, whatever the text (a body cannot stall the proxy)', () => {
    // Each of these took time growing with the square of its length: a megabyte held the proxy
    // for hours. Read linearly, they take milliseconds.
    const n = 300_000;
    for (const text of [
      `"${'\\":'.repeat(n)}`,
      `${'a'.repeat(n)}@`,
      `${'eyJ'.repeat(n)}`,
      `${'<Token>'.repeat(n)}`,
      `${'"token":'.repeat(n)}`,
      `${'a '.repeat(n)}:`,
      `${'a%3D'.repeat(n)}`,
    ])
      expect(typeof redactText(text)).toBe('string');
  });

  it('leaves the interface bodies and plain texts as they are, the same string', () => {
    for (const text of [
      checkoutRequestJson(),
      checkoutRequestXml(),
      checkoutResponseJson(),
      checkoutResponseXml(),
      '{"error":{"code":"InvalidReturnUrl","message":"too long"}}',
      'https://shop.test/return?order=1&page=2#top',
      'Mon, 23 Nov 2026 13:33:01 GMT',
      'multipart/form-data; boundary=----x',
      'billing@example.test',
      '',
    ])
      expect(redactText(text)).toBe(text);
  });
});
