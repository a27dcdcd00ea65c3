import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { recordBody } from '../../src/http/send.js';
import { decodeContent } from '../../src/validate/content-coding.js';
import type { Exchange } from '../../src/validate/exchange.js';
import { judgedAccept } from '../../src/validate/format.js';
import { validateExchange } from '../../src/validate/index.js';
import { checkoutGet, checkoutResponseJson, checkoutResponseXml } from '../helpers/exchanges.js';

// How the core reads Accept as clients write it, bodies that are neither JSON nor XML, and
// content codings: one reading for run, proxy and validate.

const failing = (exchange: Exchange) =>
  validateExchange(exchange)
    .filter((v) => v.severity !== 'observe')
    .map((v) => `${v.rule}@${v.side}`)
    .sort();

function answered(accept: string, contentType: string, text: string, status = 200): Exchange {
  const exchange = checkoutGet('json', text, status);
  exchange.request.headers = { accept };
  if (exchange.response) exchange.response.headers = { 'content-type': contentType };
  return exchange;
}

describe('Accept as clients write it', () => {
  it.each([
    ['application/xml; charset=utf-8', 'xml'],
    ['text/xml', 'xml'],
    ['application/xml, */*;q=0.8', 'xml'],
    ['application/json;q=0.5, application/xml', 'xml'],
    ['application/json, text/plain, */*', 'json'],
    ['application/xml;q=0.4, application/json;q=0.9', 'json'],
  ])('%s prefers %s', (accept, format) => {
    expect(judgedAccept(accept)?.format).toBe(format);
  });

  it('judges no request that prefers another type', () => {
    expect(judgedAccept('text/html, application/xml;q=0.9, */*;q=0.8')).toBeUndefined();
    expect(judgedAccept('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBeUndefined();
    expect(judgedAccept('*/*')).toBeUndefined();
  });

  it('judges a preferred XML type answered in JSON under format.xml', () => {
    const exchange = answered('application/xml, */*;q=0.8', 'application/json', checkoutResponseJson());
    expect(failing(exchange)).toEqual(['format.xml@response']);
    expect(validateExchange(exchange)[0]?.message).toMatch(/preferring application\/xml/);
    expect(failing(answered('text/xml', 'application/xml', checkoutResponseXml()))).toEqual([]);
  });
});

describe('bodies that are neither JSON nor XML', () => {
  it('fails format.json for a text/plain refusal and an OK as text', () => {
    expect(failing(answered('application/json', 'text/plain; charset=utf-8', 'Bad Request', 400))).toEqual([
      'format.json@response',
    ]);
    expect(failing(answered('application/json', 'text/plain', 'OK'))).toEqual(['format.json@response']);
  });

  it('takes an HTML error page for what it is, not for malformed XML', () => {
    const page =
      '<!DOCTYPE html>\n<html lang="en"><head><title>Server Error (500)</title></head><body><h1>Server Error (500)</h1></body></html>';
    const exchange = answered('application/xml', 'text/html; charset=utf-8', page, 500);
    expect(failing(exchange)).toEqual(['format.xml@response', 'http.no-server-error@response']);
    expect(
      validateExchange(exchange)
        .map((v) => v.message)
        .join('\n'),
    ).toMatch(/an HTML page/);
  });
});

describe('content codings', () => {
  const json = Buffer.from(checkoutResponseJson());

  it('decodes gzip, deflate and br as clients do', () => {
    expect(decodeContent(gzipSync(json), 'gzip', 1 << 20)?.toString()).toBe(json.toString());
    expect(decodeContent(json, 'identity', 1 << 20)?.toString()).toBe(json.toString());
  });

  it('fails format.well-formed for a body that does not decode as its coding names', () => {
    const exchange = checkoutGet('json');
    if (!exchange.response) throw new Error('no answer');
    exchange.response.headers['content-encoding'] = 'gzip';
    exchange.response.body = { size: json.length, codingError: 'it does not decode as gzip (incorrect header check)' };
    expect(failing(exchange)).toEqual(['format.well-formed@response']);
  });

  it('leaves a body as the suite read it once decoded', () => {
    expect(recordBody(json, 'application/json').text).toBe(json.toString());
  });
});
