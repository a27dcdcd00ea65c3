import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prettyJson, prettyXml } from '../../src/control/pretty-body.js';

// Bodies laid out for reading on the live page keep every character as it was sent: only the
// whitespace between tokens changes, so a decimal, an escape or a repeated name reads as it came.

/** The text without whitespace outside JSON strings. */
function tokensOf(json: string): string {
  return json.replace(/("(?:[^"\\]|\\.)*")|\s+/g, (_, string) => string ?? '');
}

describe('prettyJson', () => {
  it('indents members and items, and reads no value', () => {
    expect(prettyJson('{"amount":22.50,"tax":null,"a":{"b":[1,2.0e3,"x,{y}"]},"a":{},"e":[]}')).toBe(
      [
        '{',
        '  "amount": 22.50,',
        '  "tax": null,',
        '  "a": {',
        '    "b": [',
        '      1,',
        '      2.0e3,',
        '      "x,{y}"',
        '    ]',
        '  },',
        '  "a": {},',
        '  "e": []',
        '}',
      ].join('\n'),
    );
    expect(prettyJson('{"q":"a \\" b\\\\"}')).toBe('{\n  "q": "a \\" b\\\\"\n}');
  });

  it('changes nothing but whitespace outside strings, whatever the JSON', () => {
    fc.assert(
      fc.property(fc.json(), (json) => {
        expect(tokensOf(prettyJson(json))).toBe(tokensOf(json));
        expect(JSON.parse(prettyJson(json))).toEqual(JSON.parse(json));
      }),
    );
  });
});

describe('prettyXml', () => {
  it('puts each element on a line of its own, elements of text alone on one line', () => {
    expect(
      prettyXml(
        '<?xml version="1.0"?><Checkout a="x>y"><!-- c --><ReturnUrl>https://s/?a=1&amp;b=2</ReturnUrl><Tax xsi:nil="true"/><Empty></Empty><Note><![CDATA[<b>]]></Note><Billing><Address><City> Den Haag </City></Address></Billing></Checkout>',
      ),
    ).toBe(
      [
        '<?xml version="1.0"?>',
        '<Checkout a="x>y">',
        '  <!-- c -->',
        '  <ReturnUrl>https://s/?a=1&amp;b=2</ReturnUrl>',
        '  <Tax xsi:nil="true"/>',
        '  <Empty></Empty>',
        '  <Note><![CDATA[<b>]]></Note>',
        '  <Billing>',
        '    <Address>',
        '      <City> Den Haag </City>',
        '    </Address>',
        '  </Billing>',
        '</Checkout>',
      ].join('\n'),
    );
  });

  it('leaves a body it cannot cut into markup as it came', () => {
    expect(prettyXml('<Checkout><ReturnUrl')).toBe('<Checkout><ReturnUrl');
    expect(prettyXml('not xml at all')).toBe('not xml at all');
  });
});
