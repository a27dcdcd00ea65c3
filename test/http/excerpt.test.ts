import { describe, expect, it } from 'vitest';
import { excerpt } from '../../src/http/excerpt.js';

const checkout = {
  amount: '12',
  status: 'Open',
  paymentUrl: 'https://pay.example.test/start',
  returnUrl: 'https://shop.example.test/return',
  billing: {
    address: { name: 'A. Person', line1: 'Street 1', postCode: '2611AB', city: 31, country: 'nl' },
  },
};

const prettyXml = `<?xml version="1.0" encoding="utf-8"?>
<!-- a <Comment> that looks like an element -->
<Checkout xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" note="a > b">
  <Amount>22,49</Amount>
  <Status>Open</Status>
  <Tax xsi:nil="true" />
  <Note><![CDATA[<City>not this</City>]]></Note>
  <Billing>
    <Address>
      <Name>A. Person</Name>
      <City>Delft</City>
      <Country>nl</Country>
    </Address>
  </Billing>
</Checkout>
`;

describe('excerpt of a JSON body', () => {
  it('shows the lines around the member of a pretty-printed body, cut with ellipses', () => {
    const text = JSON.stringify(checkout, null, 2).replace(/\n/g, '\r\n');
    expect(excerpt(text, 'json', '/billing/address/city')).toBe(
      ['…', '  "line1": "Street 1",', '  "postCode": "2611AB",', '  "city": 31,', '  "country": "nl"', '}', '…'].join(
        '\n',
      ),
    );
  });

  it('centres a window of characters on the member of a one-line body', () => {
    const text = JSON.stringify({ padding: 'p'.repeat(300), status: 'Pending', tail: 't'.repeat(300) });
    const shown = excerpt(text, 'json', '/status', { maxChars: 60 });
    expect(shown.startsWith('…')).toBe(true);
    expect(shown.endsWith('…')).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(62);
    const at = shown.indexOf('"status":"Pending"');
    expect(at).toBeGreaterThan(10);
    expect(Math.abs(at + 9 - shown.length / 2)).toBeLessThan(10);
  });

  it('shows the parent of a missing member, and the start of the body for a missing top member', () => {
    const text = JSON.stringify(checkout, null, 2);
    expect(excerpt(text, 'json', '/billing/address/email')).toContain('"address": {');
    const start = excerpt(text, 'json', '/nothing');
    expect(start.startsWith('{\n')).toBe(true);
    expect(start).toContain('"amount": "12"');
  });

  it('finds array items, escaped names and the last of repeated names', () => {
    const text = `{"a\\"}{": {"x": "}]"}, "items": [{"n": 1}, {"n": "two"}], "k": 1, "k": 2}`;
    expect(excerpt(text, 'json', '/items/1/n', { maxChars: 12 })).toBe('…{"n": "two"}…');
    expect(excerpt(text, 'json', '/a"}{/x', { maxChars: 10 })).toBe('…{"x": "}]"…');
    expect(excerpt(text, 'json', '/k', { maxChars: 8 })).toBe('…"k": 2}');
    expect(excerpt(text, 'json', '/a~1b', { maxChars: 6 })).toBe('{"a\\"}…');
  });

  it('falls back to the start of a body it cannot read or without a path', () => {
    expect(excerpt('{"amount": ', 'json', '/amount')).toBe('{"amount":');
    expect(excerpt('not json at all', 'json', '/amount')).toBe('not json at all');
    expect(excerpt('', 'json', '/amount')).toBe('');
    expect(excerpt(`{"long": "${'x'.repeat(50)}"}`, 'json', undefined, { maxChars: 20 })).toBe(
      `{"long": "${'x'.repeat(10)}…`,
    );
  });

  it('shows control characters, which reports cannot carry, as replacement characters', () => {
    expect(excerpt('{"a": "x\u0001y",\r\n "b": 1}', 'json', '/a', { maxChars: 100 })).toBe(
      '{"a": "x\uFFFDy",\n "b": 1}',
    );
  });

  it('never cuts a character in two', () => {
    const text = `{"a": "${'😀'.repeat(40)}", "b": 1}`;
    for (const maxChars of [9, 10, 11, 12]) {
      const shown = excerpt(text, 'json', '/b', { maxChars });
      expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});

describe('excerpt of an XML body', () => {
  it('shows the lines around the element, by PascalCase or JSON names', () => {
    const expected = [
      '…',
      '<Address>',
      '  <Name>A. Person</Name>',
      '  <City>Delft</City>',
      '  <Country>nl</Country>',
      '</Address>',
      '…',
    ].join('\n');
    expect(excerpt(prettyXml, 'xml', '/Billing/Address/City')).toBe(expected);
    expect(excerpt(prettyXml, 'xml', '/billing/address/city')).toBe(expected);
  });

  it('skips comments, CDATA and quoted ">" in attributes', () => {
    expect(excerpt(prettyXml, 'xml', '/Tax', { contextLines: 0 })).toBe('…\n<Tax xsi:nil="true" />\n…');
    expect(excerpt(prettyXml, 'xml', '/Amount', { contextLines: 0 })).toBe('…\n<Amount>22,49</Amount>\n…');
  });

  it('centres on the element of a one-line body, reading prefixed names', () => {
    const text = prettyXml.replace(/\n\s*/g, '').replace(/<(\/?)(\w+)>/g, '<$1p:$2>');
    const shown = excerpt(text, 'xml', '/Billing/Address/Country', { maxChars: 80 });
    expect(shown).toContain('<p:Country>nl</p:Country>');
    expect(shown.startsWith('…')).toBe(true);
  });

  it('picks among repeated elements, and shows the parent of a missing one', () => {
    const text = '<Order><Item>a</Item><Item>b</Item><Item>c</Item><Other/></Order>';
    expect(excerpt(text, 'xml', '/Item/2', { maxChars: 14 })).toBe('…<Item>c</Item>…');
    expect(excerpt(text, 'xml', '/Item/0', { maxChars: 14 })).toBe('…<Item>a</Item>…');
    expect(excerpt(text, 'xml', '/Other/Deeper', { maxChars: 8 })).toBe('…<Other/>…');
    expect(excerpt(text, 'xml', '/Missing', { maxChars: 10 })).toBe('<Order><It…');
  });

  it('falls back to the start of a body without elements', () => {
    expect(excerpt('plain text', 'xml', '/Amount')).toBe('plain text');
    expect(excerpt('<Open><Amount>1', 'xml', '/Amount')).toBe('<Open><Amount>1');
  });
});
