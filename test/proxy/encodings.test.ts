import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { proxiedService } from '../helpers/proxy-fixture.js';
import { ENCODING_MUTANTS } from '../suite/encoding-mutants.js';
import { UNUSUAL_DIALECTS } from '../suite/unusual-dialects.js';

// The proxy judges the encoding of what passes with the core's rules, and writes a body whose URLs
// it rewrites back in the encoding it came in; one it could not read faithfully it leaves alone.

const dialectNamed = (list: { name: string; dialect: object }[], start: string) => {
  const found = list.find((m) => m.name.startsWith(start));
  if (!found) throw new Error(`no variant ${start}`);
  return found.dialect;
};

async function getCheckoutXml(base: string) {
  const order = (await (await request(`${base}orders`, { method: 'POST' })).body.json()) as {
    checkout: { setupUrl: string };
  };
  const answer = await request(order.checkout.setupUrl, { headers: { accept: 'application/xml' } });
  return { url: order.checkout.setupUrl, bytes: Buffer.from(await answer.body.arrayBuffer()) };
}

describe('the proxy and encodings', () => {
  it('rewrites URLs in UTF-16 answers in UTF-16, and finds nothing wrong with them', async () => {
    const setup = await proxiedService({ dialect: dialectNamed(UNUSUAL_DIALECTS, 'XML answers in UTF-16') });
    try {
      const viaProxy = await getCheckoutXml(setup.proxy.url);
      const direct = await request(viaProxy.url.replace(setup.proxy.url, setup.service.baseUrl), {
        headers: { accept: 'application/xml' },
      });
      const bytes = Buffer.from(await direct.body.arrayBuffer());
      expect([...viaProxy.bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
      const text = viaProxy.bytes.toString('utf16le');
      expect(text).toContain(`<PaymentUrl>${setup.proxy.url}payments/`);
      expect(text.replaceAll(setup.proxy.url, setup.service.baseUrl)).toBe(bytes.toString('utf16le'));
      const recorded = await setup.recorded();
      expect(recorded.flatMap((e) => e.violations.filter((v) => v.severity !== 'observe'))).toEqual([]);
      expect(recorded.at(-1)?.response?.body?.text?.startsWith('\uFEFF<?xml version="1.0" encoding="utf-16"?>')).toBe(
        true,
      );
    } finally {
      await setup.dispose();
    }
  });

  it('leaves a body it could not read as UTF-8 as it came', async () => {
    const latin1 = dialectNamed(ENCODING_MUTANTS, 'XML answers in ISO-8859-1 bytes');
    const setup = await proxiedService({
      dialect: {
        ...latin1,
        extraAddressMembers: { email: 'café@reference.invalid' },
      },
    });
    try {
      const viaProxy = await getCheckoutXml(setup.proxy.url);
      expect(viaProxy.bytes.includes(Buffer.from('caf\xe9@', 'latin1'))).toBe(true);
      expect(viaProxy.bytes.toString('latin1')).toContain(`<PaymentUrl>${setup.service.baseUrl}payments/`);
      await setup.recorded();
    } finally {
      await setup.dispose();
    }
  });

  it('flags a UTF-8 answer that declares utf-16 on the service side', async () => {
    const setup = await proxiedService({ dialect: dialectNamed(ENCODING_MUTANTS, 'XML answers declaring utf-16') });
    try {
      await getCheckoutXml(setup.proxy.url);
      const recorded = await setup.recorded();
      const flagged = recorded.flatMap((e) => e.violations.filter((v) => v.severity !== 'observe'));
      expect(flagged.map((v) => `${v.rule}@${v.side}`)).toEqual(['format.well-formed@response']);
      expect(flagged[0]?.message).toMatch(/encoding "utf-16" but the body is UTF-8/);
    } finally {
      await setup.dispose();
    }
  });
});
