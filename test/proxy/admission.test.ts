import { describe, expect, it } from 'vitest';
import { admitRequest, disguisedPathPart, peekLimitOf, targetUrlOf } from '../../proxy/admission.js';
import type { MessageHead } from '../../proxy/http-parser.js';

// Admission decides from a request head alone: these run without a socket.

const target = new URL('http://127.0.0.1:9000/v2/');
const context = { target, targetBase: target.href, hostAllowed: (host: string | undefined) => host !== 'evil.test' };

function head(url: string, rawHeaders: string[] = ['Host', '127.0.0.1'], more: Partial<MessageHead> = {}): MessageHead {
  return {
    method: 'GET',
    url,
    version: '1.1',
    status: 0,
    statusText: '',
    rawHeaders,
    keepAlive: true,
    upgrade: false,
    framing: { kind: 'none' },
    ...more,
  };
}

describe('admission of a request head', () => {
  it('admits a plain path under the target base, with its URL on the target', () => {
    const admission = admitRequest(head('/checkout/abc?x=1'), context, undefined);
    expect(admission).toMatchObject({
      admitted: true,
      host: '127.0.0.1',
      href: 'http://127.0.0.1:9000/v2/checkout/abc?x=1',
      path: '/v2/checkout/abc?x=1',
    });
  });

  it('refuses upgrades: CONNECT with 405, any other with 501', () => {
    expect(admitRequest(head('/', undefined, { upgrade: true, method: 'CONNECT' }), context, undefined)).toMatchObject({
      admitted: false,
      status: 405,
    });
    expect(admitRequest(head('/', undefined, { upgrade: true }), context, undefined)).toMatchObject({ status: 501 });
  });

  it('wants exactly one Host in HTTP/1.1, and none is fine in HTTP/1.0', () => {
    expect(admitRequest(head('/a', []), context, undefined)).toMatchObject({ admitted: false, status: 400 });
    expect(admitRequest(head('/a', ['Host', 'a', 'host', 'b']), context, undefined)).toMatchObject({ status: 400 });
    expect(admitRequest(head('/a', [], { version: '1.0' }), context, undefined)).toMatchObject({ admitted: true });
  });

  it('refuses a Host not allowed, with a log line, unless the connection already passed it', () => {
    const refused = admitRequest(head('/a', ['Host', 'evil.test']), context, undefined);
    expect(refused).toMatchObject({ admitted: false, status: 403, log: 'refused a request for Host "evil.test"' });
    expect(admitRequest(head('/a', ['Host', 'evil.test']), context, 'evil.test')).toMatchObject({ admitted: true });
  });

  it('refuses absolute and scheme-relative forms, and climbs out of the base path', () => {
    for (const url of [
      'http://elsewhere/',
      '//elsewhere/x',
      '*',
      '/../admin',
      '/%2e%2e/admin',
      '/a/../../admin',
      '/a\\..\\..\\admin',
    ])
      expect(admitRequest(head(url), context, undefined), url).toMatchObject({ admitted: false, status: 400 });
  });

  it('resolves dot segments that stay under the base path, and keeps a spelled-out URL a path', () => {
    expect(targetUrlOf('/checkout/../orders', context)).toEqual({
      href: 'http://127.0.0.1:9000/v2/orders',
      path: '/v2/orders',
    });
    expect(targetUrlOf('/http://127.0.0.1:9/steal', context)?.href).toBe(
      'http://127.0.0.1:9000/v2/http://127.0.0.1:9/steal',
    );
  });
});

describe('paths that hide a climb from the proxy', () => {
  const disguised = [
    '/..;/admin',
    '/checkout/..;jsessionid=1/..;/admin',
    '/.;/admin',
    '/..%2fadmin',
    '/..%2Fadmin',
    '/..%5cadmin',
    '/checkout%2f..%2f..%2fadmin',
    '/%252e%252e/admin',
    '/%25252e%25252e/admin',
    '/%2e%2e%3b/admin',
    '/..%252fadmin',
  ];

  it('are refused with 400 in every spelling', () => {
    for (const url of disguised) {
      expect(disguisedPathPart(url), url).toBeDefined();
      expect(admitRequest(head(url), context, undefined), url).toMatchObject({ admitted: false, status: 400 });
    }
  });

  it('leave escapes, parameters and dots that hide nothing alone, in the path and the query', () => {
    for (const url of [
      '/files/a%20b.pdf',
      '/files/100%25.pdf',
      '/files/a;v=1',
      '/a/..b/.c',
      '/a?next=..%2f..%2f',
      '/a/%2541',
    ])
      expect(disguisedPathPart(url), url).toBeUndefined();
  });
});

describe('what enforce mode reads before forwarding', () => {
  it('reads JSON/XML whole, the start of multipart and of untyped bodies, and nothing of other bodies or in report mode', () => {
    const json = { 'content-type': 'application/json' };
    expect(peekLimitOf('POST', json, true, 1000)).toBe(1000);
    expect(peekLimitOf('POST', { 'content-type': 'multipart/form-data; boundary=x' }, true, 1000)).toBe(65536);
    expect(peekLimitOf('POST', { 'content-type': 'application/pdf' }, true, 1000)).toBe(0);
    expect(peekLimitOf('POST', {}, true, 1000)).toBe(65536);
    expect(peekLimitOf('GET', json, true, 1000)).toBe(0);
    expect(peekLimitOf('POST', json, false, 1000)).toBe(0);
  });
});
