import { describe, expect, it } from 'vitest';
import type { RecordedExchange } from '../../proxy/recorder.js';
import { REDACTED, sessionRedaction } from '../../src/redaction/index.js';
import { checkoutPost, textBody } from '../helpers/exchanges.js';

// What the proxy writes of an exchange: every part of it that is text is redacted, and nothing
// that cannot be redacted is written as it came.

const S = 'Pw7-pl4nted-Xy3';
const session = sessionRedaction({ headers: [], members: [] });
/** As the proxy does: findings redacted as they are judged, the exchange as it is written. */
const redact = (exchange: RecordedExchange) => {
  const violations = session.findings(exchange.violations);
  return session.exchange(violations === exchange.violations ? exchange : { ...exchange, violations });
};
const written = (exchange: RecordedExchange) => JSON.stringify(redact(exchange));

function exchange(
  parts: Partial<RecordedExchange['request']> = {},
  response: Partial<RecordedExchange['response']> = {},
) {
  return {
    request: { method: 'POST', url: 'https://api.test/v2/oauth', headers: {}, ...parts },
    response: { status: 200, headers: {}, ...response },
    violations: [],
  } as RecordedExchange;
}

describe('the proxy redaction', () => {
  it('masks a JSON body too deep to walk and one with trailing data', () => {
    const depth = 100_000;
    const deep = `{"a":${'['.repeat(depth)}{"client_secret":"${S}"}${']'.repeat(depth)}}`;
    expect(written(exchange({ body: textBody(deep) }))).not.toContain(S);
    const trailing = `{"access_token":"${S}","token_type":"Bearer"}\n{"more":1}`;
    expect(
      written(exchange({}, { body: textBody(trailing), headers: { 'content-type': 'application/json' } })),
    ).not.toContain(S);
  });

  it('hides secret headers in every spelling, and secrets in URLs that header values hold', () => {
    const recorded = redact(
      exchange(
        {
          headers: {
            'x-auth-token': S,
            'api-key': S,
            'x-access-token': S,
            'x-amz-security-token': S,
            referer: `https://app.test/cb#access_token=${S}&state=1`,
          },
        },
        { status: 302, headers: { location: `https://app.test/cb?code=${S}&state=1` } },
      ),
    );
    expect(JSON.stringify(recorded)).not.toContain(S);
    expect(recorded.request.headers.referer).toBe(`https://app.test/cb#access_token=${REDACTED}&state=1`);
    expect(recorded.response?.headers.location).toBe(`https://app.test/cb?code=${REDACTED}&state=1`);
  });

  it('masks XML elements, bodies held as bytes, the first bytes of large bodies, errors and messages', () => {
    const xml = `<Token><AccessToken>${S}</AccessToken><ClientSecret>${S}</ClientSecret></Token>`;
    const json = Buffer.from(`{"client_secret":"${S}","padding":"…"}`);
    const recorded = exchange(
      {
        body: {
          size: 10_000_000,
          sha256: 'ab',
          headBase64: json.subarray(0, 40).toString('base64'),
          skipped: 'too large',
        },
      },
      { body: { size: json.length, base64: json.toString('base64') } },
    );
    recorded.error = `upstream said: {"password":"${S}"}`;
    recorded.violations = [
      {
        rule: 'format.json',
        severity: 'must',
        side: 'response',
        message: `invalid JSON: "{"api_key":"${S}"… is not valid`,
      },
    ];
    const out = redact(recorded);
    expect(JSON.stringify(out)).not.toContain(S);
    const bytes = (base64: string | undefined) => Buffer.from(base64 ?? '', 'base64').toString('latin1');
    expect(bytes(out.request.body?.headBase64)).toMatch(/^\{"client_secret":"\[Filtered/);
    expect(bytes(out.response?.body?.base64)).toContain(`"client_secret":"${REDACTED}"`);
    expect(written(exchange({ body: textBody(xml) }))).not.toContain(S);
  });

  it('withholds a body in UTF-16, whose names it cannot read where they stand, when it holds a secret', () => {
    const utf16 = Buffer.from(`{"access_token":"${S}"}`, 'utf16le');
    const recorded = redact(
      exchange({}, { body: { text: utf16.toString('utf8'), size: utf16.length, base64: utf16.toString('base64') } }),
    );
    expect(recorded.response?.body?.text).toBe(REDACTED);
    expect(Buffer.from(recorded.response?.body?.base64 ?? '', 'base64').toString('latin1')).toBe(REDACTED);
    const plain = Buffer.from('{"city":"Oslo"}', 'utf16le').toString('utf8');
    const clean = exchange({}, { body: textBody(plain) });
    expect(redact(clean)).toBe(clean);
  });

  it('keeps recorded URLs URLs: a host with a secret word keeps its port and path', () => {
    const url = `https://secrets-manager.example.test:8443/v2/checkout/abc?token=${S}`;
    const recorded = redact(exchange({ url }));
    expect(recorded.request.url).toBe(`https://secrets-manager.example.test:8443/v2/checkout/abc?token=${REDACTED}`);
    // A host that looks like a JWT is masked, which leaves no URL: a placeholder one is written.
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
    const odd = redact(exchange({ url: `https://${jwt}/v2/x?token=${S}` }));
    expect(odd.request.url).toBe(`https://redacted.invalid/${REDACTED}`);
  });

  it('returns an exchange with nothing secret as it is', () => {
    const plain = { ...checkoutPost('xml'), violations: [] };
    expect(redact(plain)).toBe(plain);
    const json = { ...checkoutPost('json'), violations: [] };
    expect(redact(json)).toBe(json);
  });
});
