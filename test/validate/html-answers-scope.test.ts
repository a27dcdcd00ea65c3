import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/validate/exchange.js';
import { ServiceBase } from '../../src/validate/scope.js';

// A framework's HTML error page to a set-up or an upload is an answer of the interface, judged as
// one; a browser's GET that asks for a page is not.

const BASE = 'https://api.example.test/v2/';
const html = { 'content-type': 'text/html; charset=utf-8' };
const page = { text: '<!DOCTYPE html><html><body><h1>Internal Server Error</h1></body></html>', size: 70 };

function exchange(method: string, path: string, accept: string): Exchange {
  return {
    request: { method, url: `${BASE}${path}`, headers: { accept, 'content-type': 'application/xml' } },
    response: { status: 500, headers: html, body: page },
  };
}

describe('HTML answers under checkout and files', () => {
  it('takes an HTML 500 to a set-up and to an upload for answers of the interface', () => {
    const base = new ServiceBase(BASE);
    expect(base.scopeOf(exchange('POST', 'checkout/abc', 'application/xml')).kind).toBe('interface');
    expect(base.scopeOf(exchange('POST', 'files/abc', 'application/json')).kind).toBe('interface');
    expect(base.scopeOf(exchange('GET', 'checkout/abc', 'application/json')).kind).toBe('interface');
  });

  it("still counts a browser's GET asking for a page apart", () => {
    const base = new ServiceBase(BASE);
    expect(base.scopeOf(exchange('GET', 'checkout/abc', 'text/html,application/xhtml+xml,*/*;q=0.8'))).toEqual({
      kind: 'outside',
      reason: 'a page (text/html)',
    });
  });
});
