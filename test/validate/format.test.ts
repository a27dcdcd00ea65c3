import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/validate/exchange.js';
import { judgeExchange, validateExchange } from '../../src/validate/index.js';
import { parseXml } from '../../src/validate/xml.js';
import {
  checkoutGet,
  checkoutPost,
  checkoutRequestJson,
  checkoutRequestXml,
  checkoutResponseJson,
  checkoutResponseXml,
  JSON_TYPE,
} from '../helpers/exchanges.js';

const failing = (exchange: Parameters<typeof validateExchange>[0]) =>
  validateExchange(exchange)
    .filter((v) => v.severity !== 'observe')
    .map((v) => `${v.rule}@${v.side}`)
    .sort();

describe('format.well-formed', () => {
  it('flags a truncated JSON response and a malformed XML request', () => {
    expect(failing(checkoutGet('json', checkoutResponseJson().slice(0, 40)))).toEqual(['format.well-formed@response']);
    expect(failing(checkoutPost('xml', '<Checkout><ReturnUrl>x</Checkout>', undefined, 400))).toEqual([
      'format.well-formed@request',
    ]);
  });

  it('refuses JSON that names a member twice in one object, at any depth, on either side', () => {
    const response = checkoutResponseJson().replace('{', '{\r\n  "returnUrl": "https://shop.example.test/cut",');
    const exchange = checkoutGet('json', response);
    expect(failing(exchange)).toEqual(['format.well-formed@response']);
    expect(validateExchange(exchange)[0]?.message).toMatch(/member \/returnUrl appears twice in one object/);
    const nested = checkoutRequestJson().replace('"address": {', '"address": {"city": "Elsewhere", ');
    expect(nested).not.toBe(checkoutRequestJson());
    expect(validateExchange(checkoutPost('json', nested, undefined, 400)).map((v) => v.message)).toEqual([
      expect.stringMatching(/member \/billing\/address\/city appears twice/),
    ]);
    // Names written with escapes are the names they stand for; the same name in two objects is fine.
    expect(failing(checkoutGet('json', '{"a\\u0062": 1, "ab": 2}'))).toContain('format.well-formed@response');
    expect(failing(checkoutGet('json', '[{"status": "Open"}, {"status": "Open"}]'))).not.toContain(
      'format.well-formed@response',
    );
  });

  it('refuses DOCTYPE and entity declarations without expanding them', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE Checkout [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><Checkout><ReturnUrl>&b;</ReturnUrl></Checkout>`;
    const violations = validateExchange(checkoutPost('xml', bomb, undefined, 400));
    expect(violations.map((v) => v.rule)).toEqual(['format.well-formed']);
    expect(violations[0]?.message).toContain('DOCTYPE and entity declarations are not accepted');
    expect(parseXml('<a>&ext;</a>')).toEqual({
      ok: false,
      error: expect.stringContaining('undeclared entity (entities are not expanded) (line 1, column 8)'),
    });
  });

  it('reads no document nested deeper than 64 levels, in bounded time, and throws nothing', () => {
    const xml = (depth: number) => `<Checkout>${'<A>'.repeat(depth - 1)}${'</A>'.repeat(depth - 1)}</Checkout>`;
    const json = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
    for (const [format, make] of [
      ['xml', xml],
      ['json', json],
    ] as const) {
      const deep = validateExchange(checkoutGet(format, make(200_000)));
      expect(deep.map((v) => `${v.rule}@${v.side}`)).toEqual(['format.well-formed@response']);
      expect(deep[0]?.message).toContain('nested deeper than 64 levels; not read');
      // 64 levels are read: the verdict is then the schema's, not well-formedness.
      expect(failing(checkoutGet(format, make(64)))).not.toContain('format.well-formed@response');
      expect(failing(checkoutGet(format, make(65)))).toContain('format.well-formed@response');
    }
  });

  it('decodes the predefined entities and character references in text', () => {
    const parsed = parseXml('<A x="&quot;1&quot;">a &amp; b &#x41;&#66;<![CDATA[<c>]]></A>');
    expect(parsed.ok && parsed.root.text).toBe('a & b AB<c>');
    expect(parsed.ok && parsed.root.attributes[0]?.value).toBe('"1"');
  });

  it('reads each document on its own: nothing of the one before carries over, a broken one included', () => {
    const bound = '<p:A xmlns:p="urn:a"><p:B/></p:A>';
    expect(parseXml(bound).ok).toBe(true);
    // The prefix was bound in the document before, not in this one.
    expect(parseXml('<p:A><p:B/></p:A>')).toMatchObject({ ok: false, error: expect.stringMatching(/prefix/) });
    expect(parseXml('<A><B></A>').ok).toBe(false);
    expect(parseXml('<A>').ok).toBe(false);
    const after = parseXml(bound);
    expect(after.ok && after.root.namespace).toBe('urn:a');
    expect(after.ok && after.root.children.map((c) => c.local)).toEqual(['B']);
    expect(parseXml('<A/><B/>').ok).toBe(false);
    const again = parseXml('<C>text</C>');
    expect(again.ok && [again.root.local, again.root.text, again.root.children.length]).toEqual(['C', 'text', 0]);
  });

  it('flags an element whose prefix is not bound', () => {
    const violations = validateExchange(checkoutGet('xml', checkoutResponseXml().replace('xsi:nil', 'q:nil')));
    expect(violations.map((v) => v.rule)).toEqual(['format.well-formed']);
  });
});

describe('format.response-content-type', () => {
  it('flags XML labelled as JSON and JSON labelled text/plain', () => {
    const xmlAsJson = checkoutGet('xml');
    xmlAsJson.response!.headers['content-type'] = JSON_TYPE;
    expect(failing(xmlAsJson)).toEqual(['format.response-content-type@response']);
    const jsonAsText = checkoutGet('json');
    jsonAsText.response!.headers['content-type'] = 'text/plain';
    expect(failing(jsonAsText)).toEqual(['format.response-content-type@response']);
  });

  it('accepts text/xml, +json and charset spellings', () => {
    const textXml = checkoutGet('xml');
    textXml.response!.headers['content-type'] = 'text/xml';
    expect(failing(textXml)).toEqual([]);
    const problem = checkoutGet('json');
    problem.response!.headers['content-type'] = 'application/problem+json;charset=UTF-8';
    expect(failing(problem)).toEqual([]);
  });
});

describe('format.json and format.xml', () => {
  it('flags Accept: application/json answered in XML', () => {
    const exchange = checkoutGet('xml');
    exchange.request.headers.accept = 'application/json';
    expect(failing(exchange)).toEqual(['format.json@response']);
  });

  it('flags Accept: application/xml answered in JSON, also for an error body', () => {
    const exchange = checkoutGet('json', '{"message":"not found"}', 404);
    exchange.request.headers.accept = 'application/xml';
    expect(failing(exchange)).toEqual(['format.xml@response']);
  });

  it('follows q-values: application/json;q=0.5, application/xml wants XML', () => {
    const exchange = checkoutGet('xml');
    exchange.request.headers.accept = 'application/json;q=0.5, application/xml';
    expect(failing(exchange)).toEqual([]);
  });
});

describe('format.xml-request', () => {
  it('flags a 4xx or 5xx to a well-formed XML set-up that breaks no must rule', () => {
    const error = '<Error><Message>unsupported</Message></Error>';
    // The set-up's ReturnUrl is in range: refusing it is a fault of that rule too.
    const refused = ['checkout.return-url.length@response', 'format.xml-request@response'];
    for (const status of [400, 406, 415, 422])
      expect(failing(checkoutPost('xml', undefined, error, status)), String(status)).toEqual(refused);
    expect(failing(checkoutPost('xml', undefined, error, 500))).toEqual([
      'format.xml-request@response',
      'http.no-server-error@response',
    ]);
    // A malformed XML request, or one that breaks a must rule, may be refused any way the service likes.
    expect(failing(checkoutPost('xml', '<Checkout>', error, 415))).toEqual(['format.well-formed@request']);
    const lowerCase = checkoutRequestXml().replaceAll('<Name>', '<name>').replaceAll('</Name>', '</name>');
    expect(failing(checkoutPost('xml', lowerCase, error, 400))).toEqual(['checkout.xml.casing@request']);
  });

  it('counts as evidence only the XML set-ups that break no must rule', () => {
    const error = '<Error><Message>refused</Message></Error>';
    const tested = (exchange: Exchange) =>
      judgeExchange(exchange).tested.filter((t) => t.rule === 'format.xml-request' && t.side === 'response');
    expect(tested(checkoutPost('xml', undefined, error, 400))).toHaveLength(1);
    expect(tested(checkoutPost('xml', '<Checkout>', error, 400))).toHaveLength(0);
    const tooShort = checkoutRequestXml().replace(/<ReturnUrl>[^<]*</, '<ReturnUrl>a://<');
    expect(tested(checkoutPost('xml', tooShort, error, 400))).toHaveLength(0);
  });

  it('blames no refusal on the set-up when the answer is about its code or its credentials', () => {
    const error = '<Error><Message>no such checkout</Message></Error>';
    const tested = (exchange: Exchange) =>
      judgeExchange(exchange).tested.filter((t) => t.side === 'response' && /xml-request|return-url/.test(t.rule));
    for (const status of [401, 403, 404, 405, 409, 410, 429]) {
      for (const format of ['xml', 'json'] as const) {
        const exchange = checkoutPost(format, undefined, format === 'xml' ? error : '{"message":"no"}', status);
        expect(failing(exchange), `${format} ${status}`).toEqual([]);
        expect(tested(exchange), `${format} ${status}`).toEqual([]);
      }
    }
  });
});

describe('format.json-request', () => {
  const error = '{"message":"unsupported"}';
  const withoutReturnUrl = JSON.stringify({ billing: { address: { name: 'Print API', country: 'NL' } } });

  it('flags a 4xx or 5xx to a well-formed JSON set-up that breaks no must rule, ReturnUrl or none', () => {
    for (const status of [400, 415, 422])
      expect(failing(checkoutPost('json', withoutReturnUrl, error, status)), String(status)).toEqual([
        'format.json-request@response',
      ]);
    expect(failing(checkoutPost('json', undefined, error, 415))).toEqual([
      'checkout.return-url.length@response',
      'format.json-request@response',
    ]);
    expect(failing(checkoutPost('json', withoutReturnUrl, error, 500))).toEqual([
      'format.json-request@response',
      'http.no-server-error@response',
    ]);
  });

  it('takes a member written null for one left out: a set-up with "billing": null is sound', () => {
    const nulls = JSON.stringify({ returnUrl: null, billing: null });
    expect(failing(checkoutPost('json', nulls, error, 400))).toEqual(['format.json-request@response']);
    const tested = judgeExchange(checkoutPost('json', nulls, error, 400)).tested;
    expect(tested.some((t) => t.rule === 'format.json-request' && t.side === 'response')).toBe(true);
  });

  it('leaves malformed set-ups and those that break a must rule to the service to refuse', () => {
    expect(failing(checkoutPost('json', '{"returnUrl":', error, 400))).toEqual(['format.well-formed@request']);
    expect(failing(checkoutPost('json', JSON.stringify({ ReturnUrl: 'https://e.test/x' }), error, 400))).toEqual([
      'checkout.json.casing@request',
    ]);
    for (const status of [401, 403, 404, 405, 409, 410])
      expect(failing(checkoutPost('json', withoutReturnUrl, error, status)), String(status)).toEqual([]);
  });
});

describe('the spellings writers give a set-up, as validate and the proxy judge them', () => {
  const single = (xml: string) => xml.replace(/^<\?xml version="1.0"\?>/, "<?xml version='1.0' encoding='UTF-8'?>");
  const nilBilling = (xml: string) => xml.replace(/<Billing>[\s\S]*<\/Billing>/, '<Billing xsi:nil="true" />');
  const withEmail = (xml: string) => xml.replace('</Country>', '</Country>\n      <Email>a@shop.example.test</Email>');
  const references = (xml: string) => xml.replace(/<Name>[^<]*<\/Name>/, '<Name>Caf&#233; M&#xFC;ller</Name>');
  const xmlForms: [string, (xml: string) => string, string][] = [
    ['text/xml', (xml) => xml, 'text/xml'],
    ['a single-quoted declaration', single, 'application/xml'],
    ['a nil Billing', nilBilling, 'application/xml'],
    ['an Email in the address', withEmail, 'application/xml'],
    ['character references', references, 'application/xml; charset=utf-8'],
  ];

  it('finds no fault in an XML set-up written so and taken, and the service at fault when it refuses one', () => {
    for (const [what, spell, type] of xmlForms) {
      const request = spell(checkoutRequestXml());
      const taken = checkoutPost('xml', request);
      taken.request.headers['content-type'] = type;
      expect(failing(taken), what).not.toContainEqual(expect.stringMatching(/@request$/));
      const refused = checkoutPost('xml', request, '<Error><Message>unsupported</Message></Error>', 415);
      refused.request.headers['content-type'] = type;
      expect(failing(refused), what).toContain('format.xml-request@response');
    }
  });

  it('does the same for JSON set-ups as Json.NET, Jackson and the real service guides write them', () => {
    const sample = JSON.parse(checkoutRequestJson()) as Record<string, unknown>;
    const jsonForms: [string, string, string][] = [
      ['charset=UTF-8', JSON.stringify(sample), 'application/json;charset=UTF-8'],
      ['billing null', JSON.stringify({ ...sample, billing: null }), 'application/json'],
      ['returnUrl null', JSON.stringify({ ...sample, returnUrl: null }), 'application/json'],
    ];
    for (const [what, request, type] of jsonForms) {
      const refused = checkoutPost('json', request, '{"message":"unsupported"}', 415);
      refused.request.headers['content-type'] = type;
      expect(failing(refused), what).toContain('format.json-request@response');
      expect(failing(refused), what).not.toContainEqual(expect.stringMatching(/@request$/));
    }
  });
});

describe('checkout.request.schema: a member null or nil is one left out', () => {
  it('finds nothing to say of a null returnUrl or billing, nor of a nil Billing or ReturnUrl', () => {
    expect(failing(checkoutPost('json', JSON.stringify({ returnUrl: null, billing: null })))).toEqual([]);
    expect(failing(checkoutPost('json', JSON.stringify({ billing: { address: null } })))).toEqual([]);
    const nil = checkoutRequestXml()
      .replace(/<Billing>[\s\S]*<\/Billing>/, '<Billing xsi:nil="true" />')
      .replace(/<ReturnUrl>[^<]*<\/ReturnUrl>/, '<ReturnUrl xsi:nil="true" />');
    expect(nil).toContain('<Billing xsi:nil="true" />');
    expect(failing(checkoutPost('xml', nil))).toEqual([]);
  });
});

describe('methods a checkout does not have', () => {
  it('judges HEAD, OPTIONS, PUT and DELETE on a checkout by no 5xx alone, never as a read of it', () => {
    for (const method of ['HEAD', 'OPTIONS', 'PUT', 'DELETE']) {
      const exchange = checkoutGet('json', '', 405);
      exchange.request.method = method;
      exchange.response!.headers = { allow: 'GET, POST' };
      expect(failing(exchange), method).toEqual([]);
      const ok = checkoutGet('json', '', 200);
      ok.request.method = method;
      ok.response!.headers = {};
      expect(failing(ok), method).toEqual([]);
      const failed = checkoutGet('json', '{"message":"boom"}', 500);
      failed.request.method = method;
      expect(failing(failed), method).toEqual(['http.no-server-error@response']);
    }
  });
});

describe('http.no-server-error', () => {
  it('flags every 5xx', () => {
    expect(failing(checkoutGet('json', '{"message":"boom"}', 500))).toEqual(['http.no-server-error@response']);
    expect(failing(checkoutGet('json', '{"message":"unavailable"}', 503))).toEqual(['http.no-server-error@response']);
    expect(failing(checkoutGet('json', '{"message":"nope"}', 404))).toEqual([]);
  });
});
