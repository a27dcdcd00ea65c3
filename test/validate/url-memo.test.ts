import { describe, expect, it } from 'vitest';
import { endpointOf } from '../../src/validate/exchange.js';
import { perUrl } from '../../src/validate/url-memo.js';

describe('what is read from request URLs, kept per URL', () => {
  it('reads a URL that comes again once, and each URL to its own answer', () => {
    let reads = 0;
    const pathOf = perUrl((url: string) => {
      reads += 1;
      return new URL(url).pathname;
    });
    for (let round = 0; round < 3; round += 1) expect(pathOf('https://t.test/v2/checkout/A')).toBe('/v2/checkout/A');
    expect(reads).toBe(1);
    // More URLs than are kept: every answer is still the one of its own URL.
    for (let round = 0; round < 2; round += 1)
      for (let i = 0; i < 5000; i += 1) expect(pathOf(`https://t.test/v2/checkout/C${i}`)).toBe(`/v2/checkout/C${i}`);
  });

  it('keeps no URL longer than 2 KiB: a client sending long URLs makes it keep nothing', () => {
    let reads = 0;
    const lengthOf = perUrl((url: string) => {
      reads += 1;
      return url.length;
    });
    const long = `https://t.test/v2/checkout/${'x'.repeat(4000)}`;
    for (let round = 0; round < 3; round += 1) expect(lengthOf(long)).toBe(long.length);
    expect(reads).toBe(3);
  });

  it('keeps an answer that is undefined too', () => {
    let reads = 0;
    const nothing = perUrl(() => {
      reads += 1;
      return undefined;
    });
    nothing('not a url');
    nothing('not a url');
    expect(reads).toBe(1);
  });

  it('gives endpoints by URL as before', () => {
    expect(endpointOf('https://t.test/v2/checkout/AbC')).toEqual({
      kind: 'checkout',
      code: 'AbC',
      key: '/v2/checkout/AbC',
    });
    expect(endpointOf(`https://t.test/v2/files/${'f'.repeat(3000)}`)).toMatchObject({ kind: 'upload' });
    expect(endpointOf('https://t.test/v2/orders')).toEqual({ kind: 'other' });
  });
});
