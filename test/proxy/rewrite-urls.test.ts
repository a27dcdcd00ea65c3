import { describe, expect, it } from 'vitest';
import { rewriteLocation, rewriteTargetUrls } from '../../proxy/rewrite-urls.js';

const TARGET = 'https://staging.example.test/v2/';
const PROXY = 'http://127.0.0.1:8080/';

describe('URLs of the target in answers', () => {
  it('are rewritten to the proxy in both JSON spellings, and nothing else changes', () => {
    const body = JSON.stringify({
      setupUrl: `${TARGET}checkout/abc`,
      other: 'https://staging.example.test/v1/checkout/abc',
    });
    expect(rewriteTargetUrls(body, TARGET, PROXY)).toBe(
      JSON.stringify({ setupUrl: `${PROXY}checkout/abc`, other: 'https://staging.example.test/v1/checkout/abc' }),
    );
    const escaped = '{"uploadUrl":"https:\\/\\/staging.example.test\\/v2\\/files\\/x"}';
    expect(rewriteTargetUrls(escaped, TARGET, PROXY)).toBe('{"uploadUrl":"http:\\/\\/127.0.0.1:8080\\/files\\/x"}');
    const xml = `<Checkout><PaymentUrl>${TARGET}pay/1</PaymentUrl></Checkout>`;
    expect(rewriteTargetUrls(xml, TARGET, PROXY)).toBe(`<Checkout><PaymentUrl>${PROXY}pay/1</PaymentUrl></Checkout>`);
  });

  it('in Location are rewritten only when they point at the target, and never carry CR or LF', () => {
    expect(rewriteLocation(`${TARGET}checkout/abc`, TARGET, PROXY)).toBe(`${PROXY}checkout/abc`);
    expect(rewriteLocation('https://elsewhere.test/x', TARGET, PROXY)).toBe('https://elsewhere.test/x');
    expect(rewriteLocation(`${TARGET}a\r\nSet-Cookie: x=1`, TARGET, PROXY)).toBe(`${PROXY}aSet-Cookie: x=1`);
  });
});
