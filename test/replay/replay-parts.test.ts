import { describe, expect, it } from 'vitest';
import { answerDifferences } from '../../src/replay/answer-differences.js';
import { type OrderAnswer, readOrderAnswer } from '../../src/replay/order-answer.js';
import { replayBody, replayHeaders } from '../../src/replay/replay-request.js';
import { ReplayMap } from '../../src/replay/url-map.js';
import type { Exchange } from '../../src/validate/exchange.js';

// The pure parts of a replay: what a recorded request becomes, which new URL stands for a recorded
// one, and which differences between two answers count.

const OLD = 'http://old.test/v2/';
const NEW = 'http://new.test/api/v2/';

function order(id: string, checkout: string, content?: string): OrderAnswer {
  const urls = new Map([['checkout/setupurl', `${id === 'O1' ? OLD : NEW}checkout/${checkout}`]]);
  if (content) urls.set('items/0/files/content/uploadurl', `${id === 'O1' ? OLD : NEW}files/${content}`);
  return { id, urls };
}

describe('a recorded request made ready to send again', () => {
  it('sends text and base64 bodies as their bytes', () => {
    expect(replayBody({ text: 'Café', size: 5 })).toEqual({ bytes: Buffer.from('Café') });
    expect(replayBody({ base64: 'JVBERi0=', size: 5 })).toEqual({ bytes: Buffer.from('%PDF-') });
  });

  it('sends a UTF-16 body (the suite sends one) as UTF-16, not as UTF-8 its declaration denies', () => {
    const text = '\ufeff<?xml version="1.0" encoding="utf-16"?><Checkout/>';
    const sent = Buffer.from(text, 'utf16le');
    expect(replayBody({ text, size: sent.length })).toEqual({ bytes: sent });
  });

  it('refuses a digest, and a body the headers announce but the recording left out, naming --record-bodies', () => {
    const digest = replayBody({ size: 77, sha256: 'ab'.repeat(32), headBase64: 'JVBERi0=' });
    expect(digest).toEqual({ reason: expect.stringMatching(/digest \(77 bytes.*--record-bodies/) });
    expect(replayBody(undefined, { 'content-length': '120' })).toEqual({
      reason: expect.stringMatching(/not recorded \(120 bytes\).*--record-bodies/),
    });
    expect(replayBody(undefined, {})).toEqual({});
  });

  it('drops connection headers and redacted credentials; the given credentials take their place', () => {
    const recorded = {
      host: 'proxy:1',
      'content-length': '2',
      'accept-encoding': 'gzip',
      authorization: '[Filtered]',
      cookie: 'session=[Filtered]',
      accept: 'application/json',
    };
    expect(replayHeaders(recorded, {})).toEqual({
      headers: { accept: 'application/json' },
      dropped: ['authorization', 'cookie'],
    });
    expect(replayHeaders(recorded, { authorization: 'Bearer t' })).toEqual({
      headers: { accept: 'application/json', authorization: 'Bearer t' },
      dropped: ['cookie'],
    });
  });
});

describe('the new URL that stands for a recorded one', () => {
  it('takes the URL the new order gives at the same place, and the new order id', () => {
    const map = new ReplayMap(NEW);
    map.learn(order('O1', 'AbC', 'Up1'), order('N1', 'XyZ', 'Up9'), '');
    expect(map.interfaceUrl(`${OLD}checkout/AbC`, OLD)).toEqual({ url: `${NEW}checkout/XyZ` });
    expect(map.interfaceUrl(`${OLD}files/Up1`, OLD)).toEqual({ url: `${NEW}files/Up9` });
    expect(map.orderUrl('O1', `${OLD}orders/O1`, OLD)).toEqual({ url: `${NEW}orders/N1` });
  });

  it("repeats a client's mistakes on the new codes: a lower-cased code, the order id as a code", () => {
    const map = new ReplayMap(NEW);
    map.learn(order('O1', 'AbC', 'Up1'), order('N1', 'XyZ', 'Up9'), '');
    expect(map.interfaceUrl(`${OLD}checkout/abc`, OLD)).toEqual({ url: `${NEW}checkout/xyz` });
    expect(map.interfaceUrl(`${OLD}checkout/O1`, OLD)).toEqual({ url: `${NEW}checkout/N1` });
    expect(map.rebased(`${OLD}files/O1/content?x=1`, OLD)).toEqual({ url: `${NEW}files/N1/content?x=1` });
  });

  it('says why when the new answer leaves the place empty or the order was never recorded', () => {
    const map = new ReplayMap(NEW);
    map.learn(order('O1', 'AbC', 'Up1'), order('N1', 'XyZ'), '');
    expect(map.interfaceUrl(`${OLD}files/Up1`, OLD)).toEqual({
      reason: expect.stringContaining('gives no URL at items/0/files/content/uploadurl'),
    });
    expect(map.interfaceUrl(`${OLD}checkout/Elsewhere`, OLD)).toEqual({
      reason: expect.stringContaining('given by no order answer in the recording'),
    });
    expect(map.orderUrl('O7', `${OLD}orders/O7`, OLD)).toEqual({ reason: expect.stringContaining('order O7') });
    const failed = new ReplayMap(NEW);
    failed.learn(order('O1', 'AbC'), undefined, 'POST orders: it was answered 500');
    expect(failed.interfaceUrl(`${OLD}checkout/AbC`, OLD)).toEqual({
      reason: expect.stringContaining('not placed again: POST orders: it was answered 500'),
    });
  });
});

function exchange(status: number, contentType: string, text: string): Exchange {
  return {
    request: { method: 'POST', url: `${OLD}checkout/AbC`, headers: {} },
    response: { status, headers: { 'content-type': contentType }, body: { text, size: Buffer.byteLength(text) } },
  };
}

const checkoutJson = (paymentUrl: string, city = 'Amsterdam', amount = 22.49) =>
  JSON.stringify({
    amount,
    status: 'Open',
    paymentUrl,
    returnUrl: 'https://shop.test/x',
    billing: { address: { name: 'A', city, country: 'NL' } },
  });

describe('what an order answer gives', () => {
  it('reads the URLs by their place, and the id from the body or else from Location', () => {
    const answer = (body: unknown, location?: string): Exchange => ({
      request: { method: 'POST', url: `${OLD}orders`, headers: {} },
      response: {
        status: 201,
        headers: { 'content-type': 'application/json', ...(location ? { location } : {}) },
        body: { text: JSON.stringify(body), size: 1 },
      },
    });
    const body = {
      checkout: { setupUrl: `${OLD}checkout/A` },
      items: [{ files: { cover: { uploadUrl: `${OLD}files/B` } } }],
    };
    expect(readOrderAnswer(answer({ id: 'O1', ...body }))).toEqual({
      id: 'O1',
      urls: new Map([
        ['checkout/setupurl', `${OLD}checkout/A`],
        ['items/0/files/cover/uploadurl', `${OLD}files/B`],
      ]),
    });
    expect(readOrderAnswer(answer(body, `${OLD}orders/O2`))?.id).toBe('O2');
  });
});

describe('differences between a recorded and a new answer', () => {
  it('ignores what must differ (PaymentUrl) and a status within its class', () => {
    const before = exchange(201, 'application/json', checkoutJson(`${OLD}payments/1`));
    const now = exchange(200, 'application/json', checkoutJson(`${NEW}payments/2`));
    expect(answerDifferences(before, now, 'checkout')).toEqual([]);
  });

  it('names a documented member whose value or presence changed', () => {
    const before = exchange(201, 'application/json', checkoutJson('p', 'Amsterdam', 22.49));
    const now = exchange(201, 'application/json', checkoutJson('p', 'Utrecht', 22.5));
    expect(answerDifferences(before, now, 'checkout')).toEqual([
      { member: '/amount', recorded: '22.49', replayed: '22.5' },
      { member: '/billing/address/city', recorded: 'Amsterdam', replayed: 'Utrecht' },
    ]);
  });

  it('sees a number that became a string of the same digits', () => {
    const body = checkoutJson('p', 'Amsterdam', 22.49);
    const before = exchange(201, 'application/json', body);
    const now = exchange(201, 'application/json', body.replace('22.49', '"22.49"'));
    expect(answerDifferences(before, now, 'checkout')).toEqual([
      { member: '/amount', recorded: '22.49', replayed: '"22.49"' },
    ]);
  });

  it('tells a changed status class and format, and compares FileType as upload.file-type does', () => {
    const before = exchange(201, 'application/json', checkoutJson('p'));
    expect(answerDifferences(before, exchange(500, 'application/json', '{}'), 'checkout')).toEqual([
      { member: 'status', recorded: '201', replayed: '500' },
    ]);
    expect(answerDifferences(before, exchange(201, 'application/xml', '<Checkout/>'), 'checkout')).toEqual([
      { member: 'format', recorded: 'JSON', replayed: 'XML' },
    ]);
    const upload = (type: string) =>
      exchange(200, 'application/json', JSON.stringify({ fileName: 'c', fileType: type }));
    expect(answerDifferences(upload('PDF'), upload('pdf'), 'upload')).toEqual([]);
    expect(answerDifferences(upload('PDF'), upload('PNG'), 'upload')).toEqual([
      { member: '/fileType', recorded: 'PDF', replayed: 'PNG' },
    ]);
  });

  it('tells an XML answer that lost its nil Tax', () => {
    const xml = (tax: string) =>
      exchange(
        201,
        'application/xml',
        `<Checkout xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><Amount>1</Amount>${tax}<Status>Open</Status></Checkout>`,
      );
    expect(answerDifferences(xml('<Tax xsi:nil="true"/>'), xml(''), 'checkout')).toEqual([
      { member: '/Tax', recorded: 'nil' },
    ]);
  });
});
