import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/validate/exchange.js';
import { judgeTraffic, TrafficState } from '../../src/validate/traffic.js';
import {
  CHECKOUT_URL,
  checkoutPost,
  checkoutRequestJson,
  checkoutRequestXml,
  JSON_TYPE,
  textBody,
  UPLOAD_URL,
  uploadPost,
} from '../helpers/exchanges.js';

// The rules of what a client sends (client.given-urls, checkout.request.schema) and the sorting
// of traffic into the interface, order answers and what is judged by no rule.

const BASE = 'https://api.example.test/v2/';
const PDF = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n');
const ORDER_ID = 'ORD-7741';

function orderAnswer(): Exchange {
  const body = JSON.stringify({
    id: ORDER_ID,
    checkout: { status: 'Open', setupUrl: CHECKOUT_URL },
    items: [{ id: 'ITM-1', files: { content: { status: 'AwaitingUpload', uploadUrl: UPLOAD_URL } } }],
  });
  return {
    request: { method: 'POST', url: `${BASE}orders`, headers: { 'content-type': JSON_TYPE }, body: textBody('{}') },
    response: { status: 200, headers: { 'content-type': JSON_TYPE }, body: textBody(body) },
  };
}

const at = (exchange: Exchange, url: string, method = exchange.request.method): Exchange => ({
  ...exchange,
  request: { ...exchange.request, url, method },
});

function judged(exchanges: Exchange[], base?: string) {
  const state = new TrafficState(base);
  return exchanges.map((exchange) => judgeTraffic(exchange, state));
}

const rulesOf = (result: ReturnType<typeof judged>[number]) =>
  (result.judgement?.violations ?? [])
    .filter((v) => v.severity !== 'observe')
    .map((v) => `${v.rule}@${v.side}`)
    .sort();

describe('client.given-urls', () => {
  it('holds for the URLs the order gave, used as given, and counts them as evidence', () => {
    const [, post, upload] = judged([orderAnswer(), checkoutPost('json'), uploadPost('application/pdf', PDF)]);
    expect(rulesOf(post as never)).toEqual([]);
    expect(rulesOf(upload as never)).toEqual([]);
    expect(post?.judgement?.facts.givenUrlJudged).toBe(true);
    expect(upload?.judgement?.facts.givenUrlJudged).toBe(true);
  });

  it("catches the order's id where a code belongs, in checkout and upload URLs", () => {
    const get = at(checkoutPost('json'), `${BASE}checkout/${ORDER_ID}`, 'GET');
    const post = at(checkoutPost('json'), `${BASE}checkout/${ORDER_ID}`);
    const item = at(uploadPost('application/pdf', PDF), `${BASE}files/ITM-1`);
    const results = judged([orderAnswer(), get, post, item]);
    for (const result of results.slice(1)) expect(rulesOf(result)).toContain('client.given-urls@request');
    expect(results[1]?.judgement?.violations[0]?.message).toMatch(/ORD-7741.*checkout\.setupUrl/);
  });

  it('catches paths of another shape, with or without an order in the traffic', () => {
    for (const url of [`${BASE}checkout`, `${BASE}files/${ORDER_ID}/content`, `${BASE}checkout/a/b`]) {
      const [result] = judged([at(checkoutPost('json'), url)], BASE);
      expect(result?.scope.kind).toBe('misaddressed');
      expect(rulesOf(result as never)).toEqual(['client.given-urls@request']);
    }
  });

  it('catches a given code cased otherwise or moved to the other operation', () => {
    const lower = at(
      checkoutPost('json'),
      CHECKOUT_URL.toLowerCase().replace('https://api.example.test', 'https://api.example.test'),
    );
    const moved = at(uploadPost('application/pdf', PDF), CHECKOUT_URL.replace('/checkout/', '/files/'));
    const results = judged([orderAnswer(), lower, moved]);
    expect(rulesOf(results[1] as never)).toContain('client.given-urls@request');
    expect(rulesOf(results[2] as never)).toContain('client.given-urls@request');
  });

  it('leaves a well-shaped URL no order in the traffic gave unjudged by the rule', () => {
    const [result] = judged([checkoutPost('json')]);
    expect(rulesOf(result as never)).toEqual([]);
    expect(result?.judgement?.facts.givenUrlJudged).toBe(false);
  });
});

describe('checkout.request.schema', () => {
  const request = (change: (body: Record<string, any>) => void) => {
    const body = JSON.parse(checkoutRequestJson());
    change(body);
    return JSON.stringify(body);
  };
  const requestRules = (text: string, format: 'json' | 'xml' = 'json') =>
    rulesOf(judged([checkoutPost(format, text)])[0] as never).filter((rule) => rule.endsWith('@request'));

  it('passes the documented form in JSON and XML', () => {
    expect(requestRules(checkoutRequestJson())).toEqual([]);
    expect(requestRules(checkoutRequestXml(), 'xml')).toEqual([]);
  });

  it('catches address fields directly under billing, billing as a string, returnUrl as a number', () => {
    const flat = request((b) => {
      b.billing = { ...b.billing.address };
    });
    expect(requestRules(flat)).toContain('checkout.request.schema@request');
    expect(requestRules(request((b) => (b.billing = 'Café Müller, Amsterdam')))).toEqual([
      'checkout.request.schema@request',
    ]);
    expect(requestRules(request((b) => (b.returnUrl = 12345)))).toEqual(['checkout.request.schema@request']);
    expect(
      requestRules(
        request((b) => {
          b.billing.address.postCode = 1011;
        }),
      ),
    ).toEqual(['checkout.request.schema@request']);
  });

  it('catches the same in XML: an address field under Billing, a Billing of text', () => {
    const flat = checkoutRequestXml().replace('<Billing>', '<Billing>\n    <City>Amsterdam</City>');
    expect(requestRules(flat, 'xml')).toContain('checkout.request.schema@request');
    const text = checkoutRequestXml().replace(/<Billing>[\s\S]*<\/Billing>/, '<Billing>Amsterdam</Billing>');
    expect(requestRules(text, 'xml')).toContain('checkout.request.schema@request');
  });

  it('reads null as absent, as the service does', () => {
    expect(requestRules(request((b) => (b.returnUrl = null)))).toEqual([]);
  });
});

describe('what traffic is the interface', () => {
  const page = (url: string): Exchange => ({
    request: {
      method: 'GET',
      url,
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    },
    response: {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: textBody('<!doctype html><p>shop</p>'),
    },
  });
  const preflight: Exchange = {
    request: {
      method: 'OPTIONS',
      url: CHECKOUT_URL,
      headers: { origin: 'https://shop.example.test', 'access-control-request-method': 'POST' },
    },
    response: { status: 204, headers: {} },
  };
  const ping: Exchange = {
    request: {
      method: 'POST',
      url: 'https://analytics.example.test/collect',
      headers: { 'content-type': JSON_TYPE },
      body: textBody('{"e":1}'),
    },
    response: { status: 500, headers: {} },
  };

  it('judges only the interface: preflights, pages, other hosts and paths are counted apart', () => {
    const scopes = judged([
      page('https://shop.example.test/checkout'),
      preflight,
      ping,
      orderAnswer(),
      checkoutPost('json'),
    ]).map((result) => result.scope);
    expect(scopes.map((scope) => scope.kind)).toEqual(['outside', 'outside', 'outside', 'order', 'interface']);
    expect(scopes.slice(0, 3).map((scope) => (scope as { reason: string }).reason)).toEqual([
      'a page (text/html)',
      'CORS preflight (OPTIONS)',
      'a path outside the interface',
    ]);
  });

  it('learns the base from the first API call, and then tells other hosts apart', () => {
    const elsewhere = at(checkoutPost('json'), 'https://other.example.test/v2/checkout/abc');
    const [first, second] = judged([checkoutPost('json'), elsewhere]);
    expect(first?.scope.kind).toBe('interface');
    expect(second?.scope).toEqual({ kind: 'outside', reason: 'another host' });
  });

  it('takes a given base as it is', () => {
    const [result] = judged([checkoutPost('json')], 'https://api.example.test/v3/');
    expect(result?.scope).toEqual({ kind: 'outside', reason: 'a path outside the interface' });
  });
});

describe('bodies a client lost', () => {
  it('an upload of no bytes declared a PDF is flagged, and a set-up declared JSON with no body', () => {
    const empty = uploadPost('application/pdf', Buffer.alloc(0));
    expect(rulesOf(judged([empty], BASE)[0] as never)).toContain('upload.content-sniff@request');
    const noBody = checkoutPost('json');
    delete noBody.request.body;
    expect(rulesOf(judged([noBody], BASE)[0] as never)).toContain('format.well-formed@request');
  });

  it('names the operation a swapped code was sent to, and the URL it needed', () => {
    const moved = at(uploadPost('application/pdf', PDF), CHECKOUT_URL.replace('/checkout/', '/files/'));
    const message = judged([orderAnswer(), moved])[1]?.judgement?.violations.find(
      (v) => v.rule === 'client.given-urls',
    );
    expect(message?.message).toMatch(
      /puts the code of the checkout URL .* under files\/: use items\[\]\.files\.\*\.uploadUrl/,
    );
  });
});
