import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../src/http/send.js';
import {
  astralReturnUrl,
  checkoutRequestBody,
  falseNilReturnUrlXml,
  multiByteReturnUrl,
  nilReturnUrlXml,
  withByteOrderMark,
  withEncodingDeclaration,
  withoutDeclaration,
} from '../../src/probes/checkout-request.js';
import { type ReferenceService, startReferenceService } from '../../src/reference/service.js';
import { validateExchange } from '../../src/validate/index.js';

// The reference service takes every well-formed way of writing a checkout request that the suite
// probes, counts ReturnUrl in UTF-16 units, and refuses what a strict parser refuses.

const XML = 'application/xml';
const JSON_TYPE = 'application/json';
let service: ReferenceService;

beforeAll(async () => {
  service = await startReferenceService();
});
afterAll(() => service.close());

async function checkoutUrl(base = service.baseUrl): Promise<string> {
  const order = await send({ method: 'POST', url: `${base}orders` });
  return JSON.parse(order.response?.body?.text ?? '{}').checkout.setupUrl;
}

async function post(url: string, contentType: string, body: string | Buffer, accept = contentType) {
  const exchange = await send({ method: 'POST', url, headers: { 'content-type': contentType, accept }, body });
  const failures = validateExchange(exchange).filter((v) => v.side === 'response' && v.severity !== 'observe');
  return { status: exchange.response?.status, text: exchange.response?.body?.text ?? '', failures };
}

describe('the reference service reads checkout requests', () => {
  it('takes a member written null or nil for one left out, at every depth, as Json.NET, Jackson and DataContract write it', async () => {
    const url = await checkoutUrl();
    for (const model of [{ returnUrl: null, billing: null }, { billing: { address: null } }]) {
      const answer = await post(url, JSON_TYPE, JSON.stringify(model));
      expect([answer.status, answer.failures], JSON.stringify(model)).toEqual([201, []]);
    }
    const nilAddress = checkoutRequestBody('xml', 'https://shop.example.test/r').replace(
      /<Address>[\s\S]*<\/Address>/,
      '<Address xsi:nil="true" />',
    );
    expect(nilAddress).toContain('<Address xsi:nil="true" />');
    expect((await post(url, XML, nilAddress)).status).toBe(201);
  });

  it('counts ReturnUrl in UTF-16 units: empty refused, 512 with é taken, 513 that are 512 code points refused', async () => {
    const url = await checkoutUrl();
    for (const [format, type] of [
      ['json', JSON_TYPE],
      ['xml', XML],
    ] as const) {
      expect((await post(url, type, checkoutRequestBody(format, ''))).status).toBe(400);
      const accented = multiByteReturnUrl(512, format);
      const taken = await post(url, type, checkoutRequestBody(format, accented));
      expect([taken.status, taken.failures]).toEqual([201, []]);
      expect(taken.text).toContain(accented.slice(-40));
      expect((await post(url, type, checkoutRequestBody(format, astralReturnUrl(513, format)))).status).toBe(400);
      expect((await post(url, type, checkoutRequestBody(format, astralReturnUrl(512, format)))).status).toBe(201);
    }
  });

  it('takes XML with a byte order mark, a declared encoding, no declaration, a charset, or xsi as i', async () => {
    const url = await checkoutUrl();
    const plain = checkoutRequestBody('xml', 'https://shop.example.test/return');
    for (const [type, body] of [
      [XML, withByteOrderMark(plain)],
      [XML, withEncodingDeclaration(plain)],
      [XML, withoutDeclaration(plain)],
      ['application/xml; charset=utf-8', plain],
      [XML, nilReturnUrlXml()],
    ]) {
      const answer = await post(url, type as string, body as string);
      expect([answer.status, answer.failures], body as string).toEqual([201, []]);
    }
    expect((await post(url, XML, nilReturnUrlXml())).text).not.toContain('<ReturnUrl');
    // The xsi prefix bound to another namespace makes no nil: the ReturnUrl is empty, too short.
    expect((await post(url, XML, falseNilReturnUrlXml())).status).toBe(400);
  });

  it('takes UTF-16 behind its byte order mark, and refuses UTF-8 that declares utf-16', async () => {
    const url = await checkoutUrl();
    const xml = checkoutRequestBody('xml', 'https://shop.example.test/café').replace(
      '<?xml version="1.0"?>',
      '<?xml version="1.0" encoding="utf-16"?>',
    );
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    const taken = await post(url, 'application/xml; charset=utf-16', utf16, XML);
    expect([taken.status, taken.failures]).toEqual([201, []]);
    expect(taken.text).toContain('<ReturnUrl>https://shop.example.test/café</ReturnUrl>');
    const slip = await post(url, XML, xml);
    expect(slip.status).toBe(400);
    expect(slip.text).toMatch(/encoding &quot;utf-16&quot; but the body is UTF-8/);
  });
});

describe('dialect knobs of the reference service', () => {
  it('sends answers chunked, and keeps a first set-up, when told to', async () => {
    const variant = await startReferenceService({ dialect: { chunked: true, replaceSetUp: false } });
    try {
      const url = await checkoutUrl(variant.baseUrl);
      const first = await send({
        method: 'POST',
        url,
        headers: { 'content-type': JSON_TYPE },
        body: checkoutRequestBody('json', 'https://shop.example.test/first'),
      });
      expect(first.response?.headers['transfer-encoding']).toBe('chunked');
      expect(first.response?.headers['content-length']).toBeUndefined();
      const second = await post(url, JSON_TYPE, checkoutRequestBody('json', 'https://shop.example.test/second'));
      expect(second.text).toContain('/first');
    } finally {
      await variant.close();
    }
  });
});
