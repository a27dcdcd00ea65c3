import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isOrderUrl,
  partitionKeyOfLine,
  partitionKeyOfUrl,
  requestUrlOfBytes,
  requestUrlOfLine,
} from '../../src/recording/line-route.js';

// Lines are dealt to judges from their bytes, before any judge makes text of them: the request
// URL read from the bytes must be the one read from the text, however the line is spelt.

const fromBytes = (line: string) => {
  const bytes = Buffer.from(`xx\n${line}\nyy "url":"elsewhere"`);
  const start = 3;
  return requestUrlOfBytes(bytes, start, start + Buffer.byteLength(line));
};

describe('the request URL of a recorded line', () => {
  it('is read from the bytes as the text reads it', () => {
    const lines = [
      '{"request":{"method":"GET","url":"https://s.test/v2/checkout/Ab9?x=1#y"}}',
      '{"request":{"url" : "https://s.test/v2/files/Zz/"}}',
      '{"request":{"url"\t:\n"https://s.test/v2/orders"}}',
      '{"no":"url"}',
      '{"url":"https://s.test/v2/checkout/é€😀"}',
      '{"url":"unclosed',
      '{"url":5,"request":{"url":"https://s.test/v2/checkout/later"}}',
      '{"url"',
      '',
    ];
    for (const line of lines) expect(fromBytes(line)).toBe(requestUrlOfLine(line));
    expect(fromBytes(lines[0] as string)).toBe('https://s.test/v2/checkout/Ab9?x=1#y');
    expect(fromBytes(lines[3] as string)).toBeUndefined();
  });

  it('is read from the bytes as the text reads it, for any line made of its parts', () => {
    const part = fc.constantFrom(
      '"url"',
      ':',
      ' ',
      '"',
      'https://s.test/v2/checkout/c1',
      '{',
      '}',
      'é',
      '😀',
      ',',
      'x',
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
        const line = parts.join('');
        expect(fromBytes(line)).toBe(requestUrlOfLine(line));
      }),
    );
  });

  it('keys a line by the last segment of its path, and tells order answers', () => {
    expect(partitionKeyOfLine('{"request":{"method":"GET","url":"https://s.test/v2/checkout/Ab9?x=1#y"}}')).toBe('Ab9');
    expect(partitionKeyOfLine('{"request":{"url" : "https://s.test/v2/files/Zz/"}}')).toBe('Zz');
    expect(partitionKeyOfLine('{"no":"url"}')).toBe('');
    expect(partitionKeyOfUrl('https://s.test/v2/files/Zz/')).toBe('Zz');
    expect(isOrderUrl('https://s.test/v2/orders')).toBe(true);
    expect(isOrderUrl('https://s.test/v2/orders/A1?x')).toBe(true);
    expect(isOrderUrl('https://s.test/v2/checkout/A1')).toBe(false);
  });
});
