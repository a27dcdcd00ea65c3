import { describe, expect, it } from 'vitest';
import { transportErrorText } from '../../src/http/transport-error.js';

// Failures without an answer, as Node and undici report them, told as what to change.

const url = 'https://test.example.com:8443/v2/orders';
const failure = (code: string, message = `boom ${code}`) => Object.assign(new Error(message), { code });

describe('transport errors in words', () => {
  it('names the fault and the fix, not the code', () => {
    const cases: [Error, string][] = [
      [
        failure('ERR_SSL_WRONG_VERSION_NUMBER', '80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:'),
        'test.example.com:8443 answered plain HTTP to a TLS handshake: use http:// instead of https://',
      ],
      [
        failure('SELF_SIGNED_CERT_IN_CHAIN'),
        'the TLS certificate of test.example.com:8443 is not trusted (SELF_SIGNED_CERT_IN_CHAIN); for a private CA start with NODE_EXTRA_CA_CERTS=ca.pem',
      ],
      [failure('ECONNREFUSED'), 'connection refused: nothing listens on test.example.com:8443'],
      [failure('ENOTFOUND'), 'no such host: test.example.com'],
      [failure('UND_ERR_HEADERS_TIMEOUT'), 'no answer within 2.5 s (--timeout)'],
      [failure('ERR_TLS_CERT_ALTNAME_INVALID'), 'the TLS certificate of test.example.com:8443 is for another name'],
    ];
    for (const [error, words] of cases) expect(transportErrorText(error, url, 2500)).toBe(words);
  });

  it('keeps the first line of anything else, with its code', () => {
    expect(transportErrorText(failure('EWHATEVER', 'odd\nsecond line'), url, 1000)).toBe('odd (EWHATEVER)');
    const wrapped = Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNRESET' } });
    expect(transportErrorText(wrapped, url, 1000)).toBe('test.example.com:8443 closed the connection before answering');
  });
});
