import { describe, expect, it } from 'vitest';
import { exchangeRedactor, findingRedactor, redactHeaders, redactText } from '../../src/redaction/index.js';
import { checkoutRequestJson, checkoutResponseJson, checkoutResponseXml } from '../helpers/exchanges.js';

// Secrets a name=value reading misses, found by the shape around them: PEM private keys, Basic
// credentials in any field, multipart fields, name/value data, HTML inputs, YAML values on the
// next line, tokens in URL paths; names a first list missed; and findings that quote a value of
// a name given with --redact.

const S = 'Zq9-s3cr3t-Vk2';
const masked = (text: string) => {
  const out = redactText(text);
  expect(out, text).not.toContain(S);
  return out;
};

describe('secrets found by their shape', () => {
  it('masks PEM private keys wherever they are', () => {
    const pem = `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${S}IBAAKCAQEA\n-----END RSA PRIVATE KEY-----`;
    expect(masked(pem)).toBe('-----BEGIN RSA PRIVATE KEY-----[Filtered]-----END RSA PRIVATE KEY-----');
    masked(JSON.stringify({ certificate: pem }));
    masked(`<Cert>${pem}</Cert>`);
    // Cut off before its end: masked to the end of the text.
    masked(`-----BEGIN PRIVATE KEY-----\nMIIE${S}`);
  });

  it('masks HTTP Basic credentials in a field of any name, but not the word "basic"', () => {
    const basic = `Basic ${btoa(`user:${S}`)}`;
    expect(masked(JSON.stringify({ upstreamHeader: basic }))).toContain('Basic [Filtered]');
    expect(redactHeaders({ 'x-forwarded-credentials': basic, 'x-upstream': basic })['x-upstream']).toBe(
      'Basic [Filtered]',
    );
    const plan = 'the Basic plan includes basic support';
    expect(redactText(plan)).toBe(plan);
  });

  it('masks names a first list missed: PKCE verifiers, SAML, one-time codes, X-Auth, X-Session, Authentication-Info', () => {
    for (const name of ['code_verifier', 'codeVerifier', 'SAMLResponse', 'auth_code', 'otp_code', 'totp'])
      for (const text of [`${name}=${S}`, JSON.stringify({ [name]: S }), `<${name}>${S}</${name}>`]) masked(text);
    expect(redactHeaders({ 'x-auth': S, 'x-session': S, 'authentication-info': `nextnonce="${S}", qop=auth` })).toEqual(
      { 'x-auth': '[Filtered]', 'x-session': '[Filtered]', 'authentication-info': '[Filtered]' },
    );
    masked(`WWW-Something: nextnonce="${S}"`);
  });

  it('masks a multipart field of a secret name, up to the next boundary', () => {
    const body = [
      '--b0undary',
      'Content-Disposition: form-data; name="client_id"',
      '',
      'acme',
      '--b0undary',
      'Content-Disposition: form-data; name="client_secret"',
      '',
      S,
      '--b0undary--',
      '',
    ].join('\r\n');
    const out = masked(body);
    expect(out).toContain('\r\nacme\r\n');
    expect(out).toContain('name="client_secret"\r\n\r\n[Filtered]\r\n--b0undary--');
  });

  it('masks secrets held as name/value data, in JSON and in XML', () => {
    const headers = [
      { name: 'Content-Type', value: 'application/json' },
      { name: 'X-Auth-Token', value: S },
      { value: S, name: 'Authorization' },
    ];
    const out = masked(JSON.stringify({ headers }));
    expect(out).toContain('"value":"application/json"');
    masked(JSON.stringify({ settings: [{ key: 'apiKey', value: S }] }));
    masked(`<Header><Name>X-Api-Key</Name><Value>${S}</Value></Header>`);
    expect(redactText('<Header><Name>Accept</Name><Value>text/xml</Value></Header>')).toContain('text/xml');
  });

  it('masks HTML form inputs and meta tags of a secret name', () => {
    const html = `<form><input type="hidden" name="csrf_token" value="${S}"><input name="city" value="Oslo"></form><meta name="csrf-token" content="${S}">`;
    const out = masked(html);
    expect(out).toContain('value="Oslo"');
    masked(`<input value='${S}' type=hidden name=authenticity_token>`);
  });

  it('masks YAML values on the lines after their name', () => {
    const out = masked(`client:\n  id: acme\n  client_secret:\n    ${S}\n  region: eu\n`);
    expect(out).toContain('region: eu');
    expect(out).toContain('id: acme');
    masked(`password: |\n  ${S}\n  more-${S}\nnext: 1\n`);
    masked(`token: >-\n  ${S}\n`);
  });

  it('masks tokens in URL paths: the segment after a segment of a secret name', () => {
    expect(masked(`https://pay.test/pay/session/${S}/confirm?x=1`)).toBe(
      'https://pay.test/pay/session/[Filtered]/confirm?x=1',
    );
    masked(JSON.stringify({ paymentUrl: `https://pay.test/reset/token/${S}` }).replaceAll('/', '\\/'));
    masked(`<PaymentUrl>/pay/session/${S}</PaymentUrl>`);
    // The interface's own paths and closing tags are no tokens.
    const url = 'https://api.test/v2/checkout/5L2zKMnOqp6A15GoP909Z';
    expect(redactText(url)).toBe(url);
    expect(redactText('<a><token>x</token></a>')).toBe('<a><token>[Filtered]</token></a>');
  });

  it('reads path segments by their words: names of secrets, not ids that hold one by chance', () => {
    for (const name of ['token', 'reset-token', 'access_token', 'apiKey', 'sessionId', 'JWT', 'X-Amz-Security-Token'])
      expect(redactText(`https://pay.test/${name}/${S}`), name).toBe(`https://pay.test/${name}/[Filtered]`);
    // Random ids hold "jwt", "key" or "token" among their letters: what follows them is kept.
    for (const id of ['tSjWtWp65dixrh3v', 'aB3tokenq9', 'x7monkey2', 'Q1sidZ'])
      expect(redactText(`https://pay.test/v2/payments/${id}/start`), id).toBe(
        `https://pay.test/v2/payments/${id}/start`,
      );
  });

  it('leaves the interface documents alone', () => {
    for (const text of [checkoutRequestJson(), checkoutResponseJson(), checkoutResponseXml()])
      expect(redactText(text)).toBe(text);
  });
});

describe('findings quoting values of secret names', () => {
  it('quote no value of a member given with --redact, nor a parameter of one', () => {
    const redact = findingRedactor({ names: ['PaymentUrl', 't'] });
    const [payment, echo, other] = redact([
      {
        rule: 'checkout.payment-url',
        severity: 'must',
        side: 'response',
        message: `PaymentUrl "/pay/${S}" is not an absolute http(s) URL: it is not an absolute http(s) URL`,
        path: '/paymentUrl',
      },
      {
        rule: 'checkout.echo',
        severity: 'must',
        side: 'response',
        message: `/returnUrl: sent "https://shop.test/back?t=${S}", answered "https://shop.test/back" (the POST response must echo what was sent)`,
        path: '/returnUrl',
      },
      { rule: 'checkout.status.known', severity: 'should', side: 'response', message: 'Status "Odd" is not one of …' },
    ]);
    expect(payment?.message).toBe(
      'PaymentUrl "[Filtered]" is not an absolute http(s) URL: it is not an absolute http(s) URL',
    );
    expect(echo?.message).toContain('?t=[Filtered]');
    expect(other?.message).toBe('Status "Odd" is not one of …');
  });

  it('are redacted in recordings too, observations as well as violations', () => {
    const redact = exchangeRedactor({ names: ['PaymentUrl'] });
    const finding = {
      rule: 'checkout.payment-url' as const,
      severity: 'must' as const,
      side: 'response' as const,
      message: `PaymentUrl "/pay/${S}" is not …`,
      path: 'PaymentUrl',
    };
    const out = redact({
      request: { method: 'GET', url: 'https://api.test/v2/checkout/a', headers: {} },
      violations: [finding],
      observations: [{ ...finding, severity: 'observe' as const }],
    });
    expect(JSON.stringify(out)).not.toContain(S);
  });
});
