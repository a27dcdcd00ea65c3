import { describe, expect, it } from 'vitest';
import { rewriteLocation, rewriteTargetUrls, StreamingUrlRewriter } from '../../proxy/rewrite-urls.js';

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

  it('streaming through in pieces are rewritten as in a whole answer, wherever the pieces break', () => {
    const text = JSON.stringify({
      setupUrl: `${TARGET}checkout/abc`,
      escaped: `${TARGET}files/x`.replaceAll('/', '\\/'),
      name: 'Grüße, 日本',
      near: 'https://staging.example.test/v2',
      last: `${TARGET}`,
    });
    const bytes = Buffer.from(text);
    const whole = Buffer.from(rewriteTargetUrls(text, TARGET, PROXY));
    for (let first = 0; first <= bytes.length; first += 1)
      for (const second of [first, Math.min(bytes.length, first + 1), Math.min(bytes.length, first + 17)]) {
        const rewriter = new StreamingUrlRewriter(TARGET, PROXY);
        const out = [
          rewriter.push(bytes.subarray(0, first)),
          rewriter.push(bytes.subarray(first, second)),
          rewriter.push(bytes.subarray(second)),
          rewriter.end(),
        ];
        expect(Buffer.concat(out).equals(whole), `pieces end at ${first} and ${second}`).toBe(true);
      }
  });

  it('streaming through are held back no longer than a base is long, fed a byte at a time', () => {
    const rewriter = new StreamingUrlRewriter(TARGET, PROXY);
    let out = 0;
    const text = `${'x'.repeat(200)}${TARGET}checkout/abc${'y'.repeat(200)}`;
    for (const [index, byte] of [...Buffer.from(text)].entries()) {
      out += rewriter.push(Buffer.from([byte])).length;
      expect(index + 1 - out).toBeLessThan(2 * TARGET.length);
    }
    out += rewriter.end().length;
    expect(out).toBe(Buffer.byteLength(rewriteTargetUrls(text, TARGET, PROXY)));
  });
});
